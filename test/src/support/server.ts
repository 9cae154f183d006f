import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** A `wiflow serve` child process on a free port. */
export interface ServerHandle {
  url: string;
  dataDir: string;
  process: ChildProcess;
  /** Everything the server printed on stdout so far. */
  stdout(): string;
  /** Everything the server printed on stderr so far (notices, logs). */
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Start the real server from the built CLI, wait for its URL and readiness. */
export async function startServer(options: { args?: string[]; env?: Record<string, string>; dataDir?: string; timeoutMs?: number } = {}): Promise<ServerHandle> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'wiflow-e2e-'));
  const child = spawn(process.execPath, [path.join(ROOT, 'core/bin/wiflow.js'), 'serve', '--port', '0', '--data-dir', dataDir, ...(options.args ?? [])], {
    cwd: ROOT,
    env: { ...process.env, WIFLOW_LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in time.\nstdout: ${out}\nstderr: ${err.slice(-4000)}`)), options.timeoutMs ?? 90_000);
    const check = () => {
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}).\nstdout: ${out}\nstderr: ${err.slice(-4000)}`));
    });
  });
  for (let i = 0; i < 100; i++) {
    const ok = await fetch(`${url}/api/v1/health`).then((r) => r.ok).catch(() => false);
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    dataDir,
    process: child,
    stdout: () => out,
    stderr: () => err,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        const kill = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', (code) => (clearTimeout(kill), resolve(code)));
        child.kill('SIGTERM');
      }),
  };
}

/** Log in through the pose API and return a bearer token. */
export async function token(url: string, username: string, password: string): Promise<string> {
  const response = await fetch(`${url}/api/v1/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username, password }) });
  const body = (await response.json()) as { access_token?: string; data?: { access_token: string } };
  const access = body.access_token ?? body.data?.access_token;
  if (!response.ok || !access) throw new Error(`login failed: ${response.status} ${JSON.stringify(body)}`);
  return access;
}
