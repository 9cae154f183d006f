import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SensingFrame } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { evaluateSim, runSimSession, scoreSimRuns, SensingConfigSchema, simSessions, simulateSensingReference, SIM_REFERENCE_SECONDS, SIM_SIZES, type SimSessionRun } from '../index.js';

const expected = JSON.parse(readFileSync(join(import.meta.dirname, 'sim-small.expected.json'), 'utf8')) as { tolerance: Record<string, number>; results: Record<string, number | null> };

/** A room frame of second `s`, `start` ms being the session's start. */
function frame(start: number, s: number, over: Partial<SensingFrame> = {}): SensingFrame {
  return {
    time: start + (s + 1) * 1000, second: s, scope: 'room', environmentId: 'r', link: null, presence: false, state: 'empty', motion: 0,
    breathingBpm: null, breathingReason: 'empty', breathingQuality: null, activity: null, falls: [], lostFraction: 0,
    estimatorId: 'wiflow-sense-v1', configHash: 'x', provenance: 'simulated', ...over,
  };
}

function run(kind: SimSessionRun['session']['kind'], seconds: number, frames: (s: number) => Partial<SensingFrame>, truth: Partial<SimSessionRun> = {}): SimSessionRun {
  const start = 1_000_000;
  return {
    session: { split: 'test', room: 0, kind, detail: kind, scenario: {} as never, seconds, breathingBpm: kind === 'still' ? 15 : null },
    room: Array.from({ length: seconds }, (_, s) => frame(start, s, frames(s))), links: [],
    present: Array.from({ length: seconds }, () => kind !== 'empty'), moving: Array.from({ length: seconds }, () => false),
    falls: [], fallLike: [], breathingTruth: Array.from({ length: seconds }, () => (kind === 'still' ? 15 : null)), motionRows: [], candidates: [], ...truth,
  };
}

