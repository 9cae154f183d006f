import { describe, expect, it } from 'vitest';
import { evaluateSamples, matchPeople, meanPose, placePose, scoredHypotheses } from '../index.js';
import { standingPerson, tinyEnvironment } from '../testing/synthetic.js';

const environment = tinyEnvironment();

describe('evaluation metrics', () => {
  it('scores a perfect prediction as zero error, full PCK and exact counts', () => {
    const truth = [standingPerson(1, 1.5, 1.2), standingPerson(2, 3, 2)];
    const predicted = truth.map((t) => ({ ...t, presence: 0.9 })).reverse();
    const report = evaluateSamples([{ environment, truth, predicted, presenceThreshold: 0.5 }], meanPose(truth));
    expect(report.model['2'].mpjpeMm).toBeCloseTo(0, 6);
    expect(report.model['2'].pck02).toBe(1);
    expect(report.model['2'].countAccuracy).toBe(1);
    expect(report.model.all.floorErrorM).toBeCloseTo(0, 6);
  });

  it('measures a known shift: every joint 0.1 m off gives MPJPE 100 mm and floor error 0.1 m', () => {
    const truth = [standingPerson(1, 2, 1.5)];
    const shifted = { position: { x: 2.1, y: 1.5 }, keypoints3d: truth[0].keypoints3d.map(([x, y, z]) => [x + 0.1, y, z]), presence: 0.8 };
    const report = evaluateSamples([{ environment, truth, predicted: [shifted], presenceThreshold: 0.5 }], meanPose(truth));
    expect(report.model['1'].mpjpeMm).toBeCloseTo(100, 3);
    expect(report.model['1'].rootRelativeMpjpeMm).toBeCloseTo(0, 3);
    expect(report.model['1'].floorErrorM).toBeCloseTo(0.1, 6);
  });

  it('counts wrong person counts and an empty room', () => {
    const truth = [standingPerson(1, 2, 1.5)];
    const none = { ...truth[0], presence: 0.2 };
    const report = evaluateSamples([
      { environment, truth, predicted: [none], presenceThreshold: 0.5 },
      { environment, truth: [], predicted: [{ ...none, presence: 0.1 }], presenceThreshold: 0.5 },
    ], meanPose(truth));
    expect(report.model['1'].countAccuracy).toBe(0);
    expect(report.model['0'].countAccuracy).toBe(1);
    expect(report.model['0'].mpjpeMm).toBeNull();
    expect(report.model.all.countAccuracy).toBe(0.5);
  });

  it('places the baselines: mean pose at the true position beats it at the room centre', () => {
    const truth = [standingPerson(1, 0.8, 0.7, 1.6), standingPerson(2, 3.4, 2.5, 1.9)];
    const pose = meanPose(truth);
    const report = evaluateSamples([{ environment, truth, predicted: [], presenceThreshold: 0.5 }], pose);
    const atTrue = report.baselines.meanPoseAtTruePosition['2'];
    const atCentre = report.baselines.meanPoseAtRoomCentre['2'];
    expect(atTrue.floorErrorM).toBeCloseTo(0, 6);
    expect(atTrue.mpjpeMm!).toBeGreaterThan(0);
    expect(atCentre.mpjpeMm!).toBeGreaterThan(2 * atTrue.mpjpeMm!);
    expect(placePose(pose, { x: 1, y: 1 }).keypoints3d[0][2]).toBeCloseTo(pose[0][2], 9);
  });

  it('matches people by floor distance whatever the order', () => {
    const truth = [standingPerson(1, 1, 1), standingPerson(2, 3, 2)];
    const pairs = matchPeople(truth, [{ position: { x: 3.1, y: 2 }, keypoints3d: [] }, { position: { x: 0.9, y: 1.1 }, keypoints3d: [] }]);
    expect(pairs.map(([t, h]) => [t.id, h.position.x])).toEqual([[1, 0.9], [2, 3.1]]);
  });

  it('pairs a true person with the nearer of two reported hypotheses, not the more confident one', () => {
    const truth = [standingPerson(1, 3, 2)];
    const far = { ...placePose(meanPose(truth), { x: 1, y: 1 }), presence: 0.9 };
    const near = { ...placePose(meanPose(truth), { x: 3.2, y: 2 }), presence: 0.7 };
    expect(matchPeople(truth, [far, near]).map(([, h]) => h.position.x)).toEqual([3.2]);
    // Both are reported (above 0.5): the wrong count is the count figure's to show, the floor error is the near one's.
    const report = evaluateSamples([{ environment, truth, predicted: [far, near], presenceThreshold: 0.5 }], meanPose(truth));
    expect(report.model['1'].floorErrorM).toBeCloseTo(0.2, 6);
    expect(report.model['1'].countAccuracy).toBe(0);
  });

  it('pairs the one hypothesis with whichever true person it is near, not the first listed', () => {
    const truth = [standingPerson(1, 1, 1), standingPerson(2, 2, 2), standingPerson(3, 3.5, 2.5)];
    const pairs = matchPeople(truth, [{ position: { x: 3.4, y: 2.5 }, keypoints3d: [] }]);
    expect(pairs.map(([t]) => t.id)).toEqual([3]);
    const report = evaluateSamples([{ environment, truth, predicted: [{ ...placePose(meanPose(truth), { x: 3.4, y: 2.5 }), presence: 0.9 }], presenceThreshold: 0.5 }], meanPose(truth));
    expect(report.model['3'].persons).toBe(1);
    expect(report.model['3'].floorErrorM).toBeCloseTo(0.1, 6);
  });

  it('scores reported hypotheses, and unreported ones only to stand in for people nobody was reported for', () => {
    const truth = [standingPerson(1, 3, 2)];
    const pose = meanPose(truth);
    const reported = { ...placePose(pose, { x: 2, y: 2 }), presence: 0.8 };
    const unreportedNearer = { ...placePose(pose, { x: 3, y: 2 }), presence: 0.3 };
    // A candidate nobody was shown is never picked over a reported person because it lies nearer.
    expect(scoredHypotheses([unreportedNearer, reported], 1, 0.5)).toEqual([reported]);
    const report = evaluateSamples([{ environment, truth, predicted: [reported, unreportedNearer], presenceThreshold: 0.5 }], pose);
    expect(report.model['1'].floorErrorM).toBeCloseTo(1, 6);
    // Nobody reported: the strongest candidate is still scored, so pose figures do not hang on the count.
    const weak = { ...placePose(pose, { x: 1, y: 1 }), presence: 0.1 };
    expect(scoredHypotheses([weak, unreportedNearer], 1, 0.5)).toEqual([unreportedNearer]);
    expect(scoredHypotheses([weak, unreportedNearer], 2, 0.5)).toEqual([unreportedNearer, weak]);
  });
});
