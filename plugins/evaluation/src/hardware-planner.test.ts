// `wiflow plan-hardware` as a user runs it: the built CLI in a child process on a `--tiny` run
// (seconds of each scenario through the real chain), its table checked against its own JSON.
import { runWiflow, type WiflowRun } from '@wiflow/core/testing';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlannerResult } from './index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-plan-hardware-'));

/** Run the CLI; resolves with its exit code and output once it exits. */
function wiflow(args: string[]): Promise<WiflowRun> {
  return runWiflow(args, { dataDir: path.join(dir, 'data'), cwd: ROOT });
}

const tableOf = (stdout: string) => stdout.split('\n').filter((l) => !l.startsWith('…') && l.trim() !== '');
const cells = (line: string) => line.split('|').slice(1, -1).map((c) => c.trim());

describe('wiflow plan-hardware', () => {
  const written = path.join(dir, 'planner.json');
  let run: { code: number | null; stdout: string; stderr: string };
  let result: PlannerResult;
  beforeAll(async () => {
    run = await wiflow(['plan-hardware', '--tiny', '--profiles', 'recipe,esp32-ht20+4rx', '--write', written]);
    result = JSON.parse(readFileSync(written, 'utf8')) as PlannerResult;
  }, 300_000);

  it('runs each profile through the chain and prints one table row per profile, in order, from its own reports', () => {
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(result.size).toBe('tiny');
    expect(result.rows.map((r) => r.profile)).toEqual(['recipe', 'esp32-ht20+4rx']);
    const lines = tableOf(run.stdout);
    const first = result.rows[0].report;
    // The heading names what the frames carried, and says the tiny figures mean nothing.
    expect(first.estimator).toMatch(/^wiflow-locate-v\d+$/);
    expect(first.hash).toMatch(/^[0-9a-f]{12,}$/);
    expect(lines[0]).toContain(`Estimator \`${first.estimator}\`, hash \`${first.hash.slice(0, 12)}\``);
    expect(lines[0]).toContain('figures mean nothing');
    const rows = lines.filter((l) => l.startsWith('| `'));
    expect(rows).toHaveLength(2);
    for (const [i, line] of rows.entries()) {
      const row = result.rows[i];
      const c = cells(line);
      expect(c[0]).toBe(`\`${row.profile}\``);
      expect(c[7]).toBe(`${row.report.tracking.idf1.toFixed(2)} / ${row.report.tracking.mota.toFixed(2)}`);
      expect(c[8]).toBe(`${row.report.retail.visitorsCounted} / ${row.report.retail.visitorsTrue}`);
      expect(c[10]).toBe(row.cpuSeconds.toFixed(0));
      expect(row.cpuSeconds).toBeGreaterThan(0);
      expect(row.load.start).toBeGreaterThanOrEqual(0);
    }
    expect(result.rows[1].hardware).toContain('ESP32');
    expect(result.rows[1].hardware).toContain('one more receiver');
    expect(result.rows[1].report.profile).toBe('esp32-ht20+4rx');
  });

  it('--table-from prints the same table from the written JSON, and marks a row measured with another hash', async () => {
    const again = await wiflow(['plan-hardware', '--table-from', written]);
    expect(again.code, again.stderr).toBe(0);
    expect(tableOf(again.stdout)).toEqual(tableOf(run.stdout));
    const mixed = structuredClone(result);
    mixed.rows[1].report.hash = 'feedfacecafe0000';
    const mixedFile = path.join(dir, 'mixed.json');
    writeFileSync(mixedFile, JSON.stringify(mixed));
    const shown = tableOf((await wiflow(['plan-hardware', '--table-from', mixedFile])).stdout).filter((l) => l.startsWith('| `'));
    expect(shown[0]).not.toContain('measured with');
    expect(shown[1]).toContain(`(measured with ${mixed.rows[1].report.estimator} feedfacecafe)`);
  }, 60_000);

  it('--table-from a,b joins runs of a few profiles each into one table, and refuses runs of different sizes', async () => {
    const [a, b] = ['a', 'b'].map((n) => path.join(dir, `part-${n}.json`));
    writeFileSync(a, JSON.stringify({ ...result, rows: [result.rows[0]] }));
    writeFileSync(b, JSON.stringify({ ...result, rows: [result.rows[1]] }));
    const joined = await wiflow(['plan-hardware', '--table-from', `${a},${b}`]);
    expect(joined.code, joined.stderr).toBe(0);
    expect(tableOf(joined.stdout)).toEqual(tableOf(run.stdout));
    writeFileSync(b, JSON.stringify({ ...result, size: 'small', rows: [result.rows[1]] }));
    const mixed = await wiflow(['plan-hardware', '--table-from', `${a},${b}`]);
    expect(mixed.code).not.toBe(0);
    expect(mixed.stderr).toContain(`--table-from ${b}: size small, not tiny`);
  }, 60_000);

  it('refuses an unknown profile before running anything, and a file that is not a planner JSON, naming it', async () => {
    const unknown = await wiflow(['plan-hardware', '--tiny', '--profiles', 'recipe,wifi7-magic']);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain('unknown hardware profile "wifi7-magic"');
    expect(unknown.stdout).not.toContain('profile 1/');
    const bogus = path.join(dir, 'bogus.json');
    writeFileSync(bogus, '{"rows": 3}');
    const bad = await wiflow(['plan-hardware', '--table-from', bogus]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain(`--table-from ${bogus}: not a plan-hardware JSON`);
  }, 60_000);
});
