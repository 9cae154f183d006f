// `wiflow eval-e2e --small --json` as CI runs it: the built CLI in a child process, its JSON
// compared with the figures recorded in e2e-small.expected.json (docs/model.md) within the
// tolerances recorded there.
import { runWiflow, type WiflowRun } from '@wiflow/core/testing';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { poissonUpper95, type EndToEndReport } from './index.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const expected = JSON.parse(readFileSync(path.join(import.meta.dirname, 'e2e-small.expected.json'), 'utf8')) as {
  tolerance: { metres: number; share: number; visitors: number; falsePeoplePerHour: number };
  report: EndToEndReport;
};

/** Run the CLI; resolves with its exit code and output once it exits. */
function wiflow(args: string[]): Promise<WiflowRun> {
  return runWiflow(args, { dataDir: mkdtempSync(path.join(tmpdir(), 'wiflow-eval-e2e-')), cwd: ROOT });
}

describe('wiflow eval-e2e', () => {
  it('--small --json reproduces the recorded figures within tolerance', { timeout: 900_000 }, async () => {
    const { code, stdout, stderr } = await wiflow(['eval-e2e', '--small', '--json']);
    expect(code, stderr.slice(-2000)).toBe(0);
    // The plan goes to stderr before any room runs, so stdout stays one JSON document.
    expect(stderr).toMatch(/^eval-e2e plan: 4 room\(s\) with people, 1 crossing and the shop: \d+ min simulated; then 2 emptied room\(s\) × as-drawn, fan-cat-door, drift \(16 s as drawn, 16 s per installer condition\): 2 min of simulated empty room$/m);
    const got = JSON.parse(stdout.slice(stdout.indexOf('{'))) as EndToEndReport;
    const want = expected.report;
    const tol = expected.tolerance;
    expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
    expect({ estimator: got.estimator, hash: got.hash, profile: got.profile, split: got.split, rooms: got.rooms }).toEqual({ estimator: want.estimator, hash: want.hash, profile: want.profile, split: want.split, rooms: want.rooms });
    const near = (a: number | null, b: number | null, within: number, what: string) => {
      if (b === null) return expect(a, what).toBeNull();
      expect(a, what).not.toBeNull();
      expect(Math.abs(a! - b), `${what}: got ${a}, recorded ${b}`).toBeLessThanOrEqual(within);
    };
    for (const bucket of ['1', '2', '3', 'all'] as const) {
      const g = got.people[bucket], w = want.people[bucket];
      for (const stat of ['mean', 'median', 'p90'] as const) near(g.floorErrorM[stat], w.floorErrorM[stat], tol.metres, `people.${bucket}.floorErrorM.${stat}`);
      near(g.countExact, w.countExact, tol.share, `people.${bucket}.countExact`);
      near(g.detectedShare, w.detectedShare, tol.share, `people.${bucket}.detectedShare`);
      near(g.matchedShare, w.matchedShare, tol.share, `people.${bucket}.matchedShare`);
    }
    near(got.tracking.idf1, want.tracking.idf1, tol.share, 'tracking.idf1');
    near(got.tracking.mota, want.tracking.mota, tol.share, 'tracking.mota');
    expect(got.retail.visitorsTrue).toBe(want.retail.visitorsTrue);
    near(got.retail.visitorsCounted, want.retail.visitorsCounted, tol.visitors, 'retail.visitorsCounted');
    near(got.emptyRoom.falsePeoplePerHour, want.emptyRoom.falsePeoplePerHour, tol.falsePeoplePerHour, 'emptyRoom.falsePeoplePerHour');
    // The installer's empty rooms (fan, cat, door; drift) beside the rooms as drawn, each with its bound.
    const rows = (e: EndToEndReport['emptyRoom']) => [e, ...e.installer];
    expect(rows(got.emptyRoom).map((r) => [r.condition, r.rooms, r.secondsPerRoom])).toEqual(rows(want.emptyRoom).map((r) => [r.condition, r.rooms, r.secondsPerRoom]));
    for (const [i, row] of rows(got.emptyRoom).entries()) {
      near(row.falsePeoplePerHour, rows(want.emptyRoom)[i].falsePeoplePerHour, tol.falsePeoplePerHour, `emptyRoom ${row.condition}: falsePeoplePerHour`);
      expect(row.upper95PerHour, row.condition).toBeCloseTo((poissonUpper95(row.falseTracks) * 3600) / row.simulatedSeconds, 2);
    }
  });

  it('refuses an unknown profile with the known ones, and exits non-zero', { timeout: 120_000 }, async () => {
    const { code, stderr } = await wiflow(['eval-e2e', '--small', '--profile', 'wifi7-magic']);
    expect(code).not.toBe(0);
    expect(stderr).toContain('unknown hardware profile "wifi7-magic"');
    expect(stderr).toContain('intel5300-3x3-ht40');
  });
});
