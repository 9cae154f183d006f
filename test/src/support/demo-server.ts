import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { ROOT, startServer, token, type ServerHandle } from './server.js';

/** The demo server of one describe block, set once its beforeAll has run. */
export interface DemoServer {
  server: ServerHandle;
  /** The admin's Authorization header. */
  auth: { Authorization: string };
}

/**
 * Runs the demo as `npm start` does (`wiflow serve` with examples/config/demo.json) around the
 * calling describe block, signed in as its admin with `password`; afterwards the server must stop
 * cleanly (exit 0).
 */
export function useDemoServer(password: string): DemoServer {
  const demo = {} as DemoServer;
  beforeAll(async () => {
    demo.server = await startServer({ args: ['--config', path.join(ROOT, 'examples/config/demo.json')], env: { WIFLOW_ADMIN_PASSWORD: password } });
    demo.auth = { Authorization: `Bearer ${await token(demo.server.url, 'admin', password)}` };
  }, 120_000);
  afterAll(async () => {
    expect(await demo.server?.stop()).toBe(0);
  });
  return demo;
}
