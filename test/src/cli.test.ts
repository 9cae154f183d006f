import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'core/bin/wiflow.js');

describe('wiflow CLI', () => {
  it('`wiflow plugins` lists the discovered template plugin with its node types', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-cli-'));
    const { stdout } = await run(process.execPath, [bin, 'plugins', '--data-dir', dataDir], { cwd: root });
    expect(stdout).toMatch(/wiflow-plugin-template@\d+\.\d+\.\d+\s+loaded/);
    expect(stdout).toContain('template.confidence-filter');
    expect(stdout).toContain('io.input');
  });

  it('`wiflow run` runs a job flow with inputs from flags and prints its outputs', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-cli-'));
    const flow = path.join(root, 'test/fixtures/echo-flow.json');
    const { stdout } = await run(process.execPath, [bin, 'run', flow, '--input', 'message="hello"', '--data-dir', dataDir], { cwd: root });
    const result = JSON.parse(stdout) as { status: string; outputs: Record<string, unknown> };
    expect(result.status).toBe('completed');
    expect(result.outputs.echo).toBe('hello');
  });

  it('`wiflow run` reports every compiler problem and fails', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-cli-'));
    const flow = path.join(root, 'test/fixtures/broken-flow.json');
    const error = (await run(process.execPath, [bin, 'run', flow, '--data-dir', dataDir], { cwd: root }).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(error.code).toBe(1);
    expect(error.stderr).toContain('unknown node type "nope.nothing"');
    expect(error.stderr).toContain('does not exist');
  });
});
