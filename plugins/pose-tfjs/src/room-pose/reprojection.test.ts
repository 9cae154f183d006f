// Fine-tuning from 2D-only labels (COCO keypoints from the room's camera, no 3D): people are
// placed on the floor from their ankles, the loss is the reprojection through the declared
// camera. Fine-tuning must bring the skeletons of the labelled frames closer to their camera labels
// than the twin-only model's (the loss works through the camera), and the report says, from its own
// figures, whether that carried over to held-out sessions (new people, new scripts). It does not
// reliably: after the simulator's fall-motion fix this test's protocol gave 32.1 px fine-tuned against
// 31.7 px twin-only held out (it was the other way before), so that is reported, not asserted.
import * as sim from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { cameraLabel, drawRoomPair, evaluateReprojection, floorFromKeypoints2d, fitRoomPose, DEFAULT_PROBE, packReprojectionRows, sessionScenario, type ProtocolSizes } from '../index.js';

describe('2D-only labels', () => {
  it('place a labelled person on the floor from the ankles through the declared camera', () => {
    const pair = drawRoomPair(sim, 'reprojection-floor');
    const scenario = sessionScenario(sim, pair, { role: 'labelled', seed: 'floor', seconds: 3, people: [2, 2], personHeight: [1.6, 1.8] });
    const errors: number[] = [];
    for (const tick of new sim.Simulator(scenario).run(3)) {
      const label = cameraLabel(pair.environment, tick.truth);
      label.persons.forEach((p, i) => {
        const floor = floorFromKeypoints2d(pair.environment.camera, p.keypoints2d);
        const truth = tick.truth.persons[i];
        if (floor) errors.push(Math.hypot(floor.x - truth.position.x, floor.y - truth.position.y));
      });
    }
    expect(errors.length).toBeGreaterThan(50);
    errors.sort((a, b) => a - b);
    // Ankles are not under the hip midpoint while walking: a median within 20 cm.
    expect(errors[errors.length >> 1]).toBeLessThan(0.2);
    // No ankle labelled: no position, never a guess.
    expect(floorFromKeypoints2d(pair.environment.camera, Array.from({ length: 17 }, () => [0, 0, 0]))).toBeNull();
  });

  it('cannot train a network from scratch (no depth without the twin\'s start)', async () => {
    const pair = drawRoomPair(sim, 'reprojection-floor');
    const rows = packReprojectionRows([{ features: new Float32Array(4), position: { x: 1, y: 1 }, keypoints: new Float32Array(34), visible: new Float32Array(17).fill(1) }], 4, pair.environment.camera);
    await expect(fitRoomPose(rows, { format: 'wiflow-room-pose/1', modelId: 'x', environmentId: 'x', probe: DEFAULT_PROBE, training: {} }, { epochs: 1, learningRate: 1e-3, seed: 1 })).rejects.toThrow(/2D-only labels fine-tune a model/);
  });

  it('fine-tuned on 2D labels, the labelled frames reproject closer to their camera labels than the twin-only model\'s, and the held-out verdict follows its figures', async () => {
    // A small protocol (realism none, so the locator finds people and rows survive); the full figures are in the card.
    const sizes: ProtocolSizes = { twinSessions: 3, twinSeconds: 20, secondsPerMinute: 12, labelledMinutes: 4, testSeconds: 15, testSessionsPerCount: 1 };
    const report = await evaluateReprojection({ sizes, realism: 'none', seed: 'calibrated-1' });
    expect(report.rows.labelled2d).toBeGreaterThan(100);
    expect(report.rows.heldOut).toBeGreaterThan(50);
    expect(report.heldOut.fineTuned2d.joints).toBe(report.heldOut.twinOnly.joints);
    expect(report.labelled.fineTuned2d.joints).toBe(report.labelled.twinOnly.joints);
    expect(report.labelled.fineTuned2d.meanPx!).toBeLessThan(report.labelled.twinOnly.meanPx!);
    expect(report.fineTunedBeatsTwin).toBe(report.heldOut.fineTuned2d.meanPx! < report.heldOut.twinOnly.meanPx!);
  }, 900_000);
});
