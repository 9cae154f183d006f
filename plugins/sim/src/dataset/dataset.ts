import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { SimErrors } from '../errors.js';
import { Simulator, type SimTick, type SimulatorOptions } from '../engine/simulator.js';
import { hashString, Prng } from '../random/prng.js';
import type { RecordingFormat } from '../recording/recording-sink.js';
import { writeSession, type SessionJob, type SessionResult } from './session-writer.js';
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

/** How `writeDataset` runs: worker threads (default: one per core, at most one per session). */
export interface DatasetWriteOptions {
  format?: RecordingFormat;
  /** Worker threads; 1 writes in this thread. The files are the same bytes whatever the count. */
  threads?: number;
}

/**
 * Generate a dataset to a directory: `<dir>/<split>/<sessionId>.wfr` (plugin-csi recordings
 * with ground truth, or `.jsonl`), `<sessionId>.scenario.json` beside each, and
 * `<dir>/manifest.json` with the room ids of each split. Sessions are spread over worker
 * threads (every core by default); each depends only on its own scenario and seed, and the
 * manifest lists them in plan order, so a seed gives the same bytes with 1 or N threads.
 */
export async function writeDataset(dir: string, options: DatasetOptions & DatasetWriteOptions, onProgress?: (p: DatasetProgress) => void): Promise<DatasetManifest> {
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
    for (const split of ['train', 'val', 'test'] as const) if (plan.splits[split].length) await mkdir(path.join(dir, split), { recursive: true });
  } catch (error) {
    throw SimErrors.outputUnwritable(dir, (error as Error).message);
  }
  const format = options.format ?? 'wfr';
  const jobs: SessionJob[] = plan.sessions.map((s, index) => ({ index, dir, split: s.split, sessionId: s.sessionId, roomId: s.roomId, scenario: s.scenario, secondsPerSession: options.secondsPerSession, impairments: options.impairments, format }));
  const threads = Math.max(1, Math.min(options.threads ?? os.availableParallelism(), jobs.length));
  let done = 0;
  let reported = 0;
  const progress = (ticks: number, session: string) => {
    done += ticks;
    if (onProgress && (done - reported >= 50 || done === totalTicks)) {
      reported = done;
      onProgress({ ticks: done, rateHz: rate, totalTicks, session });
    }
  };
  const results = threads === 1 ? await writeHere(jobs, progress) : await writeInWorkers(jobs, threads, progress);
  for (const r of results) {
    const s = plan.sessions[r.index];
    manifest.sessions.push({ sessionId: s.sessionId, roomId: s.roomId, split: s.split, roomSignature: s.roomSignature, recording: r.recording, scenario: r.scenario, frames: r.frames, format: r.format });
  }
  await writeFile(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

async function writeHere(jobs: SessionJob[], progress: (ticks: number, session: string) => void): Promise<SessionResult[]> {
  const out: SessionResult[] = [];
  for (const job of jobs) out.push(await writeSession(job, (ticks) => progress(ticks, job.sessionId)));
  return out;
}

/** The compiled worker entry (tests run the sources: they use the build's worker, so build first). */
function workerEntry(): URL {
  const beside = new URL('./dataset-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(beside))) return beside;
  return new URL('../../dist/dataset/dataset-worker.js', import.meta.url);
}

/** Hand the jobs to `threads` workers, one at a time each; results come back in plan order. */
function writeInWorkers(jobs: SessionJob[], threads: number, progress: (ticks: number, session: string) => void): Promise<SessionResult[]> {
  return new Promise((resolve, reject) => {
    const results: SessionResult[] = new Array(jobs.length);
    let next = 0;
    let finished = 0;
    let failed = false;
    const workers: Worker[] = [];
    const stopAll = () => Promise.all(workers.map((w) => w.terminate()));
    const feed = (worker: Worker, current: { job: SessionJob | null }) => {
      if (next >= jobs.length) {
        current.job = null;
        return;
      }
      current.job = jobs[next++];
      worker.postMessage(current.job);
    };
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(workerEntry());
      workers.push(worker);
      const current: { job: SessionJob | null } = { job: null };
      worker.on('message', (message: { type: 'ticks'; ticks: number } | { type: 'done'; result: SessionResult } | { type: 'error'; index: number; message: string }) => {
        if (failed) return;
        if (message.type === 'ticks') progress(message.ticks, current.job?.sessionId ?? '');
        else if (message.type === 'error') {
          failed = true;
          void stopAll();
          reject(SimErrors.outputUnwritable(path.join(jobs[message.index].dir, jobs[message.index].split), message.message));
        } else {
          results[message.result.index] = message.result;
          if (++finished === jobs.length) void stopAll().then(() => resolve(results));
          else feed(worker, current);
        }
      });
      worker.on('error', (error) => {
        if (failed) return;
        failed = true;
        void stopAll();
        reject(error);
      });
      feed(worker, current);
    }
  });
}
