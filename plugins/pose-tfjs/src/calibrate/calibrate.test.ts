// `wiflow calibrate` with a simulated room standing in for a real one: a recording of an
// unseen room, COCO labels made by the room's virtual camera from the simulator's truth.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CsiFrame } from '@wiflow/core';
import { encodeRecording } from '@wiflow/plugin-csi';
import { planDataset, Simulator } from '@wiflow/plugin-sim';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPoseNetwork, calibrateModel, DatasetRecipeSchema, environmentFromScenario, PoseModel, projectPoint, readModelSpec, SHIPPED_MODEL_DIR, type ModelSpec } from '../index.js';
import { tinySpec } from '../testing/synthetic.js';

const dirs: string[] = [];
const tmp = () => { const d = mkdtempSync(path.join(tmpdir(), 'wiflow-calibrate-')); dirs.push(d); return d; };
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The shipped model, or (before weights exist) an untrained network of the same contract. */
async function startingModel(): Promise<string> {
  if (existsSync(path.join(SHIPPED_MODEL_DIR, 'model.json'))) return SHIPPED_MODEL_DIR;
  const spec: ModelSpec = { ...tinySpec(), modelId: 'untrained', input: { frames: 8, links: 3, antennaPairs: 9, subcarriers: 30, sampleRateHz: 20, geometryScale: 5, phase: 'sanitised', temporal: 'absolute' }, output: { maxPersons: 3, presenceThreshold: 0.5 }, training: { dataset: { hopFrames: 5 } } };
  const dir = tmp();
  await PoseModel.save(dir, buildPoseNetwork(spec, { frameChannels: 16, temporalChannels: 16, hidden: 32, seed: 4 }), spec);
  return dir;
}

describe('calibration on a labelled recording', () => {
  it('fine-tunes on the start of a simulated room recording and reports before/after on its held-out end', async () => {
    const modelDir = await startingModel();
    const spec = readModelSpec(modelDir);
    const recipe = DatasetRecipeSchema.parse(spec.training.dataset ?? {});
    // A room of the test split: never seen in training.
    const plan = planDataset({ rooms: recipe.rooms, secondsPerSession: 30, sessionsPerRoom: 1, seed: recipe.seed, ranges: recipe.ranges as never });
    const session = plan.sessions.find((s) => s.split === 'test')!;
    const environment = environmentFromScenario(session.scenario);
    const simulator = new Simulator(session.scenario);
    const frames: CsiFrame[] = [];
    const images: { id: number; timestamp: number; width: number; height: number }[] = [];
    const annotations: { image_id: number; category_id: number; keypoints: number[]; num_keypoints: number }[] = [];
    for (const tick of simulator.run(24)) {
      frames.push(...tick.frames.map((f) => ({ ...f, truth: undefined })));
      if (tick.index % 5 !== 4) continue;
      const id = images.length + 1;
      images.push({ id, timestamp: tick.time, width: environment.camera.width, height: environment.camera.height });
      for (const person of tick.truth.persons) {
        const keypoints = person.keypoints3d.flatMap((k) => { const q = projectPoint(environment.camera, k); return q.visible ? [q.x, q.y, 2] : [0, 0, 0]; });
        annotations.push({ image_id: id, category_id: 1, keypoints, num_keypoints: keypoints.filter((_, i) => i % 3 === 2 && keypoints[i] > 0).length });
      }
    }
    const dir = tmp();
    writeFileSync(path.join(dir, 'environment.json'), JSON.stringify(environment));
    writeFileSync(path.join(dir, 'csi.wfr'), encodeRecording(frames, { source: 'simulated stand-in for a real room' }));
    writeFileSync(path.join(dir, 'labels.json'), JSON.stringify({ images, annotations, categories: [{ id: 1, name: 'person' }] }));
    const result = await calibrateModel({ recordingDir: dir, modelDir, outDir: path.join(tmp(), 'calibrated'), epochs: 6, learningRate: 0.001, holdoutFraction: 0.3, seed: 1 });
    expect(result.loss).toBe('reprojection');
    expect(result.trainSamples).toBeGreaterThan(40);
    expect(result.heldOutSamples).toBeGreaterThan(15);
    expect(result.before.keypointErrorPx).not.toBeNull();
    // Fine-tuning in the room lowers the 2D error on the part of the recording it never saw.
    expect(result.after.keypointErrorPx!).toBeLessThan(result.before.keypointErrorPx!);
    const calibrated = await PoseModel.load(result.modelDir);
    expect(calibrated.hash).toBe(result.modelHash);
    expect(calibrated.spec.modelId).toContain('calibrated');
  });

  it('rejects a recording directory without labels', async () => {
    const dir = tmp();
    writeFileSync(path.join(dir, 'environment.json'), '{}');
    await expect(calibrateModel({ recordingDir: dir, modelDir: await startingModel(), outDir: tmp(), epochs: 1, learningRate: 0.001, holdoutFraction: 0.3, seed: 1 })).rejects.toThrow(/environment.json|labels/);
  });
});
