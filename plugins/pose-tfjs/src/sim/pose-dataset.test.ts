// The splits `wiflow locate eval --split` reads (issue 21): `val2` is a second validation split of
// fresh rooms, drawn by the same recipe as `test`, and adding it must leave the recipe's own
// train/val/test rooms exactly as they were (the recorded evaluations read them).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as sim from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { DatasetRecipeSchema, SHIPPED_LOCATOR_DIR, splitSessions, SPLIT_NAMES } from '../index.js';
import type { SimModule } from './pose-dataset.js';

const recipe = DatasetRecipeSchema.parse((JSON.parse(readFileSync(path.join(SHIPPED_LOCATOR_DIR, 'locator.json'), 'utf8')) as { training: { dataset: unknown } }).training.dataset);
const module = sim as unknown as SimModule;
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges as never });
const signatures = (sessions: readonly { roomSignature?: string }[]) => new Set(sessions.map((s) => s.roomSignature));

describe('dataset splits', () => {
  it('keeps train, val and test as the recipe plans them', () => {
    for (const split of ['train', 'val', 'test'] as const) {
      expect(splitSessions(module, recipe, { split }).map((s) => s.sessionId)).toEqual(plan.sessions.filter((s) => s.split === split).map((s) => s.sessionId));
    }
  });

  it('draws val2 as as many fresh rooms as test, none of them in train, val or test', () => {
    const val2 = splitSessions(module, recipe, { split: 'val2' });
    expect(SPLIT_NAMES).toContain('val2');
    expect(val2).toHaveLength(plan.sessions.filter((s) => s.split === 'test').length);
    const fresh = signatures(val2 as never);
    expect(fresh.size).toBe(val2.length);
    for (const s of plan.sessions) expect(fresh.has(s.roomSignature)).toBe(false);
    // The same recipe: people drawn per session within the recipe's range, rate and receivers as recipe.
    for (const s of val2) {
      expect(s.scenario.channel.rateHz).toBe(20);
      expect(s.scenario.radios.filter((r) => r.role !== 'tx')).toHaveLength(3);
    }
  });

  it('draws val3 and val4 fresh too: none of their rooms in train, val, test, val2 or each other', () => {
    const seen = new Set([...signatures(plan.sessions as never), ...signatures(splitSessions(module, recipe, { split: 'val2' }) as never)]);
    for (const split of ['val3', 'val4'] as const) {
      expect(SPLIT_NAMES).toContain(split);
      const sessions = splitSessions(module, recipe, { split });
      expect(sessions).toHaveLength(plan.sessions.filter((s) => s.split === 'test').length);
      const fresh = signatures(sessions as never);
      expect(fresh.size).toBe(sessions.length);
      for (const signature of fresh) expect(seen.has(signature)).toBe(false);
      for (const signature of fresh) seen.add(signature);
    }
  });

  it('takes the first sessions of val2 for a small selection', () => {
    expect(splitSessions(module, recipe, { split: 'val2', maxSessions: 4 }).map((s) => s.sessionId)).toEqual(splitSessions(module, recipe, { split: 'val2' }).slice(0, 4).map((s) => s.sessionId));
  });
});
