// Storage benchmark: ingest of pose person records per second through the batched writer,
// and p50/p99 of history page queries over 1,000,000 stored records, with baselines measured
// in the same run. Usage: node dist/bench/storage-bench.js [--records N] [--queries N] [--dir D] [--json]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { type PoseFrame } from '@wiflow/core';
import { checkPoseFrame } from '@wiflow/storage-kit';
import { encodePerson } from '../person-codec.js';
import type { SqlitePoseRepository } from '../repositories/pose-repository.js';
import { migrate } from '../schema.js';
import { SqliteStorage } from '../sqlite-storage.js';
import { syntheticFrame } from '../tools/synthetic-frames.js';
import { WriteBatchBuilder } from '../writer/write-statements.js';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const RECORDS = option('records', 1_000_000);
const QUERIES = option('queries', 400);
const PERSONS = 2;
const FRAMES = Math.ceil(RECORDS / PERSONS);
const dirArg = process.argv.indexOf('--dir');
const dir = dirArg >= 0 ? process.argv[dirArg + 1]! : mkdtempSync(path.join(tmpdir(), 'wiflow-storage-bench-'));
const START = Date.UTC(2026, 0, 1);
const ENV = 'bench';

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Deterministic pseudo-random numbers, so every run asks the same queries. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Wall and CPU seconds spent storing, excluding the time spent making the synthetic frames. */
interface StoreTiming {
  wall: number;
  cpu: number;
}

/** Time a section, wall and CPU. */
function timed<T>(timing: StoreTiming, run: () => T): T {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  const result = run();
  const used = process.cpuUsage(cpu);
  timing.wall += (performance.now() - wall) / 1000;
  timing.cpu += (used.user + used.system) / 1e6;
  return result;
}

/**
 * The frames to ingest: 3,000 distinct synthetic frames made before timing, reused with their
 * own timestamp, frame id and track ids (a shallow copy each, well under a microsecond), so
 * the timed loop measures storing, not making frames. The writer thread works while the loop
 * runs, so storing is timed end to end (wall and whole-process CPU, both threads).
 */
const POOL = 3000;
let pool: PoseFrame[] = [];
function frameAt(i: number): PoseFrame {
  const template = pool[i % POOL]!;
  const trackBase = 1 + Math.floor(i / 3000) * 10;
  return { ...template, timestamp: START + i * 100, frameId: i, persons: template.persons.map((p, k) => ({ ...p, trackId: trackBase + k })) };
}

async function ingestWiflow(file: string): Promise<{ store: StoreTiming; making: StoreTiming; bytes: number }> {
  pool = Array.from({ length: POOL }, (_, i) => syntheticFrame(i, START, ENV, PERSONS));
  // What making the frames alone costs (the same loop without storing), to show it is negligible.
  const making: StoreTiming = { wall: 0, cpu: 0 };
  timed(making, () => {
    for (let f = 0; f < FRAMES; f++) frameAt(f);
  });
  const storage = new SqliteStorage({ file, retentionIntervalMs: 0, privacy: () => ({ dataRetentionDays: 3650, anonymizeData: false, enableEncryption: false }) });
  await storage.open();
  const wall = performance.now();
  const cpu = process.cpuUsage();
  let lastReport = performance.now();
  for (let f = 0; f < FRAMES; f += 100) {
    const frames: PoseFrame[] = [];
    for (let i = f; i < Math.min(FRAMES, f + 100); i++) frames.push(frameAt(i));
    void storage.poses.append(frames);
    // Yield like a live pipeline does, so the buffer's timer and size triggers run and the writer's answers arrive.
    if (f % 1000 === 900) await new Promise((resolve) => setImmediate(resolve));
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      log(`  ingest: ${((f * PERSONS) / 1e6).toFixed(2)}M records, ${Math.round((f * PERSONS * 1000) / (performance.now() - wall))}/s`);
    }
  }
  await storage.flush();
  const used = process.cpuUsage(cpu);
  const store: StoreTiming = { wall: (performance.now() - wall) / 1000, cpu: (used.user + used.system) / 1e6 };
  await storage.close();
  return { store, making, bytes: statSync(file).size };
}

