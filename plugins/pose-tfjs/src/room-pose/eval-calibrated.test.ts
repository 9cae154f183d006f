// `wiflow eval-calibrated --small` against the figures recorded in the model card's folder: the
// product (what the pipeline emits after the calibration's choice) and the network alone.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUDGETS, evaluateCalibrated, type CalibratedReport } from '../index.js';

const EXPECTED = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../models/wiflow-room-pose-v1/eval-calibrated-small.json');

describe('wiflow eval-calibrated --small', () => {
  it('reproduces the recorded learning curve within tolerance, with every documented key', async () => {
    const expected = JSON.parse(readFileSync(EXPECTED, 'utf8')) as CalibratedReport;
    const report = await evaluateCalibrated({ small: true });
    expect(report.small).toBe(true);
    expect(report.labelledSecondsPerMinute).toBe(12);
    for (const budget of BUDGETS) {
      // What the product emits is the calibration's choice on the held-out end of the labelled minutes; the network alone is kept beside it.
      expect(report.minutes[String(budget)].choice.use).toBe(expected.minutes[String(budget)].choice.use);
      expect(report.minutes[String(budget)].choice.heldOutEstimates).toBe(expected.minutes[String(budget)].choice.heldOutEstimates);
      for (const [people, rows] of ['1', '2', '3'].flatMap((p) => [[p, 'people'], [p, 'network']] as const)) {
        const got = report.minutes[String(budget)][rows][people], want = expected.minutes[String(budget)][rows][people];
        expect(Object.keys(got)).toEqual(expect.arrayContaining(['mpjpeMm', 'pck02', 'countExact', 'floorErrorM']));
        expect(got.samples).toBe(want.samples);
        // Training on WASM may differ in the last bits between machines: 10 % on errors, 0.03 on fractions.
        expect(Math.abs(got.mpjpeMm! - want.mpjpeMm!)).toBeLessThanOrEqual(0.1 * want.mpjpeMm!);
        // The absolute error is mostly the locator's floor error (1.7–2.6 m here), so 10 % of it would let
        // the posture (root-relative, 260–400 mm) move by half: the posture has its own 10 %.
        expect(Math.abs(got.rootRelativeMpjpeMm! - want.rootRelativeMpjpeMm!)).toBeLessThanOrEqual(0.1 * want.rootRelativeMpjpeMm!);
        expect(Math.abs(got.pck02! - want.pck02!)).toBeLessThanOrEqual(0.03);
        // Count and floor error are the locator's, with no training in them: they must not move.
        expect(Math.abs(got.countExact - want.countExact)).toBeLessThanOrEqual(0.01);
        expect(Math.abs(got.floorErrorM! - want.floorErrorM!)).toBeLessThanOrEqual(0.01 * want.floorErrorM!);
      }
    }
    // The baseline every budget must beat (the locator's mean pose at its positions) has no training either.
    for (const people of ['1', '2', '3']) {
      const got = report.baselineLocatedMeanPose.people[people], want = expected.baselineLocatedMeanPose.people[people];
      expect(got.samples).toBe(want.samples);
      for (const key of ['mpjpeMm', 'rootRelativeMpjpeMm', 'floorErrorM'] as const) expect(Math.abs(got[key]! - want[key]!)).toBeLessThanOrEqual(0.01 * want[key]!);
      expect(Math.abs(got.pck02! - want.pck02!)).toBeLessThanOrEqual(0.01);
    }
  }, 900_000);
});
