// Real brokers on loopback for tests and benchmarks: aedes in-process, Debian's mosquitto as a child process.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { Aedes } from 'aedes';

/** A broker listening on 127.0.0.1. */
export interface LocalBroker {
  kind: 'aedes' | 'mosquitto';
  port: number;
  url: string;
  /** Stop the broker (connections are cut). */
  close(): Promise<void>;
}

/** Where Debian installs mosquitto. */
export const MOSQUITTO_PATH = '/usr/sbin/mosquitto';

/** Whether a mosquitto binary is installed. */
export function hasMosquitto(): boolean {
  return existsSync(MOSQUITTO_PATH);
}

/** A TCP port free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Start aedes with a net server on `port` (0: any free port), optionally with a username/password check. */
export async function startAedes(port = 0, credentials?: { username: string; password: string }): Promise<LocalBroker & { broker: Aedes }> {
  const broker = await Aedes.createBroker(
    credentials
      ? {
          authenticate: (_client, username, password, done) => {
            const ok = username === credentials.username && password?.toString() === credentials.password;
            done(ok ? null : Object.assign(new Error('bad username or password'), { returnCode: 4 }), ok);
          },
        }
      : {},
  );
  const server = net.createServer(broker.handle);
  const sockets = new Set<net.Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  return {
    kind: 'aedes',
    broker,
    port: bound,
    url: `mqtt://127.0.0.1:${bound}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await new Promise<void>((resolve) => broker.close(() => resolve()));
    },
  };
}

/** Wait until something accepts TCP connections on 127.0.0.1:port. */
async function waitForPort(port: number, timeoutMs: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`mosquitto exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`mosquitto did not listen on port ${port} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Start Debian's mosquitto (`mosquitto -p <port>`, no persistence) as a child process. */
export async function startMosquitto(port?: number): Promise<LocalBroker & { child: ChildProcess; log: () => string }> {
  if (!hasMosquitto()) throw new Error(`mosquitto is not installed at ${MOSQUITTO_PATH}`);
  const bound = port ?? (await freePort());
  const child = spawn(MOSQUITTO_PATH, ['-p', String(bound)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  try {
    await waitForPort(bound, 10_000, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}; output: ${output.slice(-2000)}`);
  }
  return {
    kind: 'mosquitto',
    child,
    port: bound,
    url: `mqtt://127.0.0.1:${bound}`,
    log: () => output,
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
      await exited;
      clearTimeout(timer);
    },
  };
}
