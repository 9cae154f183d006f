import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

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

/** Start a real nats-server with JetStream on loopback; resolves when it accepts clients. */
export async function startNatsServer(): Promise<{ url: string; process: ChildProcess; stop(): Promise<void> }> {
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
  return {
    url: `nats://127.0.0.1:${port}`,
    process: child,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}
