import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { startServer, token, type ServerHandle } from './server.js';
import { openStudioLoggedIn } from './studio-page.js';

/** A real `wiflow serve` whose system pipeline locates one room, and Chromium logged in to its studio. */
export interface LocateStudio {
  server: ServerHandle;
  browser: Browser;
  page: Page;
}

/**
 * Writes the system pipeline `sim.source` (the scenario, looping in real time) → `pose.locate` (the
 * room's environment and reference file) → `pose.publish` into `dataDir`, starts the server on it,
 * starts the pipeline, and logs a 1024×768 Chromium page in as admin. Console errors and page
 * errors go to `errors`, so a suite can assert the page never logged one.
 */
export async function startLocateStudio(options: {
  dataDir: string;
  name: string;
  scenario: unknown;
  environment: unknown;
  referenceFile: string;
  password: string;
  errors: string[];
}): Promise<LocateStudio> {
  const { dataDir, name, password, errors } = options;
  const pipeline = path.join(dataDir, `${name}-pipeline.json`);
  writeFileSync(pipeline, JSON.stringify({
    id: `${name}-pipeline`,
    name,
    data: {
      nodes: [
        { id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario: options.scenario, realtime: true, loop: true } } },
        { id: 'locate', position: { x: 200, y: 0 }, data: { nodeType: 'pose.locate', config: { environments: [options.environment], references: [options.referenceFile], densePose: 'none' } } },
        { id: 'publish', position: { x: 400, y: 0 }, data: { nodeType: 'pose.publish', config: {} } },
      ],
      edges: [
        { id: 'e1', source: 'sim', sourceHandle: 'frames', target: 'locate', targetHandle: 'frames' },
        { id: 'e2', source: 'locate', sourceHandle: 'poses', target: 'publish', targetHandle: 'poses' },
      ],
    },
  }));
  const config = path.join(dataDir, 'config.json');
  writeFileSync(config, JSON.stringify({ api: { pipeline: { flow: pipeline } } }));
  const server = await startServer({ args: ['--config', config], env: { WIFLOW_ADMIN_PASSWORD: password }, dataDir });
  const bearer = await token(server.url, 'admin', password);
  const started = await fetch(`${server.url}/api/v1/system/start`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: '{}' });
  expect(started.status).toBe(202);
  return { server, ...(await openStudioLoggedIn(server.url, password, errors)) };
}
