import type { CsiFrame, CsiWindow, GroundTruthFrame } from '@wiflow/core';
import { PoseErrors } from '../errors.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import type { PoseSample } from '../training/dataset.js';
import { environmentFromScenario, type ScenarioGeometry } from './environment-from-scenario.js';
import { SignalChain } from '@wiflow/plugin-csi';
import { signalChainOptions, type DatasetRecipe } from './recipe.js';

/** The slice of @wiflow/plugin-sim the dataset code uses (loaded on demand: inference never needs it). */
export interface SimModule {
  planDataset(options: { rooms: number; secondsPerSession: number; sessionsPerRoom?: number; seed: number | string; ranges?: Record<string, unknown> }): {
    splits: Record<'train' | 'val' | 'test', string[]>;
    sessions: { sessionId: string; roomId: string; split: 'train' | 'val' | 'test'; scenario: ScenarioGeometry & { channel: { rateHz: number } } }[];
  };
  Simulator: new (scenario: unknown, options?: Record<string, unknown>) => {
    run(durationS?: number): Generator<{ index: number; time: number; frames: CsiFrame[]; truth: GroundTruthFrame }>;
  };
}

const SIM_PACKAGE: string = '@wiflow/plugin-sim';

/** Load @wiflow/plugin-sim (or use the module given), with a clear error when it is missing. */
export async function loadSim(given?: SimModule): Promise<SimModule> {
  if (given) return given;
  let sim: Partial<SimModule>;
  try {
    sim = (await import(SIM_PACKAGE)) as Partial<SimModule>;
  } catch (error) {
    throw PoseErrors.simulatorMissing(`cannot load @wiflow/plugin-sim: ${(error as Error).message.split('\n')[0]}`);
  }
  if (typeof sim.planDataset !== 'function' || typeof sim.Simulator !== 'function') throw PoseErrors.simulatorMissing('@wiflow/plugin-sim does not export planDataset and Simulator');
  return sim as SimModule;
}

/**
 * A split of a recipe's rooms. `train`, `val` and `test` are the recipe's own plan; `val2`, `val3`
 * and `val4` are further validation splits of fresh rooms: each the `test` share of the plan the
 * same generator draws with the seed `<recipe seed>:<split>` (same room count, ranges and session
 * kinds as `test`, no room or scenario seed shared with train/val/test or each other). They are a
 * second (and third) opinion on a choice made on `val`, before the choice goes to the test rooms.
 */
export type SplitName = 'train' | 'val' | 'test' | 'val2' | 'val3' | 'val4';

/** Every split name `--split` accepts, in the order help texts list them. */
export const SPLIT_NAMES: readonly SplitName[] = ['test', 'val', 'train', 'val2', 'val3', 'val4'];

/** The seed suffix of the plan `val2` is drawn from (never a seed of train/val/test); `val3` and `val4` take theirs the same way. */
export const SECOND_VALIDATION_SEED_SUFFIX = ':val2';

/** The fresh validation splits, each drawn from its own plan (`<recipe seed>:<split>`). */
const FRESH_SPLITS: readonly SplitName[] = ['val2', 'val3', 'val4'];

/** The recipe's plan for a split (for a fresh split, its own plan) and the sessions of the selection, in plan order. */
export function splitSessions(sim: SimModule, recipe: DatasetRecipe, selection: Omit<SplitSelection, 'sim'>): ReturnType<SimModule['planDataset']>['sessions'] {
  const fresh = FRESH_SPLITS.includes(selection.split);
  const seed = fresh ? `${String(recipe.seed)}:${selection.split}` : recipe.seed;
  const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed, ranges: recipe.ranges });
  const split = fresh ? 'test' : selection.split;
  return plan.sessions.filter((s) => s.split === split).slice(0, selection.maxSessions ?? Infinity);
}

/** Which sessions of a split to simulate. */
export interface SplitSelection {
  split: SplitName;
  /** Only the first n sessions of the split (in plan order). */
  maxSessions?: number;
  /** Simulate at most this many seconds per session. */
  maxSeconds?: number;
  /** The simulator module to use (default: import @wiflow/plugin-sim). */
  sim?: SimModule;
}

/** What a split holds. */
export interface SplitInfo {
  rooms: string[];
  sessions: number;
}

/**
 * Simulate the sessions of one split of a recipe's dataset and yield pose samples: each
 * link's frames go through @wiflow/plugin-csi's signal chain (the one `csi.signal-chain`
 * runs in flows) into windows; when every link of the room has a
 * window ending at the same tick, that tick's ground truth labels the sample. Rooms are split
 * by the simulator's plan, so test rooms never appear in training.
 */
export async function* simulateSplit(recipe: DatasetRecipe, selection: SplitSelection, onSession?: (done: number, total: number, sessionId: string) => void): AsyncGenerator<PoseSample & { sessionId: string }> {
  const sim = await loadSim(selection.sim);
  const sessions = splitSessions(sim, recipe, selection);
  let done = 0;
  for (const session of sessions) {
    onSession?.(done, sessions.length, session.sessionId);
    const environment: EnvironmentGeometry = environmentFromScenario(session.scenario);
    const simulator = new sim.Simulator(session.scenario);
    const chain = new SignalChain(signalChainOptions(recipe, environment.id));
    const ready = new Map<string, CsiWindow>();
    const seconds = Math.min(recipe.secondsPerSession, selection.maxSeconds ?? Infinity);
    for (const tick of simulator.run(seconds)) {
      for (const frame of tick.frames) {
        for (const window of chain.push(frame)) ready.set(`${frame.link.tx}->${frame.link.rx}`, window);
      }
      if (ready.size === environment.links.length) {
        const windows = environment.links.map((l) => ready.get(`${l.tx}->${l.rx}`)!);
        ready.clear();
        yield { sessionId: session.sessionId, environment, windows, truth: tick.truth.persons };
      }
    }
    done++;
    onSession?.(done, sessions.length, session.sessionId);
  }
}

/** Rooms and session counts per split of a recipe (cheap: nothing is simulated). */
export async function describeSplits(recipe: DatasetRecipe, given?: SimModule): Promise<Record<'train' | 'val' | 'test', SplitInfo>> {
  const sim = await loadSim(given);
  const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
  const info = (split: 'train' | 'val' | 'test') => ({ rooms: plan.splits[split], sessions: plan.sessions.filter((s) => s.split === split).length });
  return { train: info('train'), val: info('val'), test: info('test') };
}
