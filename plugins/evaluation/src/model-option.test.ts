// `--model DIR` of eval-e2e and plan-hardware as a user runs them: the built CLI in child
// processes fits a locator for a fourth receiver on one training room (seconds), then the
// planner runs it; the frames, not the command line, must name the model that ran.
import { runWiflow, type WiflowRun } from '@wiflow/core/testing';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlannerResult } from './index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-eval-model-'));

/** Run the CLI; resolves with its exit code and output once it exits. */
function wiflow(args: string[]): Promise<WiflowRun> {
  return runWiflow(args, { dataDir: path.join(dir, 'data'), cwd: ROOT });
}

describe('--model of eval-e2e and plan-hardware', () => {
  const model = path.join(dir, 'locate-4rx-one-room');
  let fit: WiflowRun;
  beforeAll(async () => {
    fit = await wiflow(['locate', 'fit', '--profile', 'recipe+4rx', '--train-sessions', '1', '--out', model]);
  }, 180_000);

  it('plan-hardware --model runs every row with that locator, and the frames carry its id and hash', { timeout: 300_000 }, async () => {
    expect(fit.code, fit.stderr.slice(-2000)).toBe(0);
    const written = path.join(dir, 'planner.json');
    const run = await wiflow(['plan-hardware', '--tiny', '--profiles', 'recipe+4rx', '--model', model, '--write', written]);
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const report = (JSON.parse(readFileSync(written, 'utf8')) as PlannerResult).rows[0].report;
    const hash = createHash('sha256').update(readFileSync(path.join(model, 'locator.json'))).digest('hex');
    expect(report.estimator).toBe('locate-4rx-one-room');
    expect(report.hash.length).toBeGreaterThanOrEqual(12);
    expect(hash.startsWith(report.hash)).toBe(true);
    expect(run.stdout).toContain(`Estimator \`locate-4rx-one-room\`, hash \`${hash.slice(0, 12)}\``);
  });

  it('eval-e2e --tracker refuses options that are not a JSON object, saying so, before simulating a room', { timeout: 120_000 }, async () => {
    for (const bad of ['{upstream_min_evidence: 0.5', '[0.5]']) {
      const run = await wiflow(['eval-e2e', '--small', '--tracker', bad]);
      expect(run.code).not.toBe(0);
      expect(run.stderr).toMatch(/--tracker: (not JSON|a JSON object of tracker\.track options)/);
      expect(run.stdout).not.toContain('room 1/');
    }
  });

  it('eval-e2e --model refuses a folder without a locator, naming it, before simulating a room', { timeout: 120_000 }, async () => {
    const missing = path.join(dir, 'no-such-model');
    const run = await wiflow(['eval-e2e', '--small', '--model', missing]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`no model at ${missing} (expected locator.json)`);
    expect(run.stdout).not.toContain('room 1/');
  });
});
