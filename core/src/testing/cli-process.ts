import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The `wiflow` program of this core package (bin/wiflow.js). */
export const WIFLOW_BIN = fileURLToPath(new URL('../../bin/wiflow.js', import.meta.url));

/** What `runWiflow` resolves with once the process exits. */
export interface WiflowRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run the real `wiflow` CLI in its own process (`node bin/wiflow.js --data-dir DIR ...args`) and
 * resolve with its exit code and output once it exits. Logs are quiet unless `WIFLOW_LOG_LEVEL` is
 * given in `env`.
 */
export function runWiflow(args: readonly string[], options: { dataDir: string; cwd?: string; env?: Record<string, string> }): Promise<WiflowRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WIFLOW_BIN, '--data-dir', options.dataDir, ...args], {
      cwd: options.cwd,
      env: { ...process.env, WIFLOW_LOG_LEVEL: 'error', ...options.env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
