import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SimErrors } from '../errors.js';
import { Simulator, type SimTick, type SimulatorOptions } from '../engine/simulator.js';
import { hashString, Prng } from '../random/prng.js';
import { openRecordingSink, type RecordingFormat } from '../recording/recording-sink.js';
import { DEFAULT_RANDOM_RANGES, randomRoom, randomScenario, type RandomRanges, type RandomRoom } from '../scenario/randomise.js';
import type { Scenario } from '../scenario/schema.js';

/** Dataset split of a room. */
export type DatasetSplit = 'train' | 'val' | 'test';

/** How to generate a dataset. */
export interface DatasetOptions {
  /** Number of distinct rooms (geometry, materials, clutter, radio placements). */
  rooms: number;
  /** Simulated seconds per session. */
  secondsPerSession: number;
  /** Sessions (different people and scripts) per room; default 1. */
  sessionsPerRoom?: number;
  seed: number | string;
  /** Fractions of rooms per split; default 0.7 / 0.15 / 0.15. */
  split?: { train: number; val: number; test: number };
  /** Ranges the rooms and people are drawn from. */
  ranges?: Partial<RandomRanges>;
  /** Impairment override for every session ('off' for clean channels). */
  impairments?: SimulatorOptions['impairments'];
}

/** One session of the dataset: a room, a split, and a scenario to run. */
export interface DatasetSession {
  /** `<roomId>-s<k>`. */
  sessionId: string;
  roomId: string;
  split: DatasetSplit;
  session: number;
  /** Hash of what makes the room a room (geometry, materials, clutter, radios, hardware). */
  roomSignature: string;
  scenario: Scenario;
}

/** A session ready to run: its simulator and a generator over its ticks. */
export interface DatasetSample extends DatasetSession {
  simulator: Simulator;
  /** Every tick of the session (frames of every link, with ground truth). */
  ticks(): Generator<SimTick>;
}

/** What `planDataset` decides: rooms per split and every session. */
export interface DatasetPlan {
  seed: number | string;
  rooms: number;
  secondsPerSession: number;
  sessionsPerRoom: number;
  splits: Record<DatasetSplit, string[]>;
  sessions: DatasetSession[];
}

/** Manifest written beside a dataset on disk. */
export interface DatasetManifest {
  format: 'wiflow-sim-dataset';
  version: 1;
  generator: '@wiflow/plugin-sim';
  seed: number | string;
  rooms: number;
  secondsPerSession: number;
  sessionsPerRoom: number;
  rateHz: number;
  /** Room ids per split; a room appears in exactly one split. */
  splits: Record<DatasetSplit, string[]>;
  sessions: {
    sessionId: string;
    roomId: string;
    split: DatasetSplit;
    roomSignature: string;
    /** Recording (relative to the manifest), scenario file, frames written, recording format. */
    recording: string;
    scenario: string;
    frames: number;
    format: 'wfr' | 'jsonl';
  }[];
}

/** Signature of a room: everything fixed about it, hashed. Rooms with equal signatures are the same room. */
export function roomSignature(room: Omit<RandomRoom, 'roomId'> | Scenario): string {
  const fixed = { room: room.room, clutter: room.clutter, radios: room.radios, channel: room.channel };
  const text = JSON.stringify(fixed);
  return `${hashString(text).toString(16).padStart(8, '0')}${hashString(`salt:${text}`).toString(16).padStart(8, '0')}`;
}

function validate(options: DatasetOptions): Required<Pick<DatasetOptions, 'sessionsPerRoom' | 'split'>> {
  if (!Number.isInteger(options.rooms) || options.rooms < 1) throw SimErrors.datasetInvalid(`rooms must be a positive integer, got ${options.rooms}`);
  if (!(options.secondsPerSession > 0) || !Number.isFinite(options.secondsPerSession)) throw SimErrors.datasetInvalid(`secondsPerSession must be positive, got ${options.secondsPerSession}`);
  const sessionsPerRoom = options.sessionsPerRoom ?? 1;
  if (!Number.isInteger(sessionsPerRoom) || sessionsPerRoom < 1) throw SimErrors.datasetInvalid(`sessionsPerRoom must be a positive integer, got ${sessionsPerRoom}`);
  const split = options.split ?? { train: 0.7, val: 0.15, test: 0.15 };
  const total = split.train + split.val + split.test;
  if (![split.train, split.val, split.test].every((v) => Number.isFinite(v) && v >= 0) || !(total > 0)) throw SimErrors.datasetInvalid('split fractions must be non-negative and not all zero');
  return { sessionsPerRoom, split: { train: split.train / total, val: split.val / total, test: split.test / total } };
}

/**
 * Decide the dataset: draw every room, assign whole rooms to splits (so a test room's geometry,
 * materials and radio placements never appear in training), and draw each session's people.
 * Cheap (no channel is computed); deterministic for the seed.
 */
