// Test-only: start `serve-child.mjs` (the built flow service in its own process) and read its memory.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/** A flow service running in a child process. */
export interface ChildStudio {
  url: string;
  pid: number;
  dataDir: string;
  process: ChildProcess;
  /** Authorization header for the user of a role. */
  auth(role: 'viewer' | 'operator' | 'admin'): { Authorization: string };
  /** Peak resident memory of the process so far (VmHWM), in MB. */
  peakRssMb(): number;
  /** Whether the process is still running. */
  alive(): boolean;
  close(): Promise<void>;
}

const script = fileURLToPath(new URL('./serve-child.mjs', import.meta.url));
const builtServer = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/**
 * Start the built flow service in a child process with extra runtime config; resolves when it
 * listens. `dataDir`: reopen an earlier child's data (a restart after it died).
 */
export async function startChildStudio(config: Record<string, unknown> = {}, options: { dataDir?: string } = {}): Promise<ChildStudio> {
  if (!existsSync(builtServer)) throw new Error(`build @wiflow/studio-server first: ${builtServer} is missing`);
  const child = spawn(process.execPath, [script, JSON.stringify(config), ...(options.dataDir ? [options.dataDir] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  let exited = false;
  child.on('exit', () => (exited = true));
  const line = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`child studio exited (${code}) before listening: ${stderr}`)));
  });
  const info = JSON.parse(line) as { url: string; pid: number; dataDir: string };
  return {
    ...info,
    process: child,
    auth: (role) => ({ Authorization: `Bearer ${role}` }),
    peakRssMb() {
      const status = readFileSync(`/proc/${info.pid}/status`, 'utf8');
      const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1]);
      return kb / 1024;
    },
    alive: () => !exited,
    async close() {
      if (exited) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
