import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateDataset, planDataset, roomSignature, writeDataset, type DatasetManifest } from '../index.js';

describe('dataset generation', () => {
  it('splits by room: test rooms (geometry, materials, placements) never appear in training', () => {
    const plan = planDataset({ rooms: 12, secondsPerSession: 5, sessionsPerRoom: 3, seed: 3 });
    const { train, val, test } = plan.splits;
    expect(train.length + val.length + test.length).toBe(12);
    expect(test.length).toBeGreaterThanOrEqual(1);
    expect(val.length).toBeGreaterThanOrEqual(1);
    expect(train.length).toBeGreaterThanOrEqual(6);
    const sigs = (ids: string[]) => new Set(plan.sessions.filter((s) => ids.includes(s.roomId)).map((s) => roomSignature(s.scenario)));
    const trainSigs = sigs(train);
    for (const sig of sigs(test)) expect(trainSigs.has(sig)).toBe(false);
    for (const sig of sigs(val)) expect(trainSigs.has(sig)).toBe(false);
    for (const id of test) expect(train).not.toContain(id);
    // Sessions of one room share the room but not the people.
    const room0 = plan.sessions.filter((s) => s.roomId === train[0]);
    expect(room0).toHaveLength(3);
    expect(new Set(room0.map((s) => roomSignature(s.scenario))).size).toBe(1);
    expect(JSON.stringify(room0[0].scenario.people)).not.toBe(JSON.stringify(room0[1].scenario.people));
    // Deterministic for the seed.
    expect(planDataset({ rooms: 12, secondsPerSession: 5, sessionsPerRoom: 3, seed: 3 }).splits).toEqual(plan.splits);
    expect(planDataset({ rooms: 12, secondsPerSession: 5, sessionsPerRoom: 3, seed: 4 }).splits).not.toEqual(plan.splits);
  });

  it('streams (frames, truth) per session in memory', () => {
    let sessions = 0;
    for (const session of generateDataset({ rooms: 2, secondsPerSession: 0.2, seed: 1, split: { train: 1, val: 0, test: 1 } })) {
      sessions++;
      let ticks = 0;
      for (const tick of session.ticks()) {
        ticks++;
        expect(tick.truth.environmentId).toBe(session.roomId);
        for (const f of tick.frames) {
          expect(f.provenance).toBe('simulated');
          expect(f.truth).toBe(tick.truth);
          expect(f.nsc).toBe(30);
        }
      }
      expect(ticks).toBe(20);
    }
    expect(sessions).toBe(2);
  });

  it('rejects bad options', () => {
    expect(() => planDataset({ rooms: 0, secondsPerSession: 1, seed: 1 })).toThrow(/rooms must be a positive integer/);
    expect(() => planDataset({ rooms: 2, secondsPerSession: -1, seed: 1 })).toThrow(/secondsPerSession/);
    expect(() => planDataset({ rooms: 2, secondsPerSession: 1, seed: 1, split: { train: -1, val: 0, test: 0 } })).toThrow(/split/);
  });

  it('writes recordings, scenarios and a manifest whose splits are disjoint by room', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-dataset-'));
    try {
      const seen: number[] = [];
      const manifest = await writeDataset(dir, { rooms: 3, secondsPerSession: 0.3, seed: 9, format: 'jsonl' }, (p) => seen.push(p.ticks));
      const onDisk = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as DatasetManifest;
      expect(onDisk).toEqual(manifest);
      expect(manifest.splits.train.length + manifest.splits.val.length + manifest.splits.test.length).toBe(3);
      expect(manifest.splits.test).toHaveLength(1);
      const trainSigs = new Set(manifest.sessions.filter((s) => s.split === 'train').map((s) => s.roomSignature));
      for (const s of manifest.sessions.filter((x) => x.split === 'test')) expect(trainSigs.has(s.roomSignature)).toBe(false);
      for (const s of manifest.sessions) {
        expect(existsSync(path.join(dir, s.recording))).toBe(true);
        expect(existsSync(path.join(dir, s.scenario))).toBe(true);
        expect(s.frames).toBeGreaterThan(20);
      }
      expect(seen[seen.length - 1]).toBe(90);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('spreads sessions over worker threads: the same seed gives the same bytes with 1 and with 2 threads', async () => {
    const dirs = [mkdtempSync(path.join(tmpdir(), 'wiflow-dataset-1-')), mkdtempSync(path.join(tmpdir(), 'wiflow-dataset-n-'))];
    try {
      const options = { rooms: 4, secondsPerSession: 0.5, seed: 21, ranges: { realism: 'v2' as const } };
      const ticks: number[] = [];
      const one = await writeDataset(dirs[0], { ...options, threads: 1 });
      const many = await writeDataset(dirs[1], { ...options, threads: 2 }, (p) => ticks.push(p.ticks));
      expect(many).toEqual(one);
      expect(ticks[ticks.length - 1]).toBe(4 * 50);
      for (const s of one.sessions) {
        expect(readFileSync(path.join(dirs[1], s.recording)).equals(readFileSync(path.join(dirs[0], s.recording)))).toBe(true);
        expect(readFileSync(path.join(dirs[1], s.scenario), 'utf8')).toBe(readFileSync(path.join(dirs[0], s.scenario), 'utf8'));
      }
    } finally {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    }
    // Two datasets and a worker pool: CPU-bound, it passed in 3.8 s idle but passed vitest's 5-s default at load 14.
  }, 60_000);
});
