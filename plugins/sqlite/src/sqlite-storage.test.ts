import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Command } from 'commander';
import { COCO_KEYPOINTS, Runtime, SecretBox, StorageErrors, type PoseFrame } from '@wiflow/core';
import { storedPersonForm } from '@wiflow/storage-kit';
import { afterAll, describe, expect, it, vi } from 'vitest';
import sqlitePlugin, { MIGRATIONS, SCHEMA_VERSION, SqliteStorage, backupDatabase, migrate } from './index.js';
import { decodePerson, encodeKeypoints, encodePerson, encodePersonSummary, type PersonRow } from './person-codec.js';
import { syntheticFrame } from './tools/synthetic-frames.js';

const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-sqlite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let next = 0;
const file = () => path.join(dir, `t-${next++}.db`);
const minuteStart = (ts: number) => Math.floor(ts / 60_000) * 60_000;
const frames = (count: number, start = Date.now() - 60_000, first = 0): PoseFrame[] => Array.from({ length: count }, (_, i) => syntheticFrame(first + i, start, 'lab', 2));

describe('plugin-sqlite in a runtime', () => {
  it('resolves sqlite storage at <dataDir>/wiflow.db with the privacy config (snake_case accepted), and only for kind sqlite', async () => {
    const dataDir = path.join(dir, 'runtime');
    const runtime = await Runtime.create({ discover: false, plugins: [sqlitePlugin], dataDir, config: { privacy: { data_retention_days: 5, anonymize_data: true } } });
    const storage = await runtime.hooks.resolveStorage.promise({ kind: 'sqlite', dataDir, host: runtime });
    expect(storage).toBeInstanceOf(SqliteStorage);
    expect((storage as SqliteStorage).file).toBe(path.join(dataDir, 'wiflow.db'));
    expect(storage!.privacy()).toEqual({ dataRetentionDays: 5, anonymizeData: true, enableEncryption: false });
    // A config change through the API applies without a restart.
    expect(runtime.config.update({ privacy: { anonymizeData: false } }).errors).toEqual([]);
    expect(storage!.privacy().anonymizeData).toBe(false);
    expect(runtime.config.update({ privacy: { data_retention_days: 0 } }).errors.length).toBeGreaterThan(0);
    expect(await runtime.hooks.resolveStorage.promise({ kind: 'mongodb', dataDir, host: runtime })).toBeUndefined();
    await storage!.open();
    await storage!.poses.append(frames(3));
    await storage!.close();
    expect(existsSync(path.join(dataDir, 'wiflow.db'))).toBe(true);
  });

  it('is the storage a started runtime opens and a stopped one closes', async () => {
    const dataDir = path.join(dir, 'runtime-start');
    const runtime = await Runtime.create({ discover: false, plugins: [sqlitePlugin], dataDir });
    await runtime.start();
    expect(runtime.storage.kind).toBe('sqlite');
    const user = await runtime.storage.users.create({ username: 'admin', password: 'pw' });
    await runtime.stop();
    const reopened = new SqliteStorage({ file: path.join(dataDir, 'wiflow.db') });
    await reopened.open();
    expect(await reopened.users.get(user.id)).toEqual(user);
    await reopened.close();
  });

  it('honours storage.file relative to the data directory', async () => {
    const dataDir = path.join(dir, 'runtime-file');
    const runtime = await Runtime.create({ discover: false, plugins: [sqlitePlugin], dataDir, config: { storage: { kind: 'sqlite', file: 'db/poses.sqlite', flushIntervalMs: 5 } } });
    const storage = (await runtime.hooks.resolveStorage.promise({ kind: 'sqlite', dataDir, host: runtime })) as SqliteStorage;
    expect(storage.file).toBe(path.join(dataDir, 'db/poses.sqlite'));
  });
});