export function planDataset(options: DatasetOptions): DatasetPlan {
  const { sessionsPerRoom, split } = validate(options);
  const ranges = { ...DEFAULT_RANDOM_RANGES, ...(options.ranges ?? {}) };
  const prng = new Prng(`dataset:${options.seed}`);
  const n = options.rooms;
  // Whole rooms go to splits; with 3+ rooms every split with a non-zero share gets at least one.
  let nTest = Math.round(n * split.test);
  let nVal = Math.round(n * split.val);
  if (n >= 3) {
    if (split.test > 0) nTest = Math.max(1, nTest);
    if (split.val > 0) nVal = Math.max(1, nVal);
  }
  while (nTest + nVal > n - (split.train > 0 ? 1 : 0) && nTest + nVal > 0) {
    if (nVal >= nTest && nVal > 0) nVal--;
    else nTest--;
  }
  const order = prng.fork('split').shuffle(Array.from({ length: n }, (_, i) => i));
  const splitOf = new Map<number, DatasetSplit>();
  order.forEach((room, rank) => splitOf.set(room, rank < nTest ? 'test' : rank < nTest + nVal ? 'val' : 'train'));
  const splits: Record<DatasetSplit, string[]> = { train: [], val: [], test: [] };
  const sessions: DatasetSession[] = [];
  const seen = new Map<string, string>();
  for (let i = 0; i < n; i++) {
    const roomPrng = prng.fork(`room:${i}`);
    let room = randomRoom(roomPrng, ranges, '');
    let signature = roomSignature(room);
    // A repeated draw (vanishingly unlikely) is redrawn so that no room sits in two splits.
    for (let attempt = 0; seen.has(signature) && attempt < 8; attempt++) {
      room = randomRoom(roomPrng, ranges, '');
      signature = roomSignature(room);
    }
    const roomId = `room-${String(i).padStart(4, '0')}-${signature.slice(0, 8)}`;
    seen.set(signature, roomId);
    room = { ...room, roomId };
    const s = splitOf.get(i)!;
    splits[s].push(roomId);
    for (let k = 0; k < sessionsPerRoom; k++) {
      const scenario = randomScenario({ seed: `${options.seed}:${i}:${k}`, durationS: options.secondsPerSession, ranges, room });
      sessions.push({ sessionId: `${roomId}-s${k}`, roomId, split: s, session: k, roomSignature: signature, scenario });
    }
  }
  return { seed: options.seed, rooms: n, secondsPerSession: options.secondsPerSession, sessionsPerRoom, splits, sessions };
}

/**
 * Generate a dataset in memory: for each session (room by room), a simulator and a generator
 * over its ticks. Nothing is computed until a session's ticks are pulled, so a model can
 * stream windows straight from the simulator.
 *
 * ```ts
 * for (const session of generateDataset({ rooms: 20, secondsPerSession: 30, seed: 1 })) {
 *   if (session.split !== 'train') continue;
 *   for (const tick of session.ticks()) use(tick.frames, tick.truth);
 * }
 * ```
 */
export function* generateDataset(options: DatasetOptions, plan: DatasetPlan = planDataset(options)): Generator<DatasetSample> {
  for (const session of plan.sessions) {
    const simulator = new Simulator(session.scenario, { impairments: options.impairments });
    yield { ...session, simulator, ticks: () => simulator.run(options.secondsPerSession) };
  }
}

/** Progress of `writeDataset`. */
export interface DatasetProgress {
  /** Ticks done and total over the whole dataset. */
  ticks: number;
  /** Ticks per simulated second. */
  rateHz: number;
  totalTicks: number;
  session: string;
}

/**
 * Generate a dataset to a directory: `<dir>/<split>/<sessionId>.wfr` (plugin-csi recordings
 * with ground truth, or `.jsonl`), `<sessionId>.scenario.json`
 * beside each, and `<dir>/manifest.json` with the room ids of each split.
 */
export async function writeDataset(dir: string, options: DatasetOptions & { format?: RecordingFormat }, onProgress?: (p: DatasetProgress) => void): Promise<DatasetManifest> {
  const plan = planDataset(options);
  const rate = plan.sessions[0]?.scenario.channel.rateHz ?? 100;
  const ticksPerSession = Math.round(options.secondsPerSession * rate);
  const totalTicks = ticksPerSession * plan.sessions.length;
  const manifest: DatasetManifest = {
    format: 'wiflow-sim-dataset',
    version: 1,
    generator: '@wiflow/plugin-sim',
    seed: plan.seed,
    rooms: plan.rooms,
    secondsPerSession: plan.secondsPerSession,
    sessionsPerRoom: plan.sessionsPerRoom,
    rateHz: rate,
    splits: plan.splits,
    sessions: [],
  };
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw SimErrors.outputUnwritable(dir, (error as Error).message);
  }
  const format = options.format ?? 'wfr';
  let done = 0;
  for (const sample of generateDataset(options, plan)) {
    const splitDir = path.join(dir, sample.split);
    await mkdir(splitDir, { recursive: true });
    const recording = path.join(sample.split, `${sample.sessionId}.${format}`);
    const sink = await openRecordingSink(path.join(dir, recording), { source: '@wiflow/plugin-sim', dataset: true, sessionId: sample.sessionId, roomId: sample.roomId, split: sample.split, environmentId: sample.scenario.environmentId }, format);
    try {
      for (const tick of sample.ticks()) {
        for (const frame of tick.frames) await sink.write(frame);
        done++;
        if (onProgress && done % 50 === 0) onProgress({ ticks: done, rateHz: rate, totalTicks, session: sample.sessionId });
      }
    } finally {
      await sink.close();
    }
    const scenarioFile = path.join(sample.split, `${sample.sessionId}.scenario.json`);
    await writeFile(path.join(dir, scenarioFile), JSON.stringify(sample.scenario, null, 2));
    manifest.sessions.push({ sessionId: sample.sessionId, roomId: sample.roomId, split: sample.split, roomSignature: sample.roomSignature, recording, scenario: scenarioFile, frames: sink.frames, format: sink.format });
    onProgress?.({ ticks: done, rateHz: rate, totalTicks, session: sample.sessionId });
  }
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}
