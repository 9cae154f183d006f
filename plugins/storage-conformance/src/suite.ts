import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  StorageErrors,
  type CursorPage,
  type CursorRequest,
  type JobRecord,
  type PersonRecord,
  type PoseFrame,
  type PoseQuery,
  type PrivacySettings,
  type Storage,
} from '@wiflow/core';
import { DAY, FIXTURE_METADATA, HOUR, fixtureStart, makeAlert, makeEvent, makePerson, makeSensingFrame, poseFixture, storedFrame, storedPerson } from './fixtures.js';

/** What a factory is asked for. */
export interface StorageFactoryOptions {
  privacy: PrivacySettings;
}

/** Makes a fresh, empty, not yet opened storage (its own file, database or collection prefix). */
export type StorageFactory = (options: StorageFactoryOptions) => Promise<Storage>;

/** Options of the conformance run. */
export interface ConformanceOptions {
  /** A reason to skip the whole suite (e.g. no server configured); printed once. */
  skip?: string | false;
}

const PRIVACY: PrivacySettings = { dataRetentionDays: 30, anonymizeData: false, enableEncryption: false };

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  await expect(promise).rejects.toMatchObject({ code });
}

async function collectCursor<T>(fetch: (paging: CursorRequest) => Promise<CursorPage<T>>, limit: number): Promise<{ items: T[]; pages: number; totals: number[] }> {
  const items: T[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (;;) {
    const page: CursorPage<T> = await fetch({ cursor, limit });
    pages++;
    totals.push(page.totalCount);
    items.push(...page.items);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    if (!page.hasMore) {
      expect(page.nextCursor).toBeNull();
      break;
    }
    expect(page.nextCursor).toEqual(expect.any(String));
    cursor = page.nextCursor;
    if (pages > 1000) throw new Error('cursor paging does not end');
  }
  return { items, pages, totals };
}

/** Reference: flat person records of the fixture matching a query (asc). */
function referenceRecords(frames: PoseFrame[], query: PoseQuery): { frame: PoseFrame; index: number }[] {
  const out: { frame: PoseFrame; index: number }[] = [];
  for (const frame of frames) {
    if (query.environmentId !== undefined && frame.environmentId !== query.environmentId) continue;
    if (query.start !== undefined && frame.timestamp < query.start) continue;
    if (query.end !== undefined && frame.timestamp > query.end) continue;
    frame.persons.forEach((p, index) => {
      if (query.personId !== undefined && p.id !== query.personId) return;
      if (query.trackId !== undefined && p.trackId !== query.trackId) return;
      if (query.minConfidence !== undefined && p.confidence < query.minConfidence) return;
      out.push({ frame, index });
    });
  }
  return out;
}

function recordKey(r: PersonRecord): string {
  return `${r.environmentId}/${r.frameId}/${r.personId}`;
}

/**
 * The storage conformance suite: every storage plugin runs it with a factory of fresh
 * storages. It covers every repository, both paging kinds, filters, the available range,
 * aggregation, optimistic concurrency, jobs, retention and anonymisation.
 */
export function describeStorageConformance(name: string, factory: StorageFactory, options: ConformanceOptions = {}): void {
  const skip = options.skip || false;
  if (skip) console.log(`${name} conformance skipped: ${skip}`);

  describe.skipIf(Boolean(skip))(`storage conformance: ${name}`, () => {
    const opened: Storage[] = [];
    async function fresh(privacy: Partial<PrivacySettings> = {}): Promise<Storage> {
      const storage = await factory({ privacy: { ...PRIVACY, ...privacy } });
      await storage.open();
      opened.push(storage);
      return storage;
    }
    afterAll(async () => {
      for (const storage of opened) await storage.close().catch(() => undefined);
    });

    describe('lifecycle', () => {
      it('reports health, honours flush and refuses work once closed', async () => {
        const storage = await fresh();
        expect(typeof storage.kind).toBe('string');
        const health = await storage.health();
        expect(health.status).toBe('healthy');
        expect(health.details).toEqual(expect.any(Object));
        expect(storage.privacy()).toEqual(PRIVACY);
        await storage.flush();
        await storage.close();
        await storage.close();
        await expect(storage.health()).resolves.toMatchObject({ status: 'unhealthy' });
        await expect(Promise.resolve().then(() => storage.flows.get('x'))).rejects.toMatchObject({ code: StorageErrors.closed.code });
      });
    });

    describe('poses', () => {
      let storage: Storage;
      let start: number;
      let frames: PoseFrame[];
      beforeAll(async () => {
        storage = await fresh();
        start = fixtureStart();
        frames = poseFixture(start);
        // Two appends without a flush: reads must still see them.
        await storage.poses.append(frames.slice(0, 30));
        await storage.poses.append(frames.slice(30));
      });

      it('reads its writes before any flush and round-trips a frame: keypoints as float32, every other field exact', async () => {
        const page = await storage.poses.findFrames({ environmentId: 'lab' }, { page: 1, perPage: 100 });
        expect(page.total).toBe(60);
        const original = frames.find((f) => f.environmentId === 'lab' && f.frameId === 8)!;
        const stored = page.items.find((f) => f.frameId === 8)!;
        expect(stored).toEqual(storedFrame(original));
        // The rounding is real (0.525 is not a float32) and is exactly float32's, no coarser.
        const [before, after] = [original.persons[0]!.keypoints[1]!.confidence, stored.persons[0]!.keypoints[1]!.confidence];
        expect(before).toBe(0.525);
        expect(after).not.toBe(before);
        expect(after).toBe(Math.fround(before));
        expect(stored.persons[1]!.keypoints3d[3]!.x).toBe(Math.fround(original.persons[1]!.keypoints3d[3]!.x));
        // Fields outside the keypoints keep full float64 precision (0.53 is not a float32 value).
        expect(stored.persons[1]!.confidence).toBe(original.persons[1]!.confidence);
        expect(Math.fround(original.persons[1]!.confidence)).not.toBe(original.persons[1]!.confidence);
        expect(stored.persons[0]!.boundingBox).toEqual(original.persons[0]!.boundingBox);
        expect(stored.metadata).toEqual(original.metadata);
      });

      it('answers latest per environment, filtering persons by confidence', async () => {
        const latestLab = await storage.poses.latest({ environmentId: 'lab' });
        expect(latestLab?.frameId).toBe(59);
        expect(latestLab?.persons).toHaveLength(2);
        const filtered = await storage.poses.latest({ environmentId: 'lab', minConfidence: 0.5 });
        expect(filtered?.frameId).toBe(59);
        expect(filtered?.persons.map((p) => p.id)).toEqual([1]);
        const latestAny = await storage.poses.latest();
        expect(latestAny?.frameId).toBe(59);
        expect(await storage.poses.latest({ environmentId: 'nowhere' })).toBeNull();
      });

      it('pages frames with page/per_page in both orders', async () => {
        const first = await storage.poses.findFrames({ environmentId: 'lab' }, { page: 1, perPage: 25 });
        expect(first).toMatchObject({ page: 1, perPage: 25, total: 60, totalPages: 3, hasNext: true, hasPrev: false });
        expect(first.items.map((f) => f.frameId)).toEqual([...Array(25).keys()]);
        const last = await storage.poses.findFrames({ environmentId: 'lab' }, { page: 3, perPage: 25 });
        expect(last).toMatchObject({ hasNext: false, hasPrev: true });
        expect(last.items.map((f) => f.frameId)).toEqual([...Array(10).keys()].map((i) => 50 + i));
        const beyond = await storage.poses.findFrames({ environmentId: 'lab' }, { page: 4, perPage: 25 });
        expect(beyond.items).toEqual([]);
        expect(beyond.total).toBe(60);
        const desc = await storage.poses.findFrames({ environmentId: 'lab', order: 'desc' }, { page: 1, perPage: 3 });
        expect(desc.items.map((f) => f.frameId)).toEqual([59, 58, 57]);
        const all = await storage.poses.findFrames({}, { page: 1, perPage: 1000 });
        expect(all.total).toBe(70);
        const timestamps = all.items.map((f) => f.timestamp);
        expect(timestamps).toEqual([...timestamps].sort((a, b) => a - b));
      });

      it('pages frames with cursors, every frame exactly once, stable under inserts', async () => {
        const query = { environmentId: 'lab' };
        const first = await storage.poses.scanFrames(query, { limit: 7 });
        expect(first.totalCount).toBe(60);
        // A frame appended after the first page (later timestamp) shows up at the end, nothing repeats.
        const late = { ...frames[frames.length - 1]!, environmentId: 'lab', frameId: 999, timestamp: start + 10 * HOUR, persons: [] };
        await storage.poses.append([late]);
        const rest = await collectCursor((paging) => storage.poses.scanFrames(query, paging), 7);
        expect(rest.items.map((f) => f.frameId)).toEqual([...Array(60).keys(), 999]);
        const resumed = await collectCursor((paging) => storage.poses.scanFrames(query, { ...paging, cursor: paging.cursor ?? first.nextCursor }), 7);
        expect(resumed.items.map((f) => f.frameId)).toEqual([...[...Array(60).keys()].slice(7), 999]);
        const desc = await collectCursor((paging) => storage.poses.scanFrames({ ...query, order: 'desc' }, paging), 13);
        expect(desc.items.map((f) => f.frameId)).toEqual([999, ...[...Array(60).keys()].reverse()]);
      });

      it('filters frames by person: matching persons only, empty frames left out', async () => {
        const page = await storage.poses.findFrames({ environmentId: 'lab', trackId: 101 }, { page: 1, perPage: 100 });
        const expected = frames.filter((f) => f.environmentId === 'lab' && f.persons.some((p) => p.trackId === 101));
        expect(page.total).toBe(expected.length);
        expect(page.items.map((f) => f.frameId)).toEqual(expected.map((f) => f.frameId));
        for (const frame of page.items) expect(frame.persons.map((p) => p.trackId)).toEqual([101]);
        const confident = await collectCursor((paging) => storage.poses.scanFrames({ environmentId: 'lab', minConfidence: 0.5 }, paging), 9);
        for (const frame of confident.items) {
          expect(frame.persons.length).toBeGreaterThan(0);
          for (const person of frame.persons) expect(person.confidence).toBeGreaterThanOrEqual(0.5);
        }
        expect(confident.items).toHaveLength(expected.length);
      });

      it('pages flat person records with filters and inclusive time bounds', async () => {
        const queries: PoseQuery[] = [
          { environmentId: 'lab' },
          { environmentId: 'lab', personId: 0 },
          { trackId: 100 },
          { environmentId: 'office', trackId: 100 },
          { environmentId: 'lab', minConfidence: 0.52 },
          { environmentId: 'lab', start: start + 10 * 120_000, end: start + 20 * 120_000 },
          { start: start + 30_000, end: start + 30_000 },
        ];
        for (const query of queries) {
          const expected = referenceRecords(frames, query).map(({ frame, index }) => `${frame.environmentId}/${frame.frameId}/${frame.persons[index]!.id}`);
          const page = await storage.poses.findRecords(query, { page: 1, perPage: 1000 });
          expect(page.total, JSON.stringify(query)).toBe(expected.length);
          expect(page.items.map(recordKey), JSON.stringify(query)).toEqual(expected);
          const scanned = await collectCursor((paging) => storage.poses.scanRecords(query, paging), 4);
          expect(scanned.items.map(recordKey)).toEqual(expected);
          expect(new Set(scanned.totals)).toEqual(new Set([expected.length]));
        }
        const second = await storage.poses.findRecords({ environmentId: 'lab' }, { page: 2, perPage: 10 });
        expect(second).toMatchObject({ page: 2, total: 60, totalPages: 6, hasNext: true, hasPrev: true });
        const record = second.items[0]!;
        const ref = referenceRecords(frames, { environmentId: 'lab' })[10]!;
        const person = ref.frame.persons[ref.index]!;
        expect(record).toEqual({
          timestamp: ref.frame.timestamp,
          frameId: ref.frame.frameId,
          environmentId: 'lab',
          personId: person.id,
          trackId: person.trackId,
          confidence: person.confidence,
          boundingBox: person.boundingBox,
          keypoints: storedPerson(person).keypoints,
          position: person.position,
          activity: person.activity,
          person: storedPerson(person),
        });
        const desc = await storage.poses.findRecords({ environmentId: 'office', order: 'desc' }, { page: 1, perPage: 2 });
        expect(desc.items.map((r) => r.frameId)).toEqual([1009, 1008]);
      });

      it('tells the available range per environment and overall', async () => {
        expect(await storage.poses.availableRange('nowhere')).toBeNull();
        expect(await storage.poses.availableRange('office')).toEqual({ environmentId: 'office', earliest: start + 30_000, latest: start + 30_000 + 9 * 60_000, frameCount: 10 });
        const lab = await storage.poses.availableRange('lab');
        expect(lab).toEqual({ environmentId: 'lab', earliest: start, latest: start + 10 * HOUR, frameCount: 61 });
        expect(await storage.poses.availableRange()).toEqual({ environmentId: '*', earliest: start, latest: start + 10 * HOUR, frameCount: 71 });
        expect(await storage.poses.environments()).toEqual([lab, await storage.poses.availableRange('office')]);
      });

      it('aggregates hourly and custom buckets with person and frame filters', async () => {
        const hourly = await storage.poses.aggregate({ start, end: start + 2 * HOUR - 1, environmentId: 'lab' });
        expect(hourly.buckets.map((b) => b.start)).toEqual([start, start + HOUR]);
        expect(hourly.recordsScanned).toBe(60);
        const firstHour = frames.filter((f) => f.environmentId === 'lab' && f.timestamp < start + HOUR);
        const persons = firstHour.flatMap((f) => f.persons);
        const bucket = hourly.buckets[0]!;
        expect(bucket.frameCount).toBe(30);
        expect(bucket.avgPersonCount).toBeCloseTo(persons.length / 30, 10);
        expect(bucket.maxPersonCount).toBe(2);
        expect(bucket.personRecords).toBe(persons.length);
        expect(bucket.avgConfidence).toBeCloseTo(persons.reduce((s, p) => s + p.confidence, 0) / persons.length, 10);
        expect(bucket.uniqueTracks).toBe(2);
        expect(bucket.activities).toEqual({ standing: persons.filter((p) => p.activity === 'standing').length / persons.length, walking: persons.filter((p) => p.activity === 'walking').length / persons.length });
        expect(bucket.framesByPersonCount).toEqual({ '0': 10, '1': 10, '2': 10 });

        const filtered = await storage.poses.aggregate({ start, end: start + 2 * HOUR - 1, environmentId: 'lab', minConfidence: 0.5, personCount: { min: 1 }, intervalMs: 30 * 60_000 });
        const expectedFrames = frames.filter((f) => f.environmentId === 'lab' && f.timestamp < start + 2 * HOUR && f.persons.some((p) => p.confidence >= 0.5));
        expect(filtered.buckets.reduce((s, b) => s + b.frameCount, 0)).toBe(expectedFrames.length);
        expect(filtered.buckets).toHaveLength(4);
        for (const b of filtered.buckets) {
          expect(b.avgPersonCount).toBe(1);
          expect(b.activities).toEqual({ walking: 1 });
          expect(b.framesByPersonCount).toEqual({ '1': b.frameCount });
        }
        const onlyEmpty = await storage.poses.aggregate({ start, end: start + HOUR - 1, environmentId: 'lab', personCount: { max: 0 } });
        expect(onlyEmpty.buckets).toHaveLength(1);
        expect(onlyEmpty.buckets[0]).toMatchObject({ frameCount: 10, avgPersonCount: 0, avgConfidence: null, personRecords: 0, activities: {} });
        const sitting = await storage.poses.aggregate({ start, end: start + 2 * HOUR, activities: ['lying'] });
        expect(sitting.buckets.reduce((s, b) => s + b.personRecords, 0)).toBe(10);
        expect(await storage.poses.aggregate({ start: start - 10 * HOUR, end: start - 1 })).toEqual({ buckets: [], recordsScanned: 0 });
      });

      it('rejects malformed queries and frames with WIFLOW_STORAGE_INVALID', async () => {
        const invalid = StorageErrors.invalid.code;
        await expectCode(storage.poses.findFrames({}, { page: 0, perPage: 10 }), invalid);
        await expectCode(storage.poses.findRecords({}, { page: 1, perPage: 0 }), invalid);
        await expectCode(storage.poses.scanRecords({}, { limit: 10, cursor: 'not-a-cursor' }), invalid);
        await expectCode(storage.poses.scanFrames({}, { limit: -1 }), invalid);
        await expectCode(storage.poses.findRecords({ start: 10, end: 5 }, { page: 1, perPage: 10 }), invalid);
        await expectCode(storage.poses.aggregate({ start: 10, end: 5 }), invalid);
        await expectCode(storage.poses.aggregate({ start: 0, end: 5, intervalMs: 0 }), invalid);
        await expectCode(storage.poses.append([{ ...frames[0]!, environmentId: '' }]), invalid);
        await expectCode(storage.poses.append([{ ...frames[0]!, timestamp: Number.NaN }]), invalid);
        await expectCode(storage.poses.append('nope' as unknown as PoseFrame[]), invalid);
      });
    });

    describe('tracks', () => {
      let storage: Storage;
      let start: number;
      beforeAll(async () => {
        storage = await fresh();
        start = fixtureStart();
        await storage.poses.append(poseFixture(start));
      });

      it('summarises a track with movement statistics and trajectory', async () => {
        const track = await storage.tracks.get(100, { environmentId: 'lab', includeTrajectory: true });
        const lab = poseFixture(start).filter((f) => f.environmentId === 'lab' && f.persons.some((p) => p.trackId === 100));
        expect(track).toMatchObject({ trackId: 100, environmentId: 'lab', personId: 0, firstSeen: lab[0]!.timestamp, lastSeen: lab[lab.length - 1]!.timestamp, totalFrames: lab.length, status: 'active' });
        expect(track!.durationSeconds).toBeCloseTo((lab[lab.length - 1]!.timestamp - lab[0]!.timestamp) / 1000, 6);
        const distance = lab.slice(1).reduce((s, f, i) => s + Math.abs(f.persons[0]!.position.x - lab[i]!.persons[0]!.position.x), 0);
        expect(track!.statistics.movementDistance).toBeCloseTo(distance, 6);
        expect(track!.statistics.averageSpeed).toBeCloseTo(distance / track!.durationSeconds, 6);
        expect(track!.statistics.timeMoving + track!.statistics.timeStationary).toBeCloseTo(track!.durationSeconds, 6);
        expect(track!.trajectory).toHaveLength(lab.length);
        expect(track!.trajectory![0]).toEqual({ timestamp: lab[0]!.timestamp, centerX: 90 + lab[0]!.persons[0]!.position.x + 60.5 / 2, centerY: 150 + 120.25 / 2, position: lab[0]!.persons[0]!.position, confidence: lab[0]!.persons[0]!.confidence });
        const office = await storage.tracks.get(100, { environmentId: 'office' });
        expect(office).toMatchObject({ environmentId: 'office', totalFrames: 10 });
        expect(office!.averageConfidence).toBeCloseTo(0.9, 10);
        expect(office!.trajectory).toBeUndefined();
        expect(office!.statistics.timeStationary).toBeCloseTo(9 * 60, 6);
        expect(await storage.tracks.get(555)).toBeNull();
        const ranged = await storage.tracks.get(101, { environmentId: 'lab', start: start + HOUR, end: start + 2 * HOUR });
        expect(ranged!.firstSeen).toBeGreaterThanOrEqual(start + HOUR);
      });

      it('lists tracks most recently seen first, paged', async () => {
        const page = await storage.tracks.list({}, { page: 1, perPage: 2 });
        expect(page.total).toBe(3);
        expect(page.items.map((t) => `${t.environmentId}/${t.trackId}`)).toEqual(['lab/100', 'lab/101']);
        const second = await storage.tracks.list({}, { page: 2, perPage: 2 });
        expect(second.items.map((t) => `${t.environmentId}/${t.trackId}`)).toEqual(['office/100']);
        const office = await storage.tracks.list({ environmentId: 'office' }, { page: 1, perPage: 10 });
        expect(office.items.map((t) => t.trackId)).toEqual([100]);
      });
    });

    describe('events, alerts, metrics', () => {
      let storage: Storage;
      let start: number;
      beforeAll(async () => {
        storage = await fresh();
        start = fixtureStart();
      });

      it('stores events, filters and pages them, replaces by id', async () => {
        const events = [
          makeEvent('e1', start + 1000),
          makeEvent('e2', start + 2000, { type: 'intrusion', severity: 'medium', source: 'security.intrusion/zone-v1', trackId: 7 }),
          makeEvent('e3', start + 3000, { environmentId: 'office' }),
          makeEvent('e4', start + 4000, { severity: 'low' }),
          makeEvent('e5', start + 4000, { type: 'zone_entry', severity: 'low', source: 'retail.zones/enter-v1' }),
        ];
        await storage.events.append(events);
        expect(await storage.events.get('e2')).toEqual(events[1]);
        expect(await storage.events.get('missing')).toBeNull();
        const lab = await storage.events.find({ environmentId: 'lab' }, { page: 1, perPage: 10 });
        expect(lab.items.map((e) => e.eventId)).toEqual(['e1', 'e2', 'e4', 'e5']);
        expect((await storage.events.find({ types: ['fall_detection'], severities: ['high'] }, { page: 1, perPage: 10 })).items.map((e) => e.eventId)).toEqual(['e1', 'e3']);
        expect((await storage.events.find({ trackId: 7 }, { page: 1, perPage: 10 })).items.map((e) => e.eventId)).toEqual(['e2']);
        expect((await storage.events.find({ sourcePrefix: 'healthcare.' }, { page: 1, perPage: 10 })).total).toBe(3);
        expect((await storage.events.find({ start: start + 2000, end: start + 3000 }, { page: 1, perPage: 10 })).items.map((e) => e.eventId)).toEqual(['e2', 'e3']);
        expect((await storage.events.find({ order: 'desc' }, { page: 1, perPage: 2 })).items.map((e) => e.eventId)).toEqual(['e5', 'e4']);
        const scanned = await collectCursor((paging) => storage.events.scan({}, paging), 2);
        expect(scanned.items.map((e) => e.eventId)).toEqual(['e1', 'e2', 'e3', 'e4', 'e5']);
        expect(await storage.events.countByType({})).toEqual({ fall_detection: 3, intrusion: 1, zone_entry: 1 });
        expect(await storage.events.countByType({ environmentId: 'office' })).toEqual({ fall_detection: 1 });
        await storage.events.append([{ ...events[0]!, severity: 'critical' }]);
        expect((await storage.events.get('e1'))?.severity).toBe('critical');
        expect((await storage.events.find({}, { page: 1, perPage: 10 })).total).toBe(5);
        await expectCode(storage.events.append([{ ...events[0]!, eventId: '' }]), StorageErrors.invalid.code);
      });

      it('stores alerts, acknowledges once, keeps acknowledgement on replace', async () => {
        await storage.alerts.append([makeAlert('a1', start + 1000), makeAlert('a2', start + 2000, { severity: 'medium', alertType: 'intrusion' }), makeAlert('a3', start + 3000, { environmentId: 'office' })]);
        expect(await storage.alerts.get('a1')).toEqual({ ...makeAlert('a1', start + 1000), acknowledgedAt: null, acknowledgedBy: null });
        const acked = await storage.alerts.acknowledge('a1', 'nurse', start + 5000);
        expect(acked).toMatchObject({ acknowledgedAt: start + 5000, acknowledgedBy: 'nurse' });
        expect(await storage.alerts.acknowledge('a1', 'someone else', start + 6000)).toMatchObject({ acknowledgedBy: 'nurse', acknowledgedAt: start + 5000 });
        expect(await storage.alerts.acknowledge('missing', 'x')).toBeNull();
        await storage.alerts.append([makeAlert('a1', start + 1000, { message: 'updated' })]);
        expect(await storage.alerts.get('a1')).toMatchObject({ message: 'updated', acknowledgedBy: 'nurse' });
        expect((await storage.alerts.find({ acknowledged: false }, { page: 1, perPage: 10 })).items.map((a) => a.alertId)).toEqual(['a2', 'a3']);
        expect((await storage.alerts.find({ acknowledged: true }, { page: 1, perPage: 10 })).items.map((a) => a.alertId)).toEqual(['a1']);
        expect((await storage.alerts.find({ alertTypes: ['intrusion'] }, { page: 1, perPage: 10 })).items.map((a) => a.alertId)).toEqual(['a2']);
        expect((await storage.alerts.find({ environmentId: 'office', severities: ['critical'] }, { page: 1, perPage: 10 })).items.map((a) => a.alertId)).toEqual(['a3']);
        const scanned = await collectCursor((paging) => storage.alerts.scan({ order: 'desc' }, paging), 2);
        expect(scanned.items.map((a) => a.alertId)).toEqual(['a3', 'a2', 'a1']);
      });

      it('keeps metric history and the latest sample per kind', async () => {
        const samples = [0, 1, 2, 3, 4].map((i) => ({ timestamp: start + i * 1000, kind: i % 2 === 0 ? 'performance' : 'resources', source: 'runtime', values: { frames_per_second: 10 + i, cpu_usage: i * 1.5 } }));
        samples.push({ timestamp: start + 5000, kind: 'performance', source: 'node-7', values: { frames_per_second: 1, cpu_usage: 0 } });
        await storage.metrics.append(samples);
        const performance = await storage.metrics.find({ kinds: ['performance'] }, { page: 1, perPage: 10 });
        expect(performance.items).toEqual([samples[0], samples[2], samples[4], samples[5]]);
        expect((await storage.metrics.find({ kinds: ['performance'], source: 'runtime', start: start + 1000 }, { page: 1, perPage: 10 })).items).toEqual([samples[2], samples[4]]);
        expect(await storage.metrics.latest('performance')).toEqual(samples[5]);
        expect(await storage.metrics.latest('performance', 'runtime')).toEqual(samples[4]);
        expect(await storage.metrics.latest('gpu')).toBeNull();
        const scanned = await collectCursor((paging) => storage.metrics.scan({}, paging), 4);
        expect(scanned.items).toEqual(samples);
        await expectCode(storage.metrics.append([{ timestamp: start, kind: 'x', source: 'y', values: { a: 'b' as unknown as number } }]), StorageErrors.invalid.code);
      });
    });

    describe('sensing frames', () => {
      let storage: Storage;
      let start: number;
      beforeAll(async () => {
        storage = await fresh();
        start = fixtureStart();
      });

      it('reads its writes before any flush, round-trips a frame exactly, filters by room, scope and link and pages in both orders', async () => {
        const link = { tx: 'router', rx: 'esp32-a' };
        const frames = [
          makeSensingFrame(start + 1000, { second: 0, state: 'moving', motion: 0.91, breathingBpm: null, breathingReason: 'moving', breathingQuality: null, activity: 'walking' }),
          makeSensingFrame(start + 1000, { second: 0, scope: 'link', link, state: 'moving', motion: 0.88, breathingBpm: null, breathingReason: 'moving', breathingQuality: null }),
          makeSensingFrame(start + 2000, { second: 1, activity: 'fall', state: 'moving', motion: 0.97, falls: [{ time: start + 1400, confidence: 0.93 }], breathingBpm: null, breathingReason: 'moving', breathingQuality: null }),
          makeSensingFrame(start + 3000, { second: 2 }),
          makeSensingFrame(start + 3000, { second: 2, environmentId: 'office', presence: false, state: 'empty', motion: 0.01, breathingBpm: null, breathingReason: 'empty', breathingQuality: null, provenance: 'live' }),
        ];
        // Appended out of time order: reads come back in time order, ties by arrival.
        await storage.sensing.append([frames[3]!, frames[0]!, frames[1]!, frames[2]!, frames[4]!]);
        const all = await storage.sensing.find({}, { page: 1, perPage: 10 });
        expect(all.total).toBe(5);
        expect(all.items).toEqual([frames[0], frames[1], frames[2], frames[3], frames[4]]);
        expect((await storage.sensing.find({ environmentId: 'lab', scope: 'room' }, { page: 1, perPage: 10 })).items).toEqual([frames[0], frames[2], frames[3]]);
        expect((await storage.sensing.find({ scope: 'link', link: 'router>esp32-a' }, { page: 1, perPage: 10 })).items).toEqual([frames[1]]);
        expect((await storage.sensing.find({ link: 'router>nobody' }, { page: 1, perPage: 10 })).total).toBe(0);
        expect((await storage.sensing.find({ start: start + 2000, end: start + 3000, environmentId: 'lab' }, { page: 1, perPage: 10 })).items).toEqual([frames[2], frames[3]]);
        expect((await storage.sensing.find({ order: 'desc', environmentId: 'lab', scope: 'room' }, { page: 1, perPage: 2 })).items).toEqual([frames[3], frames[2]]);
        const scanned = await collectCursor((paging) => storage.sensing.scan({ environmentId: 'lab' }, paging), 2);
        expect(scanned.items).toEqual([frames[0], frames[1], frames[2], frames[3]]);
        expect(await storage.sensing.latest({ environmentId: 'lab', scope: 'room' })).toEqual(frames[3]);
        expect(await storage.sensing.latest({ environmentId: 'office' })).toEqual(frames[4]);
        expect(await storage.sensing.latest({ environmentId: 'nowhere' })).toBeNull();
      });

      it('refuses malformed frames and queries with WIFLOW_STORAGE_INVALID, naming the field', async () => {
        await expect(storage.sensing.append([makeSensingFrame(Number.NaN)])).rejects.toMatchObject({ code: StorageErrors.invalid.code, message: expect.stringContaining('time') });
        await expect(storage.sensing.append([makeSensingFrame(start, { state: 'asleep' as never })])).rejects.toMatchObject({ code: StorageErrors.invalid.code, message: expect.stringContaining('state') });
        await expect(storage.sensing.append([makeSensingFrame(start, { scope: 'link', link: null })])).rejects.toMatchObject({ code: StorageErrors.invalid.code, message: expect.stringContaining('link') });
        await expectCode(storage.sensing.find({ scope: 'house' as never }, { page: 1, perPage: 10 }), StorageErrors.invalid.code);
        await expectCode(storage.sensing.find({ start: 10, end: 5 }, { page: 1, perPage: 10 }), StorageErrors.invalid.code);
      });
    });

    describe('flows, revisions, projects', () => {
      let storage: Storage;
      beforeAll(async () => {
        storage = await fresh();
      });

      it('creates flows with defaults and unique names per user', async () => {
        const flow = await storage.flows.create({ name: 'Fall alerts', userId: 'u1', data: { nodes: [{ id: 'a' }], edges: [], viewport: { x: 0, y: 0, zoom: 1 } }, endpointName: 'falls' });
        expect(flow).toMatchObject({ name: 'Fall alerts', userId: 'u1', revision: 1, accessType: 'PRIVATE', isComponent: false, locked: false, mcpEnabled: false, webhook: false, tags: [], folderId: null, description: null });
        expect(flow.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(await storage.flows.get(flow.id)).toEqual(flow);
        expect(await storage.flows.getByName('u1', 'Fall alerts')).toEqual(flow);
        expect(await storage.flows.getByEndpointName('u1', 'falls')).toEqual(flow);
        expect(await storage.flows.getByName('u2', 'Fall alerts')).toBeNull();
        await expectCode(storage.flows.create({ name: 'Fall alerts', userId: 'u1' }), StorageErrors.duplicate.code);
        await expectCode(storage.flows.create({ name: 'Other', userId: 'u1', endpointName: 'falls' }), StorageErrors.duplicate.code);
        await expectCode(storage.flows.create({ name: 'Same id', id: flow.id }), StorageErrors.duplicate.code);
        await expectCode(storage.flows.create({ name: '' }), StorageErrors.invalid.code);
        const other = await storage.flows.create({ name: 'Fall alerts', userId: 'u2' });
        expect(other.userId).toBe('u2');
        const anonymous = await storage.flows.create({ name: 'Fall alerts' });
        expect(await storage.flows.getByName(null, 'Fall alerts')).toEqual(anonymous);
      });

      it('updates with optimistic concurrency and keeps every revision', async () => {
        const flow = await storage.flows.create({ name: 'Retail', userId: 'u3' }, { author: 'u3', message: 'created' });
        const v2 = await storage.flows.update(flow.id, { description: 'zones', tags: ['retail'] }, { expectedRevision: 1, author: 'u3', message: 'describe' });
        expect(v2).toMatchObject({ revision: 2, description: 'zones', tags: ['retail'], name: 'Retail', createdAt: flow.createdAt });
        expect(v2.updatedAt).toBeGreaterThanOrEqual(flow.updatedAt);
        await expectCode(storage.flows.update(flow.id, { description: 'stale' }, { expectedRevision: 1 }), StorageErrors.conflict.code);
        expect((await storage.flows.get(flow.id))?.description).toBe('zones');
        const v3 = await storage.flows.update(flow.id, { name: 'Retail 2', data: { nodes: [], edges: [] } });
        expect(v3.revision).toBe(3);
        await storage.flows.create({ name: 'Taken', userId: 'u3' });
        await expectCode(storage.flows.update(flow.id, { name: 'Taken' }), StorageErrors.duplicate.code);
        await expectCode(storage.flows.update('no-such-flow', { name: 'x' }), StorageErrors.notFound.code);
        const revisions = await storage.revisions.list(flow.id, { page: 1, perPage: 10 });
        expect(revisions.total).toBe(3);
        expect(revisions.items.map((r) => r.revision)).toEqual([3, 2, 1]);
        expect(revisions.items[2]).toMatchObject({ flowId: flow.id, author: 'u3', message: 'created', flow });
        expect((await storage.revisions.get(flow.id, 2))?.flow).toEqual(v2);
        expect(await storage.revisions.get(flow.id, 9)).toBeNull();
        expect(await storage.flows.delete(flow.id)).toBe(true);
        expect(await storage.flows.delete(flow.id)).toBe(false);
        expect(await storage.flows.get(flow.id)).toBeNull();
        expect((await storage.revisions.list(flow.id, { page: 1, perPage: 10 })).total).toBe(0);
      });

      it('lists flows by user, folder and flags, newest first, with or without data', async () => {
        const project = await storage.projects.create({ name: 'Home', userId: 'u4' });
        const a = await storage.flows.create({ name: 'A', userId: 'u4', folderId: project.id, data: { nodes: [], edges: [] } });
        const b = await storage.flows.create({ name: 'B', userId: 'u4', isComponent: true, mcpEnabled: true });
        const c = await storage.flows.update((await storage.flows.create({ name: 'C search me', userId: 'u4', accessType: 'PUBLIC' })).id, { locked: true });
        const all = await storage.flows.list({ userId: 'u4' }, { page: 1, perPage: 10 });
        expect(all.total).toBe(3);
        expect(new Set(all.items.map((f) => f.id))).toEqual(new Set([a.id, b.id, c.id]));
        for (let i = 1; i < all.items.length; i++) expect(all.items[i - 1]!.updatedAt).toBeGreaterThanOrEqual(all.items[i]!.updatedAt);
        expect((await storage.flows.list({ userId: 'u4', folderId: project.id }, { page: 1, perPage: 10 })).items.map((f) => f.id)).toEqual([a.id]);
        expect((await storage.flows.list({ userId: 'u4', folderId: null }, { page: 1, perPage: 10 })).total).toBe(2);
        expect((await storage.flows.list({ userId: 'u4', isComponent: true }, { page: 1, perPage: 10 })).items.map((f) => f.id)).toEqual([b.id]);
        expect((await storage.flows.list({ userId: 'u4', mcpEnabled: true }, { page: 1, perPage: 10 })).items.map((f) => f.id)).toEqual([b.id]);
        expect((await storage.flows.list({ userId: 'u4', accessType: 'PUBLIC' }, { page: 1, perPage: 10 })).items.map((f) => f.id)).toEqual([c.id]);
        expect((await storage.flows.list({ userId: 'u4', search: 'SEARCH' }, { page: 1, perPage: 10 })).items.map((f) => f.id)).toEqual([c.id]);
        const headers = await storage.flows.list({ userId: 'u4', folderId: project.id, includeData: false }, { page: 1, perPage: 10 });
        expect(headers.items[0]!.data).toBeNull();
        const paged = await storage.flows.list({ userId: 'u4' }, { page: 2, perPage: 2 });
        expect(paged).toMatchObject({ total: 3, totalPages: 2, hasPrev: true, hasNext: false });
        expect(paged.items).toHaveLength(1);
      });

      it('manages projects: unique names per user, update, delete detaching or deleting flows', async () => {
        const p = await storage.projects.create({ name: 'Clinic', userId: 'u5', description: 'ward', authSettings: { auth_type: 'apikey' } });
        expect(p).toMatchObject({ name: 'Clinic', userId: 'u5', description: 'ward', parentId: null, authSettings: { auth_type: 'apikey' } });
        expect(await storage.projects.get(p.id)).toEqual(p);
        expect(await storage.projects.getByName('u5', 'Clinic')).toEqual(p);
        await expectCode(storage.projects.create({ name: 'Clinic', userId: 'u5' }), StorageErrors.duplicate.code);
        const child = await storage.projects.create({ name: 'Ward 2', userId: 'u5', parentId: p.id });
        expect((await storage.projects.list({ userId: 'u5' }, { page: 1, perPage: 10 })).items.map((x) => x.name)).toEqual(['Clinic', 'Ward 2']);
        expect((await storage.projects.list({ userId: 'u5', parentId: null }, { page: 1, perPage: 10 })).items.map((x) => x.id)).toEqual([p.id]);
        expect((await storage.projects.list({ parentId: p.id }, { page: 1, perPage: 10 })).items.map((x) => x.id)).toEqual([child.id]);
        const renamed = await storage.projects.update(p.id, { name: 'Clinic A' });
        expect(renamed).toMatchObject({ name: 'Clinic A', description: 'ward' });
        await expectCode(storage.projects.update(p.id, { name: 'Ward 2' }), StorageErrors.duplicate.code);
        await expectCode(storage.projects.update('missing', { name: 'x' }), StorageErrors.notFound.code);
        const kept = await storage.flows.create({ name: 'kept', userId: 'u5', folderId: p.id });
        expect(await storage.projects.delete(p.id)).toBe(true);
        expect(await storage.projects.get(p.id)).toBeNull();
        expect((await storage.flows.get(kept.id))?.folderId).toBeNull();
        const gone = await storage.flows.create({ name: 'gone', userId: 'u5', folderId: child.id });
        expect(await storage.projects.delete(child.id, { flows: 'delete' })).toBe(true);
        expect(await storage.flows.get(gone.id)).toBeNull();
        expect(await storage.projects.delete(child.id)).toBe(false);
      });
    });

    describe('messages and files', () => {
      let storage: Storage;
      beforeAll(async () => {
        storage = await fresh();
      });

      it('stores messages by session, updates and deletes them', async () => {
        const m1 = await storage.messages.append({ sessionId: 's1', sender: 'User', senderName: 'alice', text: 'hello', flowId: 'f1', timestamp: 1000 });
        expect(m1).toMatchObject({ category: 'message', contentBlocks: [], edit: false, error: false, files: [], properties: {}, contextId: null });
        const m2 = await storage.messages.append({ sessionId: 's1', sender: 'Machine', senderName: 'AI', text: 'hi', flowId: 'f1', timestamp: 2000, contentBlocks: [{ title: 't', contents: [] }] });
        await storage.messages.append({ sessionId: 's2', sender: 'User', senderName: 'bob', text: 'yo', flowId: 'f2', timestamp: 3000 });
        expect(await storage.messages.get(m2.id)).toEqual(m2);
        expect((await storage.messages.find({ sessionId: 's1' }, { page: 1, perPage: 10 })).items).toEqual([m1, m2]);
        expect((await storage.messages.find({ flowId: 'f1', sender: 'Machine' }, { page: 1, perPage: 10 })).items).toEqual([m2]);
        expect((await storage.messages.find({ order: 'desc' }, { page: 1, perPage: 1 })).items[0]?.text).toBe('yo');
        expect(await storage.messages.sessions()).toEqual(['s2', 's1']);
        expect(await storage.messages.sessions('f1')).toEqual(['s1']);
        const edited = await storage.messages.update(m1.id, { text: 'hello!', edit: true });
        expect(edited).toMatchObject({ id: m1.id, text: 'hello!', edit: true, sessionId: 's1' });
        await expectCode(storage.messages.update('missing', { text: 'x' }), StorageErrors.notFound.code);
        expect(await storage.messages.delete([m1.id, 'missing'])).toBe(1);
        expect(await storage.messages.deleteSession('s1')).toBe(1);
        expect((await storage.messages.find({}, { page: 1, perPage: 10 })).total).toBe(1);
        await expectCode(storage.messages.append({ sessionId: 's', sender: 'x', senderName: 'y' } as never), StorageErrors.invalid.code);
      });

      it('keeps file metadata', async () => {
        const f = await storage.files.create({ name: 'capture.dat', path: 'uploads/u1/capture.dat', size: 1234, mimeType: 'application/octet-stream', userId: 'u1', sha256: 'b'.repeat(64) });
        expect(f).toMatchObject({ name: 'capture.dat', size: 1234, userId: 'u1', flowId: null });
        expect(await storage.files.get(f.id)).toEqual(f);
        const g = await storage.files.create({ name: 'b.csv', path: 'uploads/u1/b.csv', size: 5, mimeType: 'text/csv', userId: 'u1', flowId: 'f1' });
        await storage.files.create({ name: 'c.csv', path: 'uploads/u2/c.csv', size: 5, mimeType: 'text/csv', userId: 'u2' });
        expect((await storage.files.list({ userId: 'u1' }, { page: 1, perPage: 10 })).total).toBe(2);
        expect((await storage.files.list({ flowId: 'f1' }, { page: 1, perPage: 10 })).items.map((x) => x.id)).toEqual([g.id]);
        const renamed = await storage.files.update(f.id, { name: 'renamed.dat' });
        expect(renamed).toMatchObject({ id: f.id, name: 'renamed.dat', size: 1234, createdAt: f.createdAt });
        await expectCode(storage.files.update('missing', { name: 'x' }), StorageErrors.notFound.code);
        await expectCode(storage.files.create({ name: 'x', path: '', size: 1, mimeType: 'a' }), StorageErrors.invalid.code);
        expect(await storage.files.delete(f.id)).toBe(true);
        expect(await storage.files.get(f.id)).toBeNull();
      });
    });

    describe('users, API keys, refresh tokens, settings', () => {
      let storage: Storage;
      beforeAll(async () => {
        storage = await fresh();
      });

      it('hashes passwords, never returns them, verifies in constant time', async () => {
        const user = await storage.users.create({ username: 'Alice', password: 'correct horse', roles: ['admin'] });
        expect(user).toMatchObject({ username: 'Alice', roles: ['admin'], isActive: true, isSuperuser: false, lastLoginAt: null });
        expect(JSON.stringify(user)).not.toMatch(/correct horse|scrypt|password/i);
        expect(await storage.users.getByUsername('alice')).toEqual(user);
        await expectCode(storage.users.create({ username: 'ALICE', password: 'x' }), StorageErrors.duplicate.code);
        await expectCode(storage.users.create({ username: 'bob', password: '' }), StorageErrors.invalid.code);
        expect(await storage.users.verifyPassword('alice', 'correct horse')).toEqual(user);
        expect(await storage.users.verifyPassword('alice', 'wrong')).toBeNull();
        expect(await storage.users.verifyPassword('nobody', 'correct horse')).toBeNull();
        await storage.users.setPassword(user.id, 'battery staple');
        expect(await storage.users.verifyPassword('alice', 'correct horse')).toBeNull();
        expect(await storage.users.verifyPassword('Alice', 'battery staple')).not.toBeNull();
        const updated = await storage.users.update(user.id, { isActive: false, lastLoginAt: 42, profile: { locale: 'en' } });
        expect(updated).toMatchObject({ isActive: false, lastLoginAt: 42, profile: { locale: 'en' } });
        expect(await storage.users.verifyPassword('alice', 'battery staple')).toBeNull();
        await expectCode(storage.users.setPassword('missing', 'x'), StorageErrors.notFound.code);
        await storage.users.create({ username: 'bob', password: 'b' });
        expect(await storage.users.count()).toBe(2);
        expect((await storage.users.list({ page: 1, perPage: 10 })).items.map((u) => u.username)).toEqual(['Alice', 'bob']);
        await expectCode(storage.users.update(user.id, { username: 'BOB' }), StorageErrors.duplicate.code);
      });

      it('stores API keys as hashes, verifies, expires and revokes them', async () => {
        const user = await storage.users.create({ username: 'keyholder', password: 'pw' });
        const { record, key } = await storage.apiKeys.create({ userId: user.id, name: 'ci', scopes: ['pose:read'] });
        expect(key).toMatch(/^wf_[A-Za-z0-9_-]{43}$/);
        expect(record).toMatchObject({ userId: user.id, name: 'ci', scopes: ['pose:read'], prefix: key.slice(0, 8), revokedAt: null, lastUsedAt: null });
        expect(JSON.stringify(await storage.apiKeys.list(user.id))).not.toContain(key.slice(8));
        const verified = await storage.apiKeys.verify(key, 1000);
        expect(verified).toMatchObject({ id: record.id, lastUsedAt: 1000 });
        expect((await storage.apiKeys.get(record.id))?.lastUsedAt).toBe(1000);
        expect(await storage.apiKeys.verify(key + 'x')).toBeNull();
        expect(await storage.apiKeys.verify('')).toBeNull();
        const expiring = await storage.apiKeys.create({ userId: user.id, name: 'short', expiresAt: 5000, key: 'given-key-0123456789' });
        expect(expiring.key).toBe('given-key-0123456789');
        expect(await storage.apiKeys.verify('given-key-0123456789', 4999)).not.toBeNull();
        expect(await storage.apiKeys.verify('given-key-0123456789', 5000)).toBeNull();
        await expectCode(storage.apiKeys.create({ userId: user.id, name: 'dup', key: 'given-key-0123456789' }), StorageErrors.duplicate.code);
        expect((await storage.apiKeys.list(user.id)).map((k) => k.name)).toEqual(['short', 'ci']);
        expect(await storage.apiKeys.revoke(record.id, 2000)).toBe(true);
        expect(await storage.apiKeys.verify(key)).toBeNull();
        expect((await storage.apiKeys.get(record.id))?.revokedAt).toBe(2000);
        expect(await storage.apiKeys.revoke('missing')).toBe(false);
        expect(await storage.apiKeys.delete(expiring.record.id)).toBe(true);
        expect(await storage.apiKeys.get(expiring.record.id)).toBeNull();
      });

      it('rotates refresh tokens once and revokes the family on reuse', async () => {
        const now = Date.now();
        const first = await storage.refreshTokens.issue({ userId: 'u9', expiresAt: now + DAY });
        expect(first.token).toMatch(/^wfr_/);
        const used = await storage.refreshTokens.consume(first.token, now);
        expect(used).toMatchObject({ status: 'ok', token: { id: first.record.id, usedAt: now } });
        const second = await storage.refreshTokens.issue({ userId: 'u9', expiresAt: now + DAY, familyId: first.record.familyId });
        const reuse = await storage.refreshTokens.consume(first.token, now + 1);
        expect(reuse.status).toBe('reused');
        expect(await storage.refreshTokens.consume(second.token, now + 2)).toMatchObject({ status: 'revoked' });
        expect(await storage.refreshTokens.consume('wfr_nonsense')).toEqual({ status: 'invalid' });
        const short = await storage.refreshTokens.issue({ userId: 'u9', expiresAt: now + 10 });
        expect(await storage.refreshTokens.consume(short.token, now + 10)).toMatchObject({ status: 'expired' });
        const other = await storage.refreshTokens.issue({ userId: 'u10', expiresAt: now + DAY });
        expect(await storage.refreshTokens.revokeUser('u10')).toBe(1);
        expect(await storage.refreshTokens.consume(other.token)).toMatchObject({ status: 'revoked' });
        const fam = await storage.refreshTokens.issue({ userId: 'u11', expiresAt: now + DAY });
        expect(await storage.refreshTokens.revokeFamily(fam.record.familyId)).toBe(1);
        expect(await storage.refreshTokens.purgeExpired(now + 11)).toBe(1);
        expect(await storage.refreshTokens.consume(short.token)).toEqual({ status: 'invalid' });
      });

      it('lets one of two racing consumers of a refresh token win, and treats the other as reuse', async () => {
        const now = Date.now();
        const issued = await storage.refreshTokens.issue({ userId: 'u12', expiresAt: now + DAY });
        const outcomes = await Promise.all([storage.refreshTokens.consume(issued.token, now), storage.refreshTokens.consume(issued.token, now)]);
        expect(outcomes.map((o) => o.status).sort()).toEqual(['ok', 'reused']);
        const next = await storage.refreshTokens.issue({ userId: 'u12', expiresAt: now + DAY, familyId: issued.record.familyId });
        expect(await storage.refreshTokens.revokeFamily(issued.record.familyId)).toBe(1);
        expect(await storage.refreshTokens.consume(next.token, now)).toMatchObject({ status: 'revoked' });
      });

      it('never lets a key use undo its revocation', async () => {
        const user = await storage.users.create({ username: 'racer', password: 'pw' });
        const { record, key } = await storage.apiKeys.create({ userId: user.id, name: 'raced' });
        await Promise.all([storage.apiKeys.verify(key, 3000), storage.apiKeys.revoke(record.id, 3000)]);
        expect((await storage.apiKeys.get(record.id))?.revokedAt).toBe(3000);
        expect(await storage.apiKeys.verify(key)).toBeNull();
      });

      it('deletes a user with their keys and tokens', async () => {
        const user = await storage.users.create({ username: 'leaver', password: 'pw' });
        const { key } = await storage.apiKeys.create({ userId: user.id, name: 'k' });
        const { token } = await storage.refreshTokens.issue({ userId: user.id, expiresAt: Date.now() + DAY });
        expect(await storage.users.delete(user.id)).toBe(true);
        expect(await storage.users.get(user.id)).toBeNull();
        expect(await storage.apiKeys.verify(key)).toBeNull();
        expect(await storage.refreshTokens.consume(token)).toEqual({ status: 'invalid' });
        expect(await storage.users.delete(user.id)).toBe(false);
      });

      it('keeps settings documents with revisions', async () => {
        expect(await storage.settings.get('mcp', 'project-1')).toBeNull();
        const created = await storage.settings.set('mcp', 'project-1', { auth_type: 'none', tools: ['a'] }, { expectedRevision: 0 });
        expect(created).toMatchObject({ namespace: 'mcp', key: 'project-1', value: { auth_type: 'none', tools: ['a'] }, revision: 1 });
        await expectCode(storage.settings.set('mcp', 'project-1', { x: 1 }, { expectedRevision: 0 }), StorageErrors.conflict.code);
        const second = await storage.settings.set('mcp', 'project-1', { auth_type: 'apikey' });
        expect(second.revision).toBe(2);
        await storage.settings.set('mcp', 'another', [1, 2, 3]);
        await storage.settings.set('webhooks', 'w1', 'https://example.test/hook');
        expect((await storage.settings.list('mcp')).map((s) => [s.key, s.value])).toEqual([['another', [1, 2, 3]], ['project-1', { auth_type: 'apikey' }]]);
        expect((await storage.settings.get('webhooks', 'w1'))?.value).toBe('https://example.test/hook');
        expect(await storage.settings.delete('mcp', 'another')).toBe(true);
        expect(await storage.settings.delete('mcp', 'another')).toBe(false);
        await expectCode(storage.settings.set('', 'k', 1), StorageErrors.invalid.code);
      });
    });

    describe('jobs', () => {
      const job = (id: string, createdAt: number, fields: Partial<JobRecord> = {}): JobRecord => ({
        id,
        flowId: 'f1',
        flowName: 'Shout',
        userId: 'u1',
        runnerId: 'r1',
        status: 'completed',
        createdAt,
        startedAt: createdAt + 1,
        finishedAt: createdAt + 2,
        error: null,
        errorCode: null,
        labels: { source: 'build' },
        outputs: { result: 'HELLO', many: [1, { a: null }] },
        events: [
          { seq: 1, event: 'job_queued', data: { job_id: id }, timestamp: createdAt },
          { seq: 4, event: 'end', data: { status: 'completed' }, timestamp: createdAt + 2 },
        ],
        eventsOmitted: 2,
        ...fields,
      });

      const summary = ({ outputs: _outputs, events: _events, ...rest }: JobRecord) => rest;

      it('saves, replaces and reads jobs back whole, lists them without outputs and log, newest first, filtered', async () => {
        const storage = await fresh();
        // A running job carries its runtime's last write (its lease), in the summary too.
        const a = job('a', 1000, { status: 'in_progress', finishedAt: null, heartbeatAt: 1500 });
        await storage.jobs.save(a);
        expect(await storage.jobs.get('a')).toEqual(a);
        expect(await storage.jobs.get('missing')).toBeNull();
        await storage.jobs.save(job('b', 2000, { userId: 'u2', flowId: 'f2', status: 'failed', error: 'boom', errorCode: 'WIFLOW_JOB_INTERRUPTED' }));
        await storage.jobs.save(job('c', 2000, { userId: null, flowId: null, flowName: null, labels: {} }));
        // c ties b on createdAt and was saved later: it is newer
        const all = await storage.jobs.list({}, { page: 1, perPage: 10 });
        expect(all.items.map((j) => j.id)).toEqual(['c', 'b', 'a']);
        expect(all.items[2]).toEqual(summary(a));
        expect(all.total).toBe(3);
        const done = job('a', 1000);
        await storage.jobs.save(done);
        expect(await storage.jobs.get('a')).toEqual(done);
        expect((await storage.jobs.list({}, { page: 1, perPage: 10 })).items.map((j) => j.id)).toEqual(['c', 'b', 'a']);
        expect((await storage.jobs.list({ userId: 'u1' }, { page: 1, perPage: 10 })).items.map((j) => j.id)).toEqual(['a']);
        expect((await storage.jobs.list({ flowId: 'f2' }, { page: 1, perPage: 10 })).items.map((j) => j.id)).toEqual(['b']);
        await storage.jobs.save(job('e', 500, { runnerId: 'r2', status: 'queued', finishedAt: null }));
        expect((await storage.jobs.list({ runnerId: 'r2', statuses: ['queued', 'in_progress'] }, { page: 1, perPage: 10 })).items.map((j) => j.id)).toEqual(['e']);
        expect((await storage.jobs.list({ runnerId: 'r1', statuses: ['queued', 'in_progress'] }, { page: 1, perPage: 10 })).items).toEqual([]);
        expect(await storage.jobs.keepNewest(3)).toBe(1);
        expect((await storage.jobs.list({ statuses: ['failed', 'queued'] }, { page: 1, perPage: 10 })).items).toEqual([summary(job('b', 2000, { userId: 'u2', flowId: 'f2', status: 'failed', error: 'boom', errorCode: 'WIFLOW_JOB_INTERRUPTED' }))]);
        const second = await storage.jobs.list({}, { page: 2, perPage: 2 });
        expect(second).toMatchObject({ page: 2, perPage: 2, total: 3, totalPages: 2, hasNext: false, hasPrev: true });
        expect(second.items.map((j) => j.id)).toEqual(['a']);
        await expectCode(storage.jobs.save({ ...job('d', 1), status: 'running' as never }), StorageErrors.invalid.code);
        await expectCode(storage.jobs.save({ ...job('', 1) }), StorageErrors.invalid.code);
        await expectCode(storage.jobs.list({ statuses: ['done' as never] }, { page: 1, perPage: 10 }), StorageErrors.invalid.code);
        await expectCode(storage.jobs.list({}, { page: 0, perPage: 10 }), StorageErrors.invalid.code);
      });

      it('keeps the newest jobs and deletes the rest; age retention leaves them alone', async () => {
        const storage = await fresh({ dataRetentionDays: 1 });
        for (let i = 0; i < 5; i++) await storage.jobs.save(job(`j${i}`, 1000 + i));
        await storage.jobs.save(job('j0', 1000, { status: 'failed' }));
        await storage.applyRetention(Date.now());
        expect((await storage.jobs.list({}, { page: 1, perPage: 10 })).total).toBe(5);
        expect(await storage.jobs.keepNewest(3)).toBe(2);
        expect((await storage.jobs.list({}, { page: 1, perPage: 10 })).items.map((j) => j.id)).toEqual(['j4', 'j3', 'j2']);
        expect(await storage.jobs.get('j0')).toBeNull();
        expect(await storage.jobs.keepNewest(3)).toBe(0);
        expect(await storage.jobs.keepNewest(0)).toBe(3);
        await expectCode(storage.jobs.keepNewest(-1), StorageErrors.invalid.code);
      });
    });

    describe('retention', () => {
      it('deletes time-series data older than data_retention_days and keeps the rest', async () => {
        const storage = await fresh({ dataRetentionDays: 7 });
        const now = Date.now();
        const old = now - 8 * DAY;
        const recent = now - DAY;
        const frame = (timestamp: number, frameId: number): PoseFrame => ({ timestamp, frameId, environmentId: 'lab', processingTimeMs: 1, persons: [makePerson(0, 1, 0.9, 0, 0)], metadata: FIXTURE_METADATA });
        await storage.poses.append([frame(old, 1), frame(old + 1, 2), frame(recent, 3)]);
        await storage.events.append([makeEvent('old', old), makeEvent('new', recent)]);
        await storage.alerts.append([makeAlert('old', old), makeAlert('new', recent)]);
        await storage.metrics.append([{ timestamp: old, kind: 'performance', source: 'r', values: { a: 1 } }, { timestamp: recent, kind: 'performance', source: 'r', values: { a: 2 } }]);
        await storage.sensing.append([makeSensingFrame(old), makeSensingFrame(old + 1000), makeSensingFrame(recent)]);
        const flow = await storage.flows.create({ name: 'kept forever' });
        const report = await storage.applyRetention(now);
        expect(report).toEqual({ cutoff: now - 7 * DAY, poseFrames: 2, personRecords: 2, events: 1, alerts: 1, metrics: 1, sensingFrames: 2 });
        expect((await storage.poses.findFrames({}, { page: 1, perPage: 10 })).items.map((f) => f.frameId)).toEqual([3]);
        expect((await storage.poses.findRecords({}, { page: 1, perPage: 10 })).total).toBe(1);
        expect(await storage.poses.availableRange('lab')).toMatchObject({ earliest: recent, latest: recent, frameCount: 1 });
        expect(await storage.events.get('old')).toBeNull();
        expect(await storage.events.get('new')).not.toBeNull();
        expect(await storage.alerts.get('old')).toBeNull();
        expect((await storage.metrics.find({}, { page: 1, perPage: 10 })).total).toBe(1);
        expect((await storage.sensing.find({}, { page: 1, perPage: 10 })).items.map((f) => f.time)).toEqual([recent]);
        expect(await storage.flows.get(flow.id)).not.toBeNull();
        expect(await storage.applyRetention(now)).toMatchObject({ poseFrames: 0, events: 0 });
      });
    });

    describe('anonymisation', () => {
      it('stores no person or track ids when anonymize_data is on', async () => {
        const storage = await fresh({ anonymizeData: true });
        expect(storage.privacy().anonymizeData).toBe(true);
        const start = fixtureStart();
        const frames = poseFixture(start).filter((f) => f.environmentId === 'office');
        await storage.poses.append(frames);
        await storage.events.append([makeEvent('e', start)]);
        await storage.flush();
        const stored = await storage.poses.findFrames({}, { page: 1, perPage: 100 });
        expect(stored.total).toBe(10);
        for (const frame of stored.items) {
          for (const person of frame.persons) {
            expect(person.id).toBeNull();
            expect(person.trackId).toBeNull();
            expect(person.keypoints).toEqual(storedPerson(frames[0]!.persons[0]!).keypoints);
          }
        }
        const records = await storage.poses.findRecords({}, { page: 1, perPage: 100 });
        expect(records.items.every((r) => r.personId === null && r.trackId === null && r.person.id === null)).toBe(true);
        expect((await storage.poses.findRecords({ trackId: 100 }, { page: 1, perPage: 10 })).total).toBe(0);
        expect((await storage.poses.findRecords({ personId: 0 }, { page: 1, perPage: 10 })).total).toBe(0);
        expect(await storage.tracks.get(100)).toBeNull();
        expect((await storage.tracks.list({}, { page: 1, perPage: 10 })).total).toBe(0);
        expect(await storage.events.get('e')).toMatchObject({ personId: null, trackId: null });
        const aggregate = await storage.poses.aggregate({ start, end: start + HOUR });
        expect(aggregate.buckets[0]).toMatchObject({ personRecords: 10, uniqueTracks: 0 });
      });
    });
  });
}