describe('SqliteStorage specifics', () => {
  it('uses WAL and reports its figures in health', async () => {
    const storage = new SqliteStorage({ file: file(), retentionIntervalMs: 0 });
    await storage.open();
    await storage.poses.append(frames(10));
    await storage.flush();
    const health = await storage.health();
    expect(health.status).toBe('healthy');
    expect(health.details).toMatchObject({ kind: 'sqlite', journalMode: 'wal', schemaVersion: SCHEMA_VERSION, connectionPool: '2/2', bufferedRecords: 0, writtenRecords: 30 });
    await storage.close();
  });

  it('writes buffered records in the background within the flush interval', async () => {
    const storage = new SqliteStorage({ file: file(), flushIntervalMs: 10, retentionIntervalMs: 0 });
    await storage.open();
    await storage.poses.append(frames(5));
    expect((await storage.health()).details.bufferedRecords).toBe(15);
    await vi.waitFor(async () => expect((await storage.health()).details.writtenRecords).toBe(15), { timeout: 5000, interval: 5 });
    await storage.close();
  });

  it('keeps records when a write fails, reports degraded health, and rejects flush', async () => {
    const errors: unknown[] = [];
    const storage = new SqliteStorage({ file: file(), flushIntervalMs: 5, retentionIntervalMs: 0, onError: (e) => errors.push(e) });
    await storage.open();
    storage.database.exec('DROP TABLE pose_persons');
    await storage.poses.append(frames(2));
    await vi.waitFor(() => expect(errors.length).toBeGreaterThan(0), { timeout: 5000, interval: 5 });
    const health = await storage.health();
    expect(health.status).toBe('degraded');
    expect(health.details).toMatchObject({ bufferedRecords: 6, lastError: expect.stringContaining('pose_persons') });
    await expect(storage.flush()).rejects.toMatchObject({ code: StorageErrors.backend.code });
    await expect(storage.close()).rejects.toThrow();
  });

  it('migrates a version-1 file, backfilling the per-minute rollups', async () => {
    const path1 = file();
    const db = new BetterSqlite3(path1);
    migrate(db, MIGRATIONS.slice(0, 1));
    const insert = db.prepare("INSERT INTO pose_frames (environment_id, ts, frame_id, person_seq, person_count, metadata) VALUES ('old', ?, ?, 1, ?, '{}')");
    const t0 = Date.now() - 600_000;
    for (let i = 0; i < 5; i++) insert.run(t0 + i * 100_000, i, i === 0 ? 1 : 0);
    db.prepare("INSERT INTO pose_persons (seq, frame_seq, environment_id, ts, frame_id, person_id, track_id, confidence, activity, x, y, cx, cy, extra) VALUES (1, 1, 'old', ?, 0, 0, 7, 0.8, 'walking', 0, 0, 0, 0, ?)")
      .run(t0, JSON.stringify({ boundingBox: { x: 0, y: 0, width: 1, height: 1 }, keypoints: [], keypoints3d: [] }));
    db.close();
    const storage = new SqliteStorage({ file: path1, retentionIntervalMs: 0 });
    await storage.open();
    expect((await storage.health()).details).toMatchObject({ schemaVersion: SCHEMA_VERSION, migratedFrom: 1 });
    expect(storage.database.prepare('SELECT version FROM schema_version ORDER BY version').pluck().all()).toEqual(MIGRATIONS.map((m) => m.version));
    expect((await storage.poses.findFrames({ environmentId: 'old' }, { page: 1, perPage: 10 })).total).toBe(5);
    expect(await storage.poses.availableRange('old')).toMatchObject({ frameCount: 5 });
    expect((await storage.poses.findRecords({ environmentId: 'old' }, { page: 1, perPage: 10 })).total).toBe(1);
    // Old frames have no person summary: aggregation reads their person rows instead.
    await storage.poses.append([{ ...syntheticFrame(9, t0, 'old', 1), timestamp: t0 + 450_000 }]);
    const aggregate = await storage.poses.aggregate({ environmentId: 'old', start: t0, end: t0 + 600_000, intervalMs: 3_600_000 });
    const buckets = aggregate.buckets;
    expect(buckets.reduce((n, b) => n + b.frameCount, 0)).toBe(6);
    expect(buckets.reduce((n, b) => n + b.personRecords, 0)).toBe(2);
    expect(aggregate.recordsScanned).toBe(6);
    await storage.close();
  });

  it('upgrades a version-3 file in place (float64 keypoint blobs, JSON metadata rows) and reads its records in the stored form', async () => {
    const path3 = file();
    const db = new BetterSqlite3(path3);
    migrate(db, MIGRATIONS.slice(0, 3));
    // Rows exactly as the schema-3 writer laid them out.
    // Ten minutes into an hour two hours ago: the 100 s of data stay inside one clock hour (the
    // aggregate's bucket), whatever minute the test runs at.
    const t0 = Math.floor((Date.now() - 7_200_000) / 3_600_000) * 3_600_000 + 600_000;
    const old = frames(900, t0); // 90 s at 10 fps: one whole minute and a half
    const insertFrame = db.prepare('INSERT INTO pose_frames (environment_id, ts, frame_id, person_seq, person_count, processing_time_ms, metadata, extra, person_summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const insertPerson = db.prepare('INSERT INTO pose_persons (seq, frame_seq, environment_id, ts, frame_id, person_id, track_id, confidence, activity, track_status, x, y, cx, cy, keypoints, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
    const counts = new Map<number, [number, number]>();
    let personSeq = 1;
    db.transaction(() => {
      for (const f of old) {
        const frameSeq = insertFrame.run(f.environmentId, f.timestamp, f.frameId, personSeq, f.persons.length, f.processingTimeMs, JSON.stringify(f.metadata), null, encodePersonSummary(f.persons)).lastInsertRowid;
        for (const person of f.persons) {
          const { id, trackId, confidence, activity, trackStatus, position, keypoints, keypoints3d, ...rest } = person;
          const box = person.boundingBox;
          insertPerson.run(personSeq++, frameSeq, f.environmentId, f.timestamp, f.frameId, id, trackId, confidence, activity, trackStatus, position.x, position.y, box.x + box.width / 2, box.y + box.height / 2, encodeKeypoints(keypoints, keypoints3d), JSON.stringify(rest));
        }
        const minute = minuteStart(f.timestamp);
        const c = counts.get(minute) ?? [0, 0];
        counts.set(minute, [c[0] + 1, c[1] + f.persons.length]);
      }
      for (const [minute, [n, persons]] of counts) db.prepare("INSERT INTO pose_counts VALUES ('lab', ?, ?, ?)").run(minute, n, persons);
    })();
    db.close();

    const storage = new SqliteStorage({ file: path3, retentionIntervalMs: 0 });
    await storage.open();
    expect((await storage.health()).details).toMatchObject({ schemaVersion: SCHEMA_VERSION, migratedFrom: 3 });
    // Old rows were re-encoded: keypoints rounded to float32 like new ones, everything else exact.
    const page = await storage.poses.findFrames({ environmentId: 'lab' }, { page: 2, perPage: 10 });
    expect(page.total).toBe(900);
    expect(page.items).toEqual(old.slice(10, 20).map((f) => ({ ...f, persons: f.persons.map(storedPersonForm) })));
    const records = await storage.poses.findRecords({ environmentId: 'lab', start: t0 + 60_000 }, { page: 1, perPage: 5 });
    expect(records.total).toBe(600);
    expect(records.items[0]!.person).toEqual(storedPersonForm(old[600]!.persons[0]!));
    // No schema-3 blob is left, and none spills to overflow pages: rows are the new size.
    expect(storage.database.prepare('SELECT COUNT(*) FROM pose_persons WHERE body IS NULL OR length(body) > 600').pluck().get()).toBe(0);
    expect(await storage.poses.availableRange('lab')).toEqual({ environmentId: 'lab', earliest: t0, latest: t0 + 89_900, frameCount: 900 });
    // New frames go on after the old sequence numbers; aggregation reads the backfilled rollups and the new frames alike.
    const added = frames(10, t0 + 90_000, 900);
    await storage.poses.append(added);
    const all = await storage.poses.findRecords({ environmentId: 'lab', order: 'desc' }, { page: 1, perPage: 3 });
    expect(all.total).toBe(1820);
    expect(all.items.map((r) => r.frameId)).toEqual([909, 909, 908]);
    const aggregate = await storage.poses.aggregate({ environmentId: 'lab', start: t0, end: t0 + 3_599_999 });
    expect(aggregate.buckets).toHaveLength(1);
    expect(aggregate.buckets[0]).toMatchObject({ frameCount: 910, personRecords: 1820, maxPersonCount: 2, framesByPersonCount: { '2': 910 } });
    const confidences = [...old, ...added].flatMap((f) => f.persons.map((p) => p.confidence));
    expect(aggregate.buckets[0]!.avgConfidence).toBeCloseTo(confidences.reduce((a, b) => a + b, 0) / confidences.length, 10);
    expect(aggregate.recordsScanned).toBe(910);
    expect((await storage.tracks.list({ environmentId: 'lab' }, { page: 1, perPage: 10 })).total).toBe(2);
    await storage.close();
  });

  it('keeps the rollups true to the rows when retention cuts through a minute', async () => {
    const t0 = minuteStart(Date.now() - 3 * 86_400_000);
    const storage = new SqliteStorage({ file: file(), retentionIntervalMs: 0, privacy: () => ({ dataRetentionDays: 1, anonymizeData: false, enableEncryption: false }) });
    await storage.open();
    const written = frames(1200, t0); // two minutes at 10 fps
    await storage.poses.append(written);
    await storage.flush();
    // The cutoff falls 25.05 s into the first minute: 251 frames of it go, 349 stay.
    const cutoff = t0 + 25_050;
    const report = await storage.applyRetention(cutoff + 86_400_000);
    expect(report).toMatchObject({ cutoff, poseFrames: 251, personRecords: 502 });
    const kept = written.filter((f) => f.timestamp >= cutoff);
    expect(await storage.poses.availableRange('lab')).toEqual({ environmentId: 'lab', earliest: kept[0]!.timestamp, latest: t0 + 119_900, frameCount: kept.length });
    expect((await storage.poses.findRecords({ environmentId: 'lab', start: t0, end: t0 + 119_999 }, { page: 1, perPage: 1 })).total).toBe(kept.length * 2);
    const aggregate = await storage.poses.aggregate({ environmentId: 'lab', start: t0, end: t0 + 3_599_999, intervalMs: 60_000 });
    expect(aggregate.buckets.map((b) => [b.start, b.frameCount, b.personRecords])).toEqual([[t0, 349, 698], [t0 + 60_000, 600, 1200]]);
    // The rebuilt minute sums exactly what is left of it.
    const firstMinute = kept.filter((f) => f.timestamp < t0 + 60_000).flatMap((f) => f.persons);
    expect(aggregate.buckets[0]!.avgConfidence).toBeCloseTo(firstMinute.reduce((a, p) => a + p.confidence, 0) / firstMinute.length, 10);
    const activities: Record<string, number> = {};
    for (const p of firstMinute) activities[p.activity!] = (activities[p.activity!] ?? 0) + 1 / firstMinute.length;
    for (const [activity, fraction] of Object.entries(activities)) expect(aggregate.buckets[0]!.activities[activity]).toBeCloseTo(fraction, 10);
    expect(Object.keys(aggregate.buckets[0]!.activities).sort()).toEqual(Object.keys(activities).sort());
    await storage.close();
  });

  it('refuses a file written by a newer schema', async () => {
    const path2 = file();
    const db = new BetterSqlite3(path2);
    migrate(db);
    db.prepare('INSERT INTO schema_version (version, description, applied_at) VALUES (99, ?, 0)').run('from the future');
    db.close();
    await expect(new SqliteStorage({ file: path2 }).open()).rejects.toMatchObject({ code: StorageErrors.backend.code, message: expect.stringContaining('newer') });
  });

  it('seals flows, projects, messages and jobs at rest when encryption is on', async () => {
    const box = new SecretBox(randomBytes(32));
    const path3 = file();
    const storage = new SqliteStorage({ file: path3, sealer: box, privacy: () => ({ dataRetentionDays: 30, anonymizeData: false, enableEncryption: true }) });
    await storage.open();
    const flow = await storage.flows.create({ name: 'secret flow', description: 'the ward plan', data: { nodes: [{ id: 'n1' }], edges: [] } });
    await storage.messages.append({ sessionId: 's', sender: 'User', senderName: 'a', text: 'private words' });
    expect(await storage.flows.get(flow.id)).toEqual(flow);
    const raw = storage.database.prepare('SELECT body FROM flows').pluck().get() as string;
    expect(raw.startsWith('sealed:')).toBe(true);
    expect(raw).not.toContain('the ward plan');
    expect(storage.database.prepare('SELECT body FROM messages').pluck().get()).not.toContain('private words');
    // A job: its summary (flow name, error) and its log and outputs (a run's inputs and answers).
    const job = {
      id: 'job-1', flowId: flow.id, flowName: 'secret flow', userId: 'u1', runnerId: 'r1', status: 'completed' as const, error: null, errorCode: null,
      labels: { ward: 'oncology' }, outputs: { answer: 'the patient in bed 4' }, events: [{ seq: 1, event: 'job_started', data: { input_value: 'bed 4 please' }, timestamp: 2 }],
      eventsOmitted: 0, createdAt: 1, startedAt: 2, finishedAt: 3,
    };
    await storage.jobs.save(job);
    expect(await storage.jobs.get('job-1')).toEqual(job);
    expect((await storage.jobs.list({ runnerId: 'r1', statuses: ['completed'] }, { page: 1, perPage: 10 })).items.map((j) => j.id)).toEqual(['job-1']);
    const jobRow = storage.database.prepare('SELECT body, detail FROM jobs').get() as { body: string; detail: string };
    for (const column of [jobRow.body, jobRow.detail]) {
      expect(column.startsWith('sealed:')).toBe(true);
      for (const secret of ['secret flow', 'oncology', 'bed 4']) expect(column).not.toContain(secret);
    }
    await storage.close();
    const withoutKey = new SqliteStorage({ file: path3 });
    await withoutKey.open();
    await expect(withoutKey.flows.get(flow.id)).rejects.toMatchObject({ code: StorageErrors.backend.code });
    await expect(withoutKey.jobs.get('job-1')).rejects.toMatchObject({ code: StorageErrors.backend.code });
    await withoutKey.close();
  });

  it('round-trips keypoints that are not in COCO order or not COCO names (float32 keypoints, everything else exact)', () => {
    const base = syntheticFrame(1, 0, 'lab', 1).persons[0]!;
    const reversed = { ...base, keypoints: [...base.keypoints].reverse(), keypoints3d: base.keypoints3d.slice(0, 3) };
    const odd = { ...base, keypoints: [{ name: 'tail' as (typeof COCO_KEYPOINTS)[number], x: 1.1, y: 2, confidence: 0.5, visible: false }] };
    const bare = { ...base, velocity: null, boundingBox: { x: 1.1, y: 2, width: 3, height: 4, label: 'odd' } as unknown as typeof base.boundingBox, trackAge: 3 };
    for (const person of [base, reversed, odd, bare]) {
      const p = encodePerson(person);
      const row: PersonRow = ['lab', 0, 1, 1, 1, p.personId, p.trackId, p.confidence, p.activity, p.trackStatus, p.x, p.y, p.cx, p.cy, p.body, p.extra];
      // COCO keypoints go to the float32 body; names outside COCO stay in JSON, exact.
      expect(decodePerson(row)).toEqual(person === odd ? person : storedPersonForm(person));
    }
    expect(base.keypoints[0]!.x).not.toBe(Math.fround(base.keypoints[0]!.x));
  });

  it('backs up online while writes go on, through the wiflow backup command', async () => {
    const dataDir = path.join(dir, 'backup');
    const runtime = await Runtime.create({ discover: false, plugins: [sqlitePlugin], dataDir });
    const storage = (await runtime.hooks.resolveStorage.promise({ kind: 'sqlite', dataDir, host: runtime })) as SqliteStorage;
    await storage.open();
    await storage.poses.append(frames(2000));
    await storage.flush();
    const progress: number[] = [];
    const copy = backupDatabase(storage.file, path.join(dir, 'copy-1.db'), (done, total) => progress.push(done / total));
    await storage.poses.append(frames(100, Date.now(), 5000));
    await storage.flush();
    const result = await copy;
    expect(result.totalPages).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(1);
    const check = new BetterSqlite3(result.file, { readonly: true });
    expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(check.prepare('SELECT COUNT(*) FROM pose_frames').pluck().get()).toBeGreaterThanOrEqual(2000);
    check.close();

    const printed: string[] = [];
    const program = new Command().exitOverride();
    runtime.hooks.cli.call(program, { runtime: async () => runtime, print: (line) => printed.push(line) });
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      await program.parseAsync(['node', 'wiflow', 'backup', '--out', path.join(dir, 'copy-2.db')]);
    } finally {
      stderr.mockRestore();
    }
    expect(printed.join('\n')).toMatch(/backup written to .*copy-2\.db \(\d+ pages, \d+ bytes, integrity ok\)/);
    const second = new BetterSqlite3(path.join(dir, 'copy-2.db'), { readonly: true });
    expect(second.prepare('SELECT COUNT(*) FROM pose_frames').pluck().get()).toBe(2100);
    second.close();
    await expect(backupDatabase(path.join(dir, 'missing.db'), path.join(dir, 'x.db'))).rejects.toThrow(/no database/);
    await expect(backupDatabase(storage.file, storage.file)).rejects.toThrow(/itself/);
    await storage.close();
  });

  it('refuses a missing file name', () => {
    expect(() => new SqliteStorage({ file: '' })).toThrow(expect.objectContaining({ code: StorageErrors.invalid.code }));
  });
});