describe('simulated evaluation: scoring against the simulator\'s truth', () => {
  it('counts still seconds found, false presence episodes, matched and false falls, and the breathing error', () => {
    const start = 1_000_000;
    const still = run('still', 100, (s) => ({ presence: s < 90, state: 'still', breathingBpm: s >= 40 ? 16 : null }));
    // Two separate present stretches in an empty room are two episodes.
    const empty = run('empty', 200, (s) => ({ presence: (s >= 50 && s < 60) || s === 150 }));
    // One fall at 20–21 s found at 21.5 s; one raised at 40 s far from any fall.
    const fall = run('fall', 60, (s) => ({ falls: s === 21 ? [{ time: start + 21_500, confidence: 0.9 }] : s === 40 ? [{ time: start + 40_000, confidence: 0.9 }] : [] }), { falls: [{ start: 20, end: 21, kind: 'forward' }] });
    const missed = run('fall', 60, () => ({}), { falls: [{ start: 30, end: 31, kind: 'knees' }] });
    const results = Object.fromEntries(scoreSimRuns([still, empty, fall, missed]).map((r) => [r.name, r.value]));
    expect(results['still person present: recall']).toBeCloseTo(80 / 90, 3);
    expect(results['empty room with distractors: false presence per day']).toBeCloseTo((2 / 190) * 86_400, 1);
    expect(results['falls: sensitivity']).toBe(0.5);
    expect(results['falls: false alarms per day']).toBeCloseTo((1 / 420) * 86_400, 1);
    expect(results['breathing of a still person: median error (bpm)']).toBe(1);
  });

  it('scores breathing against the true rate over the estimator\'s window, not the declared mean rate, and counts the seconds more than 2 bpm off', () => {
    // Declared 15 bpm; the person actually breathed 17 over the windows of seconds 60 on.
    const truth = Array.from({ length: 100 }, (_, s) => (s < 60 ? 15 : 17));
    const still = run('still', 100, () => ({ presence: true, state: 'still', breathingBpm: 17 }), { breathingTruth: truth });
    const results = Object.fromEntries(scoreSimRuns([still]).map((r) => [r.name, r.value]));
    // Seconds 30–59 read 17 against 15 (2 off), seconds 60–99 read 17 against 17: median of 70 errors is 0.
    expect(results['breathing of a still person: median error (bpm)']).toBe(0);
    expect(results['breathing: rated still seconds more than 2 bpm off (share)']).toBe(0);
    const far = run('still', 100, () => ({ presence: true, state: 'still', breathingBpm: 18.5 }), { breathingTruth: truth });
    expect(Object.fromEntries(scoreSimRuns([far]).map((r) => [r.name, r.value]))['breathing: rated still seconds more than 2 bpm off (share)']).toBeCloseTo(30 / 70, 3);
  });

  it('takes the breathing truth from the breaths the simulator drew: a windowed rate near the declared one, varying second to second', () => {
    const session = simSessions('validation', { ...SIM_SIZES.small, rooms: 1, stillSeconds: 90 })[0];
    const run = runSimSession(session);
    const truth = run.breathingTruth.slice(40).filter((v): v is number => v !== null);
    expect(truth.length).toBeGreaterThan(50);
    expect(Math.abs(truth.reduce((s, v) => s + v, 0) / truth.length - session.breathingBpm!)).toBeLessThan(0.15 * session.breathingBpm!);
    expect(Math.max(...truth) - Math.min(...truth)).toBeGreaterThan(0.2);
  });

  it('counts the seconds still read present after the person left, and keeps leaving sessions out of the falls', () => {
    const start = 1_000_000;
    const leave = run('leave', 100, (s) => ({ presence: s < 60, falls: s === 70 ? [{ time: start + 70_000, confidence: 0.9 }] : [] }), { present: Array.from({ length: 100 }, (_, s) => s < 40) });
    const results = Object.fromEntries(scoreSimRuns([leave]).map((r) => [r.name, r.value]));
    // The person is gone from 40 s; counted from 45 s (the motion window): 45…59.
    expect(results['after leaving: present seconds per session (median)']).toBe(15);
    expect(results['falls: false alarms per day']).toBeNull();
  });

  it('scores a person walking in after the warm-up from arrival: recall after the grace, people never found, time to presence, and false presence before arrival kept apart', () => {
    // Arrives at 60 s; found from 64 s (4 s to presence), so 60–64 are in the grace and 65–99 are all found.
    const arrives = { present: Array.from({ length: 100 }, (_, s) => s >= 60) };
    const found = run('walk-in', 100, (s) => ({ presence: (s >= 20 && s < 30) || s >= 64 }), arrives);
    // Never present from arrival on; a false episode before it that ends before arrival.
    const never = run('walk-in', 100, (s) => ({ presence: s >= 40 && s < 50 }), arrives);
    // Found late: from 75 s, so 65–74 are missed.
    const late = run('walk-in', 100, (s) => ({ presence: s >= 75 }), arrives);
    const results = Object.fromEntries(scoreSimRuns([found, never, late]).map((r) => [r.name, r.value]));
    expect(results['walk-in after the warm-up: recall from arrival']).toBeCloseTo((35 + 0 + 25) / (3 * 35), 3);
    expect(results['walk-in after the warm-up: people never found (share)']).toBeCloseTo(1 / 3, 3);
    expect(results['walk-in after the warm-up: seconds from arrival to presence (median)']).toBe((4 + 15) / 2);
    // Two episodes in 3 × 50 s of empty lead-in (10–59 s); the empty-room row has no sessions of its own here.
    expect(results['walk-in: empty lead-in before arrival: false presence per day']).toBeCloseTo((2 / 150) * 86_400, 1);
    expect(results['empty room with distractors: false presence per day']).toBeNull();
    expect(results['still person present: recall']).toBeNull();
  });

  it('appends the walk-in sessions after every other session, each after 60–120 s of empty room and longer than the warm-up', () => {
    const sizes = { ...SIM_SIZES.small, rooms: 2 };
    const sessions = simSessions('validation', sizes);
    const firstWalkIn = sessions.findIndex((s) => s.kind === 'walk-in');
    expect(sessions.slice(firstWalkIn).every((s) => s.kind === 'walk-in')).toBe(true);
    expect(sessions.length - firstWalkIn).toBe(2);
    for (const s of sessions.slice(firstWalkIn)) {
      const lead = s.scenario.people[0].script[0];
      expect(lead.action).toBe('absent');
      const duration = (lead as { duration: number }).duration;
      expect(duration).toBeGreaterThanOrEqual(60);
      expect(duration).toBeLessThanOrEqual(120);
    }
  });

  it('reports a true median: the mean of the two middle sessions for an even count, not the upper one', () => {
    const gone = { present: Array.from({ length: 100 }, (_, s) => s < 40) };
    // Present 10, 20, 30 and 90 s from 45 s on: the median of four is (20 + 30) / 2.
    const leaves = [10, 20, 30, 90].map((n) => run('leave', 200, (s) => ({ presence: s < 45 + n }), gone));
    expect(Object.fromEntries(scoreSimRuns(leaves).map((r) => [r.name, r.value]))['after leaving: present seconds per session (median)']).toBe(25);
    // Two still sessions whose rates are 1 and 2 bpm off: a median error of 1.5 bpm.
    const stills = [16, 17].map((bpm) => run('still', 100, () => ({ presence: true, state: 'still', breathingBpm: bpm })));
    expect(Object.fromEntries(scoreSimRuns(stills).map((r) => [r.name, r.value]))['breathing of a still person: median error (bpm)']).toBe(1.5);
  });

  it('keeps the splits apart: no room of the test split is a training or validation room', () => {
    const signature = (s: { scenario: { room: unknown; radios: unknown; clutter: unknown } }) => JSON.stringify([s.scenario.room, s.scenario.radios, s.scenario.clutter]);
    const sizes = { ...SIM_SIZES.small, rooms: 2 };
    const test = new Set(simSessions('test', sizes).map(signature));
    for (const split of ['train', 'validation'] as const) for (const s of simSessions(split, sizes)) expect(test.has(signature(s))).toBe(false);
  });

  it('records the installer\'s reference of every link of a session from the simulator\'s reference phase, and the reference alone changes nothing', () => {
    const session = simSessions('test', SIM_SIZES.small).find((s) => s.kind === 'still')!;
    const short = { ...session, seconds: 40 };
    const references = simulateSensingReference(short);
    const plain = runSimSession(short);
    expect([...references.keys()].sort()).toEqual([...new Set(plain.links.map((f) => `${f.link!.tx}>${f.link!.rx}`))].sort());
    for (const reference of references.values()) expect(reference.pairSpreads.length).toBeGreaterThanOrEqual(SIM_REFERENCE_SECONDS - 1);
    // The reference phase has nobody in the room: the still session's person walks in from its first second, so the
    // session's first 30 s read a larger spread than its reference on some link.
    const sessionSpread = Math.max(...plain.motionRows.filter((m) => m.second < SIM_REFERENCE_SECONDS).map((m) => Math.exp(m.row[0])));
    expect(sessionSpread).toBeGreaterThan(Math.max(...[...references.values()].map((r) => r.spread)));
    // With the level rule off and the floor not seeded, a session with its reference is sensed exactly as without.
    const withReference = runSimSession(short, undefined, SensingConfigSchema.parse({ presenceReferenceLevel: 'off' }), { reference: true });
    expect(withReference.room.map((f) => [f.presence, f.state, f.motion, f.breathingBpm])).toEqual(plain.room.map((f) => [f.presence, f.state, f.motion, f.breathingBpm]));
  });

  it('reproduces the recorded --small figures (unseen test rooms, shipped models) within tolerance', { timeout: 600_000 }, () => {
    const evaluation = evaluateSim({ small: true });
    const got = Object.fromEntries(evaluation.results.map((r) => [r.name, r.value]));
    expect(Object.keys(got).sort()).toEqual(Object.keys(expected.results).sort());
    for (const [name, value] of Object.entries(expected.results)) {
      if (value === null) expect(got[name], name).toBeNull();
      else expect(Math.abs((got[name] ?? NaN) - value), name).toBeLessThanOrEqual(expected.tolerance[name]);
    }
  });
});
