import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SensingFrame } from '@wiflow/core';
import { encodeRecording } from '@wiflow/plugin-csi';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SENSING_MODELS, EmptyRoomReferenceRecorder, LinkSensor, readEmptyRoomReference, SensingConfigSchema, sensingConfigHash, type LinkReference, type MotionFeatures } from '../index.js';
import { syntheticLinkFrames } from '../testing/synthetic-link.js';

const quietRoom = syntheticLinkFrames([{ kind: 'empty', seconds: 30 }], { rateHz: 20, noise: 0.005, seed: 11 });

function sense(reference: LinkReference | null, settings: Record<string, unknown>, noise: number, onMotionFeatures?: (second: number, f: MotionFeatures) => void): SensingFrame[] {
  const config = SensingConfigSchema.parse(settings);
  const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'room', config, models: DEFAULT_SENSING_MODELS, configHash: sensingConfigHash(config, DEFAULT_SENSING_MODELS), reference, onMotionFeatures });
  const out: SensingFrame[] = [];
  for (const frame of syntheticLinkFrames([{ kind: 'empty', seconds: 60 }], { rateHz: 20, noise, seed: 12 })) out.push(...sensor.push(frame));
  out.push(...sensor.finish());
  return out;
}

function recorded(): LinkReference {
  const recorder = new EmptyRoomReferenceRecorder();
  for (const frame of quietRoom) recorder.push(frame);
  return recorder.build().get('tx>rx')!;
}

describe('the installer\'s empty-room reference', () => {
  it('records each link\'s spread and its pair spread per second, from frames or from a capture file alike', async () => {
    const reference = recorded();
    expect(reference.pairSpreads.length).toBeGreaterThanOrEqual(29);
    expect(reference.spread).toBeGreaterThan(0);
    const file = join(mkdtempSync(join(tmpdir(), 'wiflow-reference-')), 'empty.wfr');
    writeFileSync(file, encodeRecording(quietRoom, { name: 'empty room' }));
    const fromFile = await readEmptyRoomReference(file);
    expect([...fromFile.keys()]).toEqual(['tx>rx']);
    expect(fromFile.get('tx>rx')).toEqual(reference);
  });

  it('a level above twice the empty room\'s starts presence by default, keeps only in \'keep\' mode, and does nothing without a reference or when off', () => {
    const reference = recorded();
    // The session is as empty as the reference but five times as noisy: its spread is far above twice the reference's.
    const noisy = 0.025;
    const present = (frames: SensingFrame[]) => frames.filter((f) => f.presence).length;
    expect(present(sense(null, {}, noisy))).toBe(0);
    expect(present(sense(reference, { presenceReferenceLevel: 'off' }, noisy))).toBe(0);
    // Nobody was seen arrive, so a keep-only level has nothing to keep.
    expect(present(sense(reference, { presenceReferenceLevel: 'keep' }, noisy))).toBe(0);
    const started = sense(reference, {}, noisy);
    expect(present(started)).toBeGreaterThan(50);
    // At the reference's own noise the level stays below twice the empty room's.
    expect(present(sense(reference, {}, 0.005))).toBe(0);
  });

  it('seeds the link\'s floor from the reference with presenceReferenceFloor, and only then', () => {
    const reference = recorded();
    const floors = (settings: Record<string, unknown>, ref: LinkReference | null) => {
      const seen: MotionFeatures[] = [];
      sense(ref, { presenceReferenceLevel: 'off', ...settings }, 0.025, (_s, f) => seen.push(f));
      return seen;
    };
    const sorted = [...reference.pairSpreads].sort((a, b) => a - b);
    const seeded = floors({ presenceReferenceFloor: true }, reference)[0];
    // The first second's floor is the 10th percentile of the reference's seconds and that second.
    const withFirst = [...reference.pairSpreads, seeded.pairSpread].sort((a, b) => a - b);
    expect(seeded.pairFloor).toBe(withFirst[Math.floor(0.1 * (withFirst.length - 1))]);
    expect(seeded.pairFloor).toBeLessThan(seeded.pairSpread);
    expect(seeded.pairFloor).toBeLessThanOrEqual(sorted[Math.ceil(0.1 * sorted.length)]);
    // Without the setting, or without a reference, the first second's floor is that second's own pair spread.
    for (const own of [floors({}, reference)[0], floors({ presenceReferenceFloor: true }, null)[0]]) expect(own.pairFloor).toBe(own.pairSpread);
  });
});
