import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '@wiflow/core';
import { afterAll, beforeAll } from 'vitest';
import { NatsConfig } from './config.js';
import { NatsService } from './service.js';

/** Where Debian installs nats-server; tests skip (saying so) when it is absent. */
export const NATS_SERVER = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p));

/** A free loopback TCP port. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** A nats-server started for a test. */
export interface NatsTestServer {
  url: string;
  process: ChildProcess;
  /** A client connection, closed by `stop`. */
  connect(): Promise<NatsConnection>;
  /** Close the connections `connect` made (and the streams' service), then stop the server. */
  stop(): Promise<void>;
}

/**
 * Start a real nats-server with JetStream on loopback; resolves when it accepts clients (with
 * `streams`, once the wiflow streams exist, as every runtime with this plugin creates them).
 */
export async function startNatsServer(options: { streams?: boolean } = {}): Promise<NatsTestServer> {
  if (!NATS_SERVER) throw new Error('nats-server is not installed (apt-get install nats-server)');
  const port = await freePort();
  const storeDir = mkdtempSync(path.join(tmpdir(), 'wiflow-nats-'));
  const child = spawn(NATS_SERVER, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let log = '';
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Server is ready')) resolve();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${log}`)));
  });
  const url = `nats://127.0.0.1:${port}`;
  const connections: NatsConnection[] = [];
  const streams = options.streams ? new NatsService(NatsConfig.parse({ url }), createLogger({ level: 'error' })) : undefined;
  await streams?.get();
  return {
    url,
    process: child,
    async connect() {
      const nc = await connect({ servers: url });
      connections.push(nc);
      return nc;
    },
    async stop() {
      for (const nc of connections.splice(0)) await nc.close();
      await streams?.close();
      if (child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    },
  };
}

/**
 * A nats-server for the calling describe block: started in its beforeAll, stopped in its afterAll
 * once `cleanup` (processes to kill, services to close) has run. Tests read `.server`.
 */
export function useNatsServer(options: { streams?: boolean; cleanup?: () => void | Promise<void> } = {}): { readonly server: NatsTestServer } {
  let server: NatsTestServer | undefined;
  beforeAll(async () => {
    server = await startNatsServer({ streams: options.streams });
  });
  afterAll(async () => {
    await options.cleanup?.();
    await server?.stop();
  });
  return {
    get server() {
      if (!server) throw new Error('the nats-server of this describe block is not started (read it inside a test)');
      return server;
    },
  };
}
