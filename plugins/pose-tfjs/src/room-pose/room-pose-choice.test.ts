// What a calibrated room emits is chosen on held-out labelled minutes (fallback-protocol.md):
// a network that loses there is not used, one that wins is; the frames say which made them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as sim from '@wiflow/plugin-sim';
import type { GroundTruthPerson } from '@wiflow/core';
import { afterAll, describe, expect, it } from 'vitest';
import {
  chooseOnHeldOut3d, chooseProduct, DEFAULT_PROBE, drawRoomPair, labelledMeanPosture, loadLocatorModel, loadRoomPoseModel, MIN_HELD_OUT, RoomPoseEstimator, saveRoomPoseModel,
  SHIPPED_LOCATOR_DIR, simulateReference, sessionScenario, type RoomPoseModel,
} from '../index.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

// A standing skeleton relative to its hip midpoint (x, y) with heights: enough joints moved apart that errors are measurable.
const POSTURE: [number, number, number][] = Array.from({ length: 17 }, (_, j) => [0.02 * (j % 3) - 0.02, j === 11 ? -0.1 : j === 12 ? 0.1 : 0.01 * (j % 5), 1.6 - 0.09 * j]);

/** A network whose output is a fixed skeleton: zero weights on top of `pose` (relative to the located position). */
function fixedNetwork(pose: readonly (readonly number[])[], environmentId = 'hall'): RoomPoseModel {
  const spec = { format: 'wiflow-room-pose/1' as const, modelId: 'wiflow-room-pose-v1', environmentId, probe: { heightsM: [1], offsetsM: [[0, 0]] as [number, number][], packets: 1, minPacketIntervalS: 0 }, layers: [2, 51], featureMean: [0, 0], featureStd: [1, 1], meanPose: pose.map((k) => [k[0], k[1], k[2]] as [number, number, number]), training: {} };
  return { spec, weights: [{ w: new Float32Array(2 * 51), b: new Float32Array(51) }], hash: '', directory: '(in memory)' };
}

/** Held-out estimates: one person located at `located`, truly standing with `truthPose` whose hips are at `hips`. */
function heldOut(count: number, truthPose: readonly (readonly number[])[], offset: { x: number; y: number }) {
  return Array.from({ length: count }, (_, i) => {
    const hips = { x: 1 + 0.05 * i, y: 2 };
    const truth: GroundTruthPerson[] = [{ id: 0, position: hips, activity: 'standing', keypoints3d: truthPose.map((k) => [k[0] + hips.x, k[1] + hips.y, k[2]]) }];
    const located = { hypotheses: [{ position: { x: hips.x - offset.x, y: hips.y - offset.y }, presence: 1 }] };
    return { instant: { located, features: [new Float32Array(2)] } as never, truth };
  });
}

describe('the calibration\'s choice of what a room emits', () => {
  const environment = drawRoomPair(sim, 'choice-room').environment;
  const slouch = POSTURE.map((k) => [k[0] + 0.15, k[1], k[2] - 0.3]);

  it('keeps the labelled mean posture where the network is worse on the held-out minutes', () => {
    // The labelled people stand as the mean posture says; the network slouches.
    const chosen = chooseOnHeldOut3d(heldOut(40, POSTURE, { x: 0, y: 0 }), environment, POSTURE, fixedNetwork(slouch), 0.5);
    expect(chosen.use).toBe('located-mean-posture');
    expect(chosen.figures['located-mean-posture']!).toBeLessThan(chosen.figures.network!);
    expect(chosen.count).toBe(40);
  });

  it('uses the network where it is better on the held-out minutes', () => {
    // The held-out people slouch; the network predicts it, and also that the locator reports them 0.3 m off their hips.
    const offset = { x: 0.3, y: 0 };
    const network = fixedNetwork(slouch.map((k) => [k[0] + offset.x, k[1], k[2]]));
    const chosen = chooseOnHeldOut3d(heldOut(40, slouch, offset), environment, POSTURE, network, 0.5);
    expect(chosen.use).toBe('network');
    expect(chosen.figures.network!).toBeLessThan(chosen.figures['network-posture']!);
    expect(chosen.figures.network!).toBeLessThan(chosen.figures['located-mean-posture']!);
    // Centred on the located position, the network's posture beats the mean posture but not the network.
    expect(chosen.figures['network-posture']!).toBeLessThan(chosen.figures['located-mean-posture']!);
  });

  it('keeps the simplest with too few held-out labels, and gives ties to the simpler', () => {
    const few = chooseOnHeldOut3d(heldOut(MIN_HELD_OUT - 1, POSTURE, { x: 0, y: 0 }), environment, POSTURE, fixedNetwork(POSTURE), 0.5);
    expect(few.use).toBe('located-mean-posture');
    expect(few.reason).toBe(`${MIN_HELD_OUT - 1} held-out estimates, fewer than ${MIN_HELD_OUT}: the simplest (located-mean-posture) is kept`);
    expect(chooseProduct({ 'located-mean-posture': 900.4, 'network-posture': 899.6, network: 1300 }, 50, 'mpjpeMm').use).toBe('located-mean-posture');
    expect(chooseProduct({ 'located-mean-posture': 900.4, 'network-posture': 898.6, network: 1300 }, 50, 'mpjpeMm').use).toBe('network-posture');
    expect(chooseProduct({ 'located-mean-posture': 31.2, 'network-posture': null, network: 31.14 }, 50, 'reprojectionPx').use).toBe('network');
  });

  it('averages the labelled postures about their hips', () => {
    const targets = new Float32Array(2 * 51);
    [0.4, -0.2].forEach((dx, r) => POSTURE.forEach((k, j) => targets.set([k[0] + dx, k[1] + 0.5, k[2]], r * 51 + 3 * j)));
    labelledMeanPosture(targets, 2).forEach((k, j) => POSTURE[j].forEach((v, d) => expect(k[d]).toBeCloseTo(v, 5)));
  });
});

