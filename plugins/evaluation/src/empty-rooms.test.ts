// The empty-room part of eval-e2e on the tiny size with 20-s rooms through the real chain (one
// test room, emptied as drawn, with fan, cat and door, and with drift): the rows are all there,
// each phantom is listed with where and when, and each rate and its 95 % bound follow from the
// row's own count and seconds. Its figures mean nothing (one room, 20 s).
import { createTestRuntime } from '@wiflow/core/testing';
import posePlugin from '@wiflow/plugin-pose-tfjs';
import retailPlugin from '@wiflow/plugin-retail';
import simPlugin, { randomScenario, validateScenario } from '@wiflow/plugin-sim';
import trackerPlugin from '@wiflow/plugin-tracker';
import { describe, expect, it } from 'vitest';
import { describeEvaluationPlan, emptiedScenario, evaluateEmptyRooms, EVALUATION_SIZES, parseEmptyConditions, poissonUpper95 } from './index.js';

describe('eval-e2e --empty-only', () => {
  it('measures each condition over the emptied rooms and bounds each rate by its own count and hours', { timeout: 300_000 }, async () => {
    const runtime = await createTestRuntime({ plugins: [simPlugin, posePlugin, trackerPlugin, retailPlugin] });
    try {
      const plans: string[] = [];
      const report = await evaluateEmptyRooms(runtime, { size: 'tiny', emptySeconds: 20, onPlan: (line) => plans.push(line) });
      // Told before any room ran: one room, three conditions of 20 s each.
      expect(plans).toEqual(['eval-e2e plan: 1 emptied room(s) × as-drawn, fan-cat-door, drift (20 s as drawn, 20 s per installer condition): 1 min of simulated empty room']);
      expect(report.estimator).toMatch(/^wiflow-locate-v\d+$/);
      const rows = [report.emptyRoom, ...report.emptyRoom.installer];
      expect(rows.map((r) => r.condition)).toEqual(['as-drawn', 'fan-cat-door', 'drift']);
      for (const row of rows) {
        expect({ rooms: row.rooms, secondsPerRoom: row.secondsPerRoom, simulatedSeconds: row.simulatedSeconds }).toEqual({ rooms: 1, secondsPerRoom: 20, simulatedSeconds: 20 });
        expect(row.falseTracks).toBe(row.phantoms.length);
        expect(row.falsePeoplePerHour).toBeCloseTo((row.falseTracks * 3600) / 20, 3);
        expect(row.upper95PerHour).toBeCloseTo(poissonUpper95(row.falseTracks) * 180, 2);
        for (const p of row.phantoms) {
          expect(p.atSeconds).toBeGreaterThanOrEqual(0);
          expect(p.atSeconds + p.shownSeconds).toBeLessThanOrEqual(20);
          // Only the room with the installer's distractors has any to name.
          expect(p.distractors.map((d) => d.id).sort()).toEqual(row.condition === 'fan-cat-door' ? ['cat', 'door', 'fan'] : []);
        }
      }
    } finally {
      await runtime.stop();
    }
  });

  it('says before a run how much simulated time it holds, and how to leave out the hours of empty room', () => {
    const sessions = Array.from({ length: 23 }, () => ({}) as never);
    const full = { size: EVALUATION_SIZES.full, sessions, recipeSeconds: 16 };
    // The full default: 23 rooms × 16 s, 3 crossings × 60 s and the 150-s shop, then 23 rooms × 3 conditions × 480 s.
    expect(describeEvaluationPlan({ ...full, options: {} }, false)).toBe(
      'eval-e2e plan: 23 room(s) with people, 3 crossing and the shop: 12 min simulated; then 23 emptied room(s) × as-drawn, fan-cat-door, drift (480 s as drawn, 480 s per installer condition): 9.2 h of simulated empty room; for the people figures alone pass --empty-seconds 16 --empty-conditions as-drawn',
    );
    expect(describeEvaluationPlan({ ...full, options: { emptySeconds: 16, emptyConditions: ['as-drawn'] } }, false)).toBe(
      'eval-e2e plan: 23 room(s) with people, 3 crossing and the shop: 12 min simulated; then 23 emptied room(s) × as-drawn (16 s as drawn): 6 min of simulated empty room',
    );
  });

  it('empties a room and adds only what its condition names', () => {
    const room = validateScenario(randomScenario({ seed: 7, durationS: 16 }));
    expect(room.people.length).toBeGreaterThan(0);
    const plain = emptiedScenario(room, 'as-drawn', 60);
    const installer = emptiedScenario(room, 'fan-cat-door', 60);
    const drifted = emptiedScenario(room, 'drift', 60);
    for (const s of [plain, installer, drifted]) expect(s.people).toEqual([]);
    expect(plain.distractors ?? []).toEqual([]);
    expect(plain.drift).toBeUndefined();
    expect((installer.distractors ?? []).map((d) => d.kind)).toEqual(['fan', 'pet', 'door']);
    expect(installer.drift).toBeUndefined();
    expect(drifted.drift?.referenceSeed).toBeTypeOf('number');
    expect(drifted.distractors ?? []).toEqual([]);
    // The same room gets the same draws however often it is emptied.
    expect(emptiedScenario(room, 'fan-cat-door', 60)).toEqual(installer);
  });

  it('refuses unknown conditions and seconds that are not > 0, naming what it takes', async () => {
    expect(parseEmptyConditions('drift,as-drawn')).toEqual(['drift', 'as-drawn']);
    expect(() => parseEmptyConditions('fan,dog')).toThrow(/among as-drawn, fan-cat-door, drift/);
    expect(() => parseEmptyConditions('')).toThrow(/among as-drawn, fan-cat-door, drift/);
    const runtime = await createTestRuntime({ plugins: [simPlugin, posePlugin, trackerPlugin, retailPlugin] });
    try {
      await expect(evaluateEmptyRooms(runtime, { size: 'tiny', emptySeconds: 0 })).rejects.toThrow(/empty seconds must be a number > 0/);
      await expect(evaluateEmptyRooms(runtime, { size: 'tiny', emptyConditions: [] })).rejects.toThrow(/among as-drawn, fan-cat-door, drift/);
      await expect(evaluateEmptyRooms(runtime, { size: 'tiny', emptyRooms: 1.5 })).rejects.toThrow(/empty rooms must be a whole number > 0/);
    } finally {
      await runtime.stop();
    }
  });
});
