// Storage benchmark: ingest of pose person records per second through the batched writer,
// and p50/p99 of history page queries over 1,000,000 stored records, with baselines measured
// in the same run. Usage: node dist/bench/storage-bench.js [--records N] [--queries N] [--dir D] [--json]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { encodePerson } from '../person-codec.js';
import { MIGRATIONS } from '../schema.js';
import { SqliteStorage } from '../sqlite-storage.js';
import { syntheticFrame } from '../tools/synthetic-frames.js';

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

async function ingestWiflow(file: string): Promise<{ seconds: number; bytes: number }> {
  const storage = new SqliteStorage({ file, retentionIntervalMs: 0, privacy: () => ({ dataRetentionDays: 3650, anonymizeData: false, enableEncryption: false }) });
  await storage.open();
  const started = performance.now();
  let lastReport = started;
  for (let f = 0; f < FRAMES; f += 100) {
    const frames = [];
    for (let i = f; i < Math.min(FRAMES, f + 100); i++) frames.push(syntheticFrame(i, START, ENV, PERSONS));
    await storage.poses.append(frames);
    // Yield like a live pipeline does, so the buffer's timer and size triggers work as in production.
    if (f % 1000 === 0) await new Promise((resolve) => setImmediate(resolve));
    if (performance.now() - lastReport > 5000) {
      lastReport = performance.now();
      log(`  ingest: ${((f * PERSONS) / 1e6).toFixed(2)}M records, ${Math.round((f * PERSONS) / ((lastReport - started) / 1000))}/s`);
    }
  }
  await storage.flush();
  const seconds = (performance.now() - started) / 1000;
  await storage.close();
  return { seconds, bytes: statSync(file).size };
}

/** Baseline A: raw better-sqlite3, same schema, pre-built rows, one prepared insert, one transaction. */
function ingestRawOneTransaction(file: string, records: number): number {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(MIGRATIONS[0]!.up);
  const insert = db.prepare('INSERT INTO pose_persons (seq, frame_seq, environment_id, ts, frame_id, person_id, track_id, confidence, activity, track_status, x, y, cx, cy, keypoints, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const frames = Math.ceil(records / PERSONS);
  const started = performance.now();
  let seq = 1;
  db.transaction(() => {
    for (let f = 0; f < frames; f++) {
      const frame = syntheticFrame(f, START, ENV, PERSONS);
      for (const person of frame.persons) {
        const p = encodePerson(person);
        insert.run(seq++, f + 1, ENV, frame.timestamp, f, p.personId, p.trackId, p.confidence, p.activity, p.trackStatus, p.x, p.y, p.cx, p.cy, p.keypoints, p.extra);
      }
    }
  })();
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return (frames * PERSONS) / seconds;
}

/** Baseline B: the naive way, one JSON row per person and one transaction (commit) per frame. */
function ingestNaivePerFrame(file: string, records: number): number {
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE persons (id INTEGER PRIMARY KEY, environment_id TEXT, ts INTEGER, body TEXT); CREATE INDEX persons_env_ts ON persons (environment_id, ts)');
  const insert = db.prepare('INSERT INTO persons (environment_id, ts, body) VALUES (?, ?, ?)');
  const frames = Math.ceil(records / PERSONS);
  const started = performance.now();
  for (let f = 0; f < frames; f++) {
    const frame = syntheticFrame(f, START, ENV, PERSONS);
    db.transaction(() => {
      for (const person of frame.persons) insert.run(ENV, frame.timestamp, JSON.stringify(person));
    })();
  }
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return (frames * PERSONS) / seconds;
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
  const ingest = await ingestWiflow(file);
  const wiflowRate = RECORDS / ingest.seconds;
  log(`  wiflow batched writer: ${Math.round(wiflowRate)} records/s (${ingest.seconds.toFixed(1)} s, file ${(ingest.bytes / 1e6).toFixed(0)} MB)`);
  const baselineRecords = Math.min(RECORDS, 200_000);
  const rawRate = ingestRawOneTransaction(path.join(dir, 'raw.db'), baselineRecords);
  log(`  baseline raw prepared insert, one transaction (${baselineRecords} records): ${Math.round(rawRate)} records/s`);
  const naiveRecords = Math.min(RECORDS, 4_000);
  const naiveRate = ingestNaivePerFrame(path.join(dir, 'naive.db'), naiveRecords);
  log(`  baseline naive JSON rows, one commit per frame (${naiveRecords} records): ${Math.round(naiveRate)} records/s`);

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
  results.push(await timeQueries('history page filtered by track + min confidence (1 h window)', QUERIES, async () => {
    const range = next();
    return storage.poses.findRecords({ environmentId: ENV, ...range, trackId: 1, minConfidence: 0.7 }, { page: 1, perPage: 50 });
  }));
  const db = storage.database;
  const rawPage = db.prepare('SELECT seq, ts, person_id, track_id, confidence, keypoints, extra FROM pose_persons WHERE environment_id = ? AND ts >= ? AND ts <= ? ORDER BY ts, seq LIMIT 50 OFFSET ?');
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
    `| wiflow ingest, batched writer (${RECORDS.toLocaleString('en')} records) | ${Math.round(wiflowRate).toLocaleString('en')} records/s |`,
    `| baseline: raw prepared insert, one transaction (${baselineRecords.toLocaleString('en')} records) | ${Math.round(rawRate).toLocaleString('en')} records/s |`,
    `| baseline: naive JSON rows, one commit per frame (${naiveRecords.toLocaleString('en')} records) | ${Math.round(naiveRate).toLocaleString('en')} records/s |`,
    ...results.map((r) => `| ${r.name} | p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(1)} ms |`),
    `| database file | ${(ingest.bytes / 1e6).toFixed(0)} MB for ${RECORDS.toLocaleString('en')} records |`,
  ];
  console.log(lines.join('\n'));
  if (process.argv.includes('--json')) console.log(JSON.stringify({ records: RECORDS, wiflowRate, rawRate, naiveRate, results, bytes: ingest.bytes }));
  if (dirArg < 0) rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
