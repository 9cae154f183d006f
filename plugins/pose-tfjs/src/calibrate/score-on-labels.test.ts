// Which hypotheses a calibration report scores: the same ones as every other pose figure.
import { describe, expect, it } from 'vitest';
import { encodeTarget, projectPoint, scoreOnLabels, type LabelledSample, type PoseModel } from '../index.js';
import { SLOT_SIZE } from '../model/contract.js';
import { standingPerson, syntheticWindow, tinyEnvironment, tinySpec } from '../testing/synthetic.js';

describe('scoreOnLabels', () => {
  it('pairs a labelled person with the nearer of two reported people, not only with the most confident one', () => {
    const spec = tinySpec({ output: { maxPersons: 3, presenceThreshold: 0.5 } });
    const environment = tinyEnvironment();
    const truth = standingPerson(0, 1.2, 1.5);
    // The model reports two people: a strong one far from the labelled person and a weaker one on it.
    const far = standingPerson(1, 3.4, 0.6), near = standingPerson(2, 1.2, 1.5);
    const output = new Float32Array(spec.output.maxPersons * SLOT_SIZE);
    encodeTarget([far, near], environment, spec.output.maxPersons, output);
    output[0] = 4; // far: presence 0.98
    output[SLOT_SIZE] = 1; // near: presence 0.73, still reported
    output[2 * SLOT_SIZE] = -4; // third slot: not reported
    const model = { spec, predict: (_csi: Float32Array, _geometry: Float32Array, n: number) => { expect(n).toBe(1); return output; } } as unknown as PoseModel;
    const keypoints2d = truth.keypoints3d.map((k) => { const q = projectPoint(environment.camera, k); return [q.x, q.y, q.visible ? 2 : 0] as [number, number, number]; });
    const sample: LabelledSample = {
      windows: environment.links.map((_, link) => syntheticWindow(spec, environment, link, [truth], 0, () => 0)),
      labels: { time: 0, persons: [{ keypoints2d, keypoints3d: truth.keypoints3d }] },
    };
    const metrics = scoreOnLabels(model, environment, [sample]);
    // Paired with the reported person standing where the label is: near-zero errors.
    expect(metrics.mpjpeMm!).toBeLessThan(1);
    expect(metrics.keypointErrorPx!).toBeLessThan(1);
    expect(metrics.pck02).toBe(1);
    // Two reported for one labelled: the count is wrong, and the report says so.
    expect(metrics.countAccuracy).toBe(0);
  });
});