/**
 * The appending thread's share: validating, encoding and posting (serialising) the same
 * frames, with no writer listening. Whole-process CPU of the real run minus this is the
 * writer thread's share; the larger of the two bounds the rate two idle cores could reach.
 */
async function appendingThreadCpu(file: string): Promise<number> {
  const storage = new SqliteStorage({ file, retentionIntervalMs: 0 });
  await storage.open();
  const poses = storage.poses as unknown as SqlitePoseRepository;
  const channel = new MessageChannel();
  const timing: StoreTiming = { wall: 0, cpu: 0 };
  timed(timing, () => {
    for (let f = 0; f < FRAMES; f += 5000) {
      const builder = new WriteBatchBuilder();
      const frames: PoseFrame[] = [];
      for (let i = f; i < Math.min(FRAMES, f + 5000); i++) {
        const frame = frameAt(i);
        checkPoseFrame(frame);
        frames.push(frame);
      }
      poses.encode(frames, builder);
      channel.port1.postMessage(builder.batch, builder.buffers);
    }
  });
  channel.port1.close();
  await storage.close();
  return timing.cpu;
}

/** Baseline A: raw better-sqlite3, same schema and row layout, one prepared insert on this thread, one transaction, person rows only. */
function ingestRawOneTransaction(file: string, records: number): StoreTiming {
  const db = new BetterSqlite3(file);
  db.pragma('page_size = 16384');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  migrate(db);
  const insert = db.prepare('INSERT INTO pose_persons (environment_id, ts, seq, frame_seq, frame_id, person_id, track_id, confidence, activity, track_status, x, y, cx, cy, body, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const frames = Math.ceil(records / PERSONS);
  const timing: StoreTiming = { wall: 0, cpu: 0 };
  let seq = 1;
  db.exec('BEGIN');
  for (let f = 0; f < frames; f += 1000) {
    const chunk: ReturnType<typeof syntheticFrame>[] = [];
    for (let i = f; i < Math.min(frames, f + 1000); i++) chunk.push(syntheticFrame(i, START, ENV, PERSONS));
    timed(timing, () => {
      for (const frame of chunk) {
        for (const person of frame.persons) {
          const p = encodePerson(person);
          insert.run(ENV, frame.timestamp, seq++, frame.frameId + 1, frame.frameId, p.personId, p.trackId, p.confidence, p.activity, p.trackStatus, p.x, p.y, p.cx, p.cy, p.body, p.extra);
        }
      }
    });
  }
  timed(timing, () => db.exec('COMMIT'));
  db.close();
  return timing;
}

/** Baseline B: the naive way, one JSON row per person and one transaction (commit) per frame. */
function ingestNaivePerFrame(file: string, records: number): StoreTiming {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE persons (id INTEGER PRIMARY KEY, environment_id TEXT, ts INTEGER, body TEXT); CREATE INDEX persons_env_ts ON persons (environment_id, ts)');
  const insert = db.prepare('INSERT INTO persons (environment_id, ts, body) VALUES (?, ?, ?)');
  const frames = Math.ceil(records / PERSONS);
  const timing: StoreTiming = { wall: 0, cpu: 0 };
  for (let f = 0; f < frames; f++) {
    const frame = syntheticFrame(f, START, ENV, PERSONS);
    timed(timing, () =>
      db.transaction(() => {
        for (const person of frame.persons) insert.run(ENV, frame.timestamp, JSON.stringify(person));
      })(),
    );
  }
  db.close();
  return timing;
}

async function timeQueries(name: string, count: number, run: (random: () => number) => Promise<unknown> | unknown): Promise<{ name: string; p50: number; p99: number; max: number }> {
  const random = rng(42);
  for (let i = 0; i < 20; i++) await run(random); // warm the page cache and statement cache
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    await run(random);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { name, p50: percentile(times, 50), p99: percentile(times, 99), max: times[times.length - 1]! };
}

async function main(): Promise<void> {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  log(`storage bench: ${RECORDS} person records (${FRAMES} frames x ${PERSONS}), ${QUERIES} queries each, in ${dir}`);
  log(`machine: ${cpus().length} cores (${cpu}), Node ${process.version}, load average before: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const file = path.join(dir, 'bench.db');
  if (process.argv.includes('--queries-only')) {
    // Re-run the query half against a database an earlier run left in --dir.
    await runQueries(file, statSync(file).size, []);
    return;
  }
  const ingest = await ingestWiflow(file);
  const wiflowRate = RECORDS / ingest.store.wall;
  const wiflowCpuRate = RECORDS / ingest.store.cpu;
  log(`  wiflow batched writer: ${Math.round(wiflowRate)} records/s wall, ${Math.round(wiflowCpuRate)} records per CPU-second (${ingest.store.wall.toFixed(1)} s wall, ${ingest.store.cpu.toFixed(1)} CPU-s over both threads; making the frames alone: ${ingest.making.wall.toFixed(2)} s; file ${(ingest.bytes / 1e6).toFixed(0)} MB)`);
  const appending = await appendingThreadCpu(path.join(dir, 'encode-only.db'));
  const writing = Math.max(0, ingest.store.cpu - appending);
  const projected = RECORDS / Math.max(appending, writing);
  log(`  per thread: appending (validate, encode, post) ${appending.toFixed(1)} CPU-s = ${((appending / RECORDS) * 1e6).toFixed(1)} µs a record; writer (rest of the run's CPU) ${writing.toFixed(1)} CPU-s = ${((writing / RECORDS) * 1e6).toFixed(1)} µs a record; two idle cores could reach at most ${Math.round(projected)} records/s`);
  const baselineRecords = Math.min(RECORDS, 200_000);
  const raw = ingestRawOneTransaction(path.join(dir, 'raw.db'), baselineRecords);
  const rawRate = baselineRecords / raw.wall;
  const rawCpuRate = baselineRecords / raw.cpu;
  log(`  baseline raw prepared insert, one transaction (${baselineRecords} records): ${Math.round(rawRate)} records/s wall, ${Math.round(rawCpuRate)} per CPU-second`);
  const naiveRecords = Math.min(RECORDS, 4_000);
  const naive = ingestNaivePerFrame(path.join(dir, 'naive.db'), naiveRecords);
  const naiveRate = naiveRecords / naive.wall;
  const naiveCpuRate = naiveRecords / naive.cpu;
  log(`  baseline naive JSON rows, one commit per frame (${naiveRecords} records): ${Math.round(naiveRate)} records/s wall, ${Math.round(naiveCpuRate)} per CPU-second`);
  await runQueries(file, ingest.bytes, [
    `| **wiflow ingest**, append → encode → writer thread (${RECORDS.toLocaleString('en')} records, flush included) | ${Math.round(wiflowRate).toLocaleString('en')} records/s wall; ${Math.round(wiflowCpuRate).toLocaleString('en')} records per CPU-second (both threads) |`,
    `| of which the appending thread (validate, encode, post; measured alone) | ${((appending / RECORDS) * 1e6).toFixed(1)} µs CPU a record; the writer thread (the rest) ${((writing / RECORDS) * 1e6).toFixed(1)} µs a record → at most ${Math.round(projected).toLocaleString('en')} records/s on two idle cores |`,
    `| baseline: raw prepared insert, same schema, one transaction (${baselineRecords.toLocaleString('en')} records) | ${Math.round(rawRate).toLocaleString('en')} records/s wall; ${Math.round(rawCpuRate).toLocaleString('en')} records per CPU-second |`,
    `| baseline: naive JSON rows, one commit per frame (${naiveRecords.toLocaleString('en')} records) | ${Math.round(naiveRate).toLocaleString('en')} records/s wall; ${Math.round(naiveCpuRate).toLocaleString('en')} records per CPU-second |`,
  ]);
  if (process.argv.includes('--json')) console.log(JSON.stringify({ records: RECORDS, wiflowRate, wiflowCpuRate, rawRate, rawCpuRate, naiveRate, naiveCpuRate, bytes: ingest.bytes }));
  if (dirArg < 0) rmSync(dir, { recursive: true, force: true });
}

async function runQueries(file: string, bytes: number, ingestLines: string[]): Promise<void> {

  const storage = new SqliteStorage({ file, retentionIntervalMs: 0, privacy: () => ({ dataRetentionDays: 3650, anonymizeData: false, enableEncryption: false }) });
  await storage.open();
  const span = FRAMES * 100;
  const hour = 3_600_000;
  const window = () => {
    const random = rng(7);
    return () => {
      const start = START + Math.floor(random() * Math.max(1, span - hour));
      return { start, end: start + hour };
    };
  };
  const next = window();
  const results = [];
  results.push(await timeQueries('history page, page/per_page (1 h window, per_page 50, page 1-20, with total)', QUERIES, async (random) => {
    const range = next();
    return storage.poses.findRecords({ environmentId: ENV, ...range }, { page: 1 + Math.floor(random() * 20), perPage: 50 });
  }));
  let cursor: string | null = null;
  let cursorRange = next();
  results.push(await timeQueries('history page, cursor (1 h window, limit 100, with total)', QUERIES, async () => {
    if (!cursor) cursorRange = next();
    const page = await storage.poses.scanRecords({ environmentId: ENV, ...cursorRange }, { limit: 100, cursor });
    cursor = page.nextCursor;
  }));
  results.push(await timeQueries('history page, frames with persons (1 h window, per_page 50)', QUERIES, async (random) => {
    const range = next();
    return storage.poses.findFrames({ environmentId: ENV, ...range }, { page: 1 + Math.floor(random() * 5), perPage: 50 });
  }));
  results.push(await timeQueries('history page filtered by track + min confidence (1 h window, a track seen in it)', QUERIES, async () => {
    const range = next();
    // The synthetic track of person 0 changes every 3000 frames: ask for the one at the window's start.
    const trackId = 1 + Math.floor((range.start - START) / 100 / 3000) * 10;
    return storage.poses.findRecords({ environmentId: ENV, ...range, trackId, minConfidence: 0.7 }, { page: 1, perPage: 50 });
  }));
  const db = storage.database;
  const rawPage = db.prepare('SELECT seq, ts, person_id, track_id, confidence, body, extra FROM pose_persons WHERE environment_id = ? AND ts >= ? AND ts <= ? ORDER BY ts, seq LIMIT 50 OFFSET ?');
  results.push(await timeQueries('baseline: raw SQL page, same index, no total, no decoding', QUERIES, (random) => {
    const range = next();
    return rawPage.all(ENV, range.start, range.end, Math.floor(random() * 20) * 50);
  }));
  results.push(await timeQueries('aggregate hourly summary over 6 h (POST /pose/query)', Math.min(QUERIES, 40), () => {
    const range = next();
    return storage.poses.aggregate({ environmentId: ENV, start: range.start, end: range.start + 6 * hour });
  }));
  await storage.close();
  log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);

  const lines = [
    `| measure | result |`,
    `|---|---|`,
    ...ingestLines,
    ...results.map((r) => `| ${r.name} | p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(1)} ms |`),
    `| database file | ${(bytes / 1e6).toFixed(0)} MB for ${RECORDS.toLocaleString('en')} records |`,
  ];
  console.log(lines.join('\n'));
  if (process.argv.includes('--json')) console.log(JSON.stringify({ results }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
