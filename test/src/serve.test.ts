import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('wiflow serve', () => {
  it('prints its URL, answers readiness, and exits cleanly on SIGTERM', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-serve-'));
    const child = spawn(process.execPath, [path.join(root, 'core/bin/wiflow.js'), 'serve', '--port', '0', '--data-dir', dataDir], {
      cwd: root,
      env: { ...process.env, WIFLOW_LOG_LEVEL: 'warn', WIFLOW_DEFAULT_PIPELINE: 'off' },
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`serve exited early (${code}): ${out}`)));
    });
    const health = await fetch(`${url}/api/v1/health`);
    expect(health.status).toBe(200);
    // Both services' OpenAPI documents are reachable, to anyone: the pose service's at
    // /api/v1/openapi.json (registered first), the flow service's at its own path.
    const pose = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as { info: { title: string }; paths: Record<string, unknown> };
    expect(pose.info.title).toBe('wiflow pose service');
    const flowService = await fetch(`${url}/api/v1/studio/openapi.json`);
    expect(flowService.status).toBe(200);
    const document = (await flowService.json()) as { info: { title: string }; paths: Record<string, unknown> };
    expect(document.info.title).toBe('wiflow flow service');
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/api/v1/flows/', '/api/v1/studio/jobs', '/api/v1/studio/openapi.json']));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const t0 = Date.now();
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