describe('frames of a calibrated room', () => {
  it('carry the id and hash of what made them, never naming the network when it did not run', () => {
    const pair = drawRoomPair(sim, 'choice-frames');
    const scenario = sessionScenario(sim, { ...pair, realism: 'none' }, { role: 'twin', seed: 'f', seconds: 3, people: [1, 1], personHeight: [1.7, 1.7] });
    const reference = simulateReference(sim as never, scenario as never, 2);
    const locator = loadLocatorModel(SHIPPED_LOCATOR_DIR);
    const width = new RoomPoseEstimator(locator, pair.environment, reference, null).featureSize;
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-choice-')); dirs.push(dir);
    const net = fixedNetwork(POSTURE, pair.environment.id);
    const spec = { ...net.spec, probe: DEFAULT_PROBE, layers: [width, 51], featureMean: Array(width).fill(0), featureStd: Array(width).fill(1) };
    const weights = [{ w: new Float32Array(width * 51), b: new Float32Array(51) }];
    const choice = { posture: POSTURE.map((k) => [k[0], k[1], k[2] - 0.5] as [number, number, number]), postureSource: 'labelled' as const, metric: 'mpjpeMm' as const, heldOutSet: 'test', heldOutCount: 40, figures: { 'located-mean-posture': 900, 'network-posture': 1000, network: 1300 }, reason: 'test' };
    const frameOf = (model: RoomPoseModel) => {
      const estimator = new RoomPoseEstimator(locator, pair.environment, reference, model);
      for (const tick of new sim.Simulator(scenario).run(3)) for (const f of tick.frames) { const i = estimator.locate(f); if (i && i.hypotheses.length) return { frame: estimator.toPoseFrame(i), instant: i }; }
      throw new Error('the locator made no estimate');
    };
    const fallback = saveRoomPoseModel(path.join(dir, 'a'), { ...spec, choice: { ...choice, use: 'located-mean-posture' } }, weights);
    const { frame, instant } = frameOf(loadRoomPoseModel(fallback.directory));
    expect(frame.metadata.modelId).toBe('wiflow-room-pose-v1/located-mean-posture');
    expect(frame.metadata.modelHash).toBe(fallback.hash);
    expect(frame.metadata.pipeline).not.toMatch(/network →|person probe/);
    expect(frame.metadata.pipeline).toMatch(/labelled mean posture at each position \(posture not estimated/);
    // The skeleton is the recorded posture placed at the located position (its heights, not the network's).
    const h = instant.hypotheses[0];
    expect(h.keypoints3d[0][2]).toBeCloseTo(choice.posture[0][2], 6);
    expect(h.keypoints3d[5][0]).toBeCloseTo(h.position.x + choice.posture[5][0], 6);

    const network = saveRoomPoseModel(path.join(dir, 'b'), { ...spec, choice: { ...choice, use: 'network' } }, weights);
    const byNetwork = frameOf(loadRoomPoseModel(network.directory));
    expect(byNetwork.frame.metadata.modelId).toBe('wiflow-room-pose-v1');
    expect(byNetwork.frame.metadata.modelHash).toBe(network.hash);
    expect(network.hash).not.toBe(fallback.hash);
    expect(byNetwork.frame.metadata.pipeline).toMatch(/network → skeleton$/);
    expect(byNetwork.instant.hypotheses[0].keypoints3d[0][2]).toBeCloseTo(POSTURE[0][2], 6);
  }, 120_000);
});
