// Jobs survive a restart: they are kept in the runtime's storage (a real SQLite file), read back
// over real HTTP by a new server on the same data directory; a job the process was running when
// it was killed (SIGKILL) reads `failed` with WIFLOW_JOB_INTERRUPTED, with the events it had
// logged up to the last checkpoint (`jobs.checkpointMs`).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { SqliteStorage } from '@wiflow/plugin-sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { CoreErrors, JOB_RECORD_LIMITS } from '@wiflow/core';
import { startChildStudio, type ChildStudio } from '../testing/child-studio.js';
import { chainFlow, startTestStudio, upperFlow, type TestStudio } from '../testing/test-plugins.js';

type JobSummary = { job_id: string; flow_id: string | null; flow_name: string | null; status: string; source: string | null; created_at: string; started_at: string | null; finished_at: string | null; error: string | null; error_code: string | null };
type WireEvent = { event: string; seq: number; data: Record<string, unknown> };

const events = (text: string): WireEvent[] => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as WireEvent);

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const server of open.reverse()) await server.close();
});

async function studioOn(dataDir?: string, jobs?: Record<string, unknown>): Promise<TestStudio> {
  const studio = await startTestStudio({ dataDir, jobs });
  open.push(studio);
  return studio;
}

describe('jobs after a restart (in-process, clean stop)', () => {
  it('lists the jobs of the last run and replays their events, outputs and ownership as before', async () => {
    const first = await studioOn();
    const flow = (await first.http.post('/api/v1/flows/').set(first.alice.auth).send({ name: 'Shout', data: upperFlow() }).expect(201)).body as { id: string };
    const started = await first.http.post(`/api/v1/build/${flow.id}/flow?event_delivery=polling`).set(first.alice.auth).send({ inputs: { input_value: 'hello' } }).expect(200);
    const jobId = started.body.job_id as string;
    await first.runtime.jobs.get(jobId)!.done;
    const before = events((await first.http.get(`/api/v1/build/${jobId}/events?event_delivery=polling&since=0`).set(first.alice.auth).expect(200)).text);
    // the health check's probe job runs but is not stored
    expect((await first.http.get('/health_check').expect(200)).body).toMatchObject({ chat: 'ok' });
    await first.close();

    const second = await studioOn(first.dataDir);
    expect(second.runtime.jobs.get(jobId)).toBeUndefined();
    expect((await second.runtime.storage.jobs.list({}, { page: 1, perPage: 10 })).items.map((j) => j.id)).toEqual([jobId]);
    const list = (await second.http.get('/api/v1/studio/jobs').set(second.alice.auth).expect(200)).body as JobSummary[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ job_id: jobId, flow_id: flow.id, flow_name: 'Shout', status: 'completed', source: 'build', error: null, error_code: null });
    expect(Date.parse(list[0].finished_at!)).toBeGreaterThanOrEqual(Date.parse(list[0].created_at));
    expect((await second.http.get(`/api/v1/studio/jobs?flow_id=${flow.id}`).set(second.alice.auth).expect(200)).body).toHaveLength(1);
    expect((await second.http.get('/api/v1/studio/jobs').set(second.bob.auth).expect(200)).body).toEqual([]);

    const after = events((await second.http.get(`/api/v1/build/${jobId}/events?event_delivery=polling&since=0`).set(second.alice.auth).expect(200)).text);
    expect(after).toEqual(before);
    expect(after.find((e) => e.event === 'output')!.data).toEqual({ name: 'result', value: 'HELLO' });
    expect(after.slice(-2).map((e) => e.event)).toEqual(['job_completed', 'end']);
    // resuming after an event gives what followed it
    expect(events((await second.http.get(`/api/v1/build/${jobId}/events?event_delivery=polling&since=${after.at(-2)!.seq}`).set(second.alice.auth).expect(200)).text).map((e) => e.event)).toEqual(['end']);
    // a direct (NDJSON) stream of an ended job ends at once
    expect(events((await second.http.get(`/api/v1/build/${jobId}/events?event_delivery=direct`).set(second.alice.auth).expect(200)).text)).toEqual(before);
    await second.http.get(`/api/v1/build/${jobId}/events?event_delivery=polling`).set(second.bob.auth).expect(404);
    expect((await second.http.post(`/api/v1/build/${jobId}/cancel`).set(second.alice.auth).expect(200)).body).toMatchObject({ success: false });

    // new runs list before the stored ones
    const next = (await second.http.post(`/api/v1/build/${flow.id}/flow?event_delivery=polling`).set(second.alice.auth).send({ inputs: { input_value: 'again' } }).expect(200)).body.job_id as string;
    await second.runtime.jobs.get(next)!.done;
    expect(((await second.http.get('/api/v1/studio/jobs').set(second.alice.auth).expect(200)).body as JobSummary[]).map((j) => j.job_id)).toEqual([next, jobId]);
  });

  it('stores a long log bounded (first and last events kept, the rest counted) and keeps only the newest jobs.keepStored', async () => {
    const first = await studioOn(undefined, { maxConcurrent: 8, maxPerUser: 4, maxPerFlow: 4, timeoutMs: 60_000, keepStored: 2 });
    const steps = 600;
    const flow = (await first.http.post('/api/v1/flows/').set(first.alice.auth).send({ name: 'Chatty', data: chainFlow([{ type: 'stest.slow', config: { steps, delayMs: 0 } }]) }).expect(201)).body as { id: string };
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = (await first.http.post(`/api/v1/build/${flow.id}/flow?event_delivery=polling`).set(first.alice.auth).send({ inputs: { input_value: String(i) } }).expect(200)).body.job_id as string;
      await first.runtime.jobs.get(id)!.done;
      ids.push(id);
    }
    const live = events((await first.http.get(`/api/v1/build/${ids[2]}/events?event_delivery=polling&since=0`).set(first.alice.auth).expect(200)).text);
    expect(live.length).toBeGreaterThan(steps);
    await first.close();

    const second = await studioOn(first.dataDir, { keepStored: 2 });
    expect(((await second.http.get('/api/v1/studio/jobs').set(second.alice.auth).expect(200)).body as JobSummary[]).map((j) => j.job_id)).toEqual([ids[2], ids[1]]);
    await second.http.get(`/api/v1/build/${ids[0]}/events?event_delivery=polling`).set(second.alice.auth).expect(404);
    const stored = events((await second.http.get(`/api/v1/build/${ids[2]}/events?event_delivery=polling&since=0`).set(second.alice.auth).expect(200)).text);
    const kept = JOB_RECORD_LIMITS.headEvents + JOB_RECORD_LIMITS.tailEvents;
    expect(stored).toEqual([...live.slice(0, JOB_RECORD_LIMITS.headEvents), ...live.slice(live.length - JOB_RECORD_LIMITS.tailEvents)]);
    expect(stored).toHaveLength(kept);
    expect((await second.runtime.storage.jobs.get(ids[2]))!.eventsOmitted).toBe(live.length - kept);
  });
});

describe('jobs of another runtime on a shared database', () => {
  it('leaves another instance\'s running job alone, and ends its own and those of instances not heard of for a whole lease', async () => {
    const first = await studioOn();
    const own = (await first.runtime.storage.jobs.list({}, { page: 1, perPage: 1 })).items;
    expect(own).toEqual([]);
    const base = { flowId: null, flowName: null, userId: first.alice.id, error: null, errorCode: null, labels: {}, outputs: {}, events: [], eventsOmitted: 0, startedAt: 2, finishedAt: null };
    const runnerId = readFileSync(`${first.dataDir}/runner-id`, 'utf8').trim();
    // As a process that died would have left them: one of this runtime's, one of another instance's.
    // Another instance's job it wrote a moment ago (alive), and one it has not written for longer than
    // jobs.leaseMs (60 s by default: gone), and one of an earlier version without a heartbeat, started long ago.
    await first.runtime.storage.jobs.save({ ...base, id: 'mine', runnerId, status: 'in_progress', createdAt: 1 });
    await first.runtime.storage.jobs.save({ ...base, id: 'theirs', runnerId: 'another-instance', status: 'in_progress', createdAt: 1, heartbeatAt: Date.now() });
    await first.runtime.storage.jobs.save({ ...base, id: 'gone', runnerId: 'a-vanished-instance', status: 'in_progress', createdAt: 1, heartbeatAt: Date.now() - 61_000 });
    await first.runtime.storage.jobs.save({ ...base, id: 'older', runnerId: 'an-older-instance', status: 'queued', createdAt: 1, startedAt: null });
    await first.close();
    const second = await studioOn(first.dataDir);
    const list = (await second.http.get('/api/v1/studio/jobs').set(second.alice.auth).expect(200)).body as JobSummary[];
    expect(Object.fromEntries(list.map((j) => [j.job_id, [j.status, j.error_code]]))).toEqual({
      mine: ['failed', 'WIFLOW_JOB_INTERRUPTED'],
      theirs: ['in_progress', null],
      gone: ['failed', 'WIFLOW_JOB_INTERRUPTED'],
      older: ['failed', 'WIFLOW_JOB_INTERRUPTED'],
    });
    const gone = (await second.http.get('/api/v1/build/gone/events?event_delivery=polling&since=0').set(second.alice.auth).expect(200)).text;
    expect(events(gone).map((e) => e.event)).toEqual(['job_failed', 'end']);
  });

  it('ends another instance\'s job once it goes a whole lease unwritten, while its own running job keeps its heartbeat', async () => {
    const s = await studioOn(undefined, { leaseMs: 1000, checkpointMs: 0 });
    const base = { flowId: null, flowName: null, userId: s.alice.id, error: null, errorCode: null, labels: {}, outputs: {}, events: [], eventsOmitted: 0, startedAt: Date.now(), finishedAt: null };
    await s.runtime.storage.jobs.save({ ...base, id: 'theirs', runnerId: 'another-instance', status: 'in_progress', createdAt: Date.now(), heartbeatAt: Date.now() });
    // Its own job: one progress event, then 4 s of quiet (checkpoints off: only the heartbeat writes it).
    const slow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'quiet', data: chainFlow([{ type: 'stest.slow', config: { steps: 1, delayMs: 4000 } }]) }).expect(201)).body.id;
    const own = (await s.http.post(`/api/v1/build/${slow}/flow?event_delivery=polling`).set(s.alice.auth).send({ inputs: { input_value: '1' } }).expect(200)).body.job_id as string;
    const status = async (id: string) => ((await s.http.get('/api/v1/studio/jobs').set(s.alice.auth).expect(200)).body as JobSummary[]).find((j) => j.job_id === id);
    await expect.poll(async () => (await status('theirs'))?.status, { timeout: 10_000, interval: 200 }).toBe('failed');
    expect(await status('theirs')).toMatchObject({ error_code: 'WIFLOW_JOB_INTERRUPTED' });
    // Meanwhile this runtime rewrote its own running job (every quarter lease), so no instance would end it.
    const stored = await s.runtime.storage.jobs.get(own);
    expect(stored).toMatchObject({ status: 'in_progress' });
    expect(Date.now() - stored!.heartbeatAt!).toBeLessThan(1000);
    expect(stored!.heartbeatAt! - stored!.startedAt!).toBeGreaterThan(0);
    expect((await status(own))?.status).toBe('in_progress');
  });
});

describe('a second runtime on the same data directory while the first runs (a CLI command beside wiflow serve)', () => {
  it("leaves the first runtime's running job alone: stored and served in_progress before, during and after the second runtime's start and stop", async () => {
    const child: ChildStudio = await startChildStudio({ jobs: { checkpointMs: 100 } });
    open.push(child);
    const headers = { ...child.auth('operator'), 'content-type': 'application/json' };
    const flow = (await (await fetch(`${child.url}/api/v1/flows/`, { method: 'POST', headers, body: JSON.stringify({ name: 'Never ends', data: chainFlow([{ type: 'child-test.wait', config: { ms: 600_000 } }]) }) })).json()) as { id: string };
    const running = ((await (await fetch(`${child.url}/api/v1/build/${flow.id}/flow?event_delivery=polling`, { method: 'POST', headers, body: JSON.stringify({ inputs: { input_value: '1' } }) })).json()) as { job_id: string }).job_id;
    const served = async () => ((await (await fetch(`${child.url}/api/v1/studio/jobs`, { headers })).json()) as JobSummary[]).find((j) => j.job_id === running)?.status;
    await expect.poll(served, { timeout: 15_000 }).toBe('in_progress');
    const stored = new SqliteStorage({ file: path.join(child.dataDir, 'wiflow.db') });
    await stored.open();
    try {
      await expect.poll(async () => (await stored.jobs.get(running))?.status, { timeout: 15_000 }).toBe('in_progress');
      // The second runtime: it starts on the same directory and database, then stops.
      const second = await startTestStudio({ dataDir: child.dataDir });
      expect((await stored.jobs.get(running))?.status).toBe('in_progress');
      await second.close();
      expect((await stored.jobs.get(running))).toMatchObject({ status: 'in_progress', errorCode: null });
      expect(await served()).toBe('in_progress');
      // The lock still names the first runtime (the second never held it).
      expect(JSON.parse(readFileSync(path.join(child.dataDir, 'runtime.lock'), 'utf8'))).toMatchObject({ pid: child.pid });
    } finally {
      await stored.close();
    }
  });
});

describe('jobs after the process is killed (SIGKILL, child process)', () => {
  it('reads a job that was running as failed with WIFLOW_JOB_INTERRUPTED, with the events it logged before the kill, and the finished one as it was', async () => {
    // A checkpoint every 100 ms: the events a running job logged are stored before the kill.
    let child: ChildStudio = await startChildStudio({ jobs: { checkpointMs: 100 } });
    open.push(child);
    const post = (path: string, body: unknown) => fetch(`${child.url}${path}`, { method: 'POST', headers: { ...child.auth('operator'), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const get = async (path: string) => {
      const response = await fetch(`${child.url}${path}`, { headers: child.auth('operator') });
      expect(response.status).toBe(200);
      return response;
    };
    const waitFor = chainFlow([{ type: 'child-test.wait', config: { ms: 600_000 } }]);
    const done = chainFlow([{ type: 'child-test.wait', config: { ms: 0 } }]);
    const slowFlow = (await (await post('/api/v1/flows/', { name: 'Never ends', data: waitFor })).json()) as { id: string };
    const quickFlow = (await (await post('/api/v1/flows/', { name: 'Ends', data: done })).json()) as { id: string };
    const quick = ((await (await post(`/api/v1/build/${quickFlow.id}/flow?event_delivery=direct`, { inputs: { input_value: '1' } })).text()).includes('"end"'));
    expect(quick).toBe(true);
    const running = ((await (await post(`/api/v1/build/${slowFlow.id}/flow?event_delivery=polling`, { inputs: { input_value: '2' } })).json()) as { job_id: string }).job_id;
    // wait for the event that says the job runs (SSE ends only with the job, so read until job_started)
    const stream = await get(`/api/v1/build/${running}/events?event_delivery=streaming`);
    const reader = stream.body!.getReader();
    for (let text = ''; !text.includes('job_started'); ) text += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(((await (await get('/api/v1/studio/jobs')).json()) as JobSummary[])[0]).toMatchObject({ job_id: running, status: 'in_progress' });
    // The node's progress event reaches the database file while the job runs (read with the
    // storage plugin's own reader, a second connection to the child's file).
    const stored = new SqliteStorage({ file: path.join(child.dataDir, 'wiflow.db') });
    await stored.open();
    try {
      await expect.poll(async () => (await stored.jobs.get(running))?.events.map((e) => e.event), { timeout: 15_000 }).toContain('progress');
    } finally {
      await stored.close();
    }

    const gone = new Promise((resolve) => child.process.once('exit', resolve));
    child.process.kill('SIGKILL');
    await gone;

    child = await startChildStudio({}, { dataDir: child.dataDir });
    open.push(child);
    const list = (await (await get('/api/v1/studio/jobs')).json()) as JobSummary[];
    expect(list.map((j) => [j.flow_name, j.status])).toEqual([['Never ends', 'failed'], ['Ends', 'completed']]);
    expect(list[0]).toMatchObject({ job_id: running, error_code: 'WIFLOW_JOB_INTERRUPTED', error: CoreErrors.jobInterrupted('in_progress').message });
    expect(list[0].finished_at).not.toBeNull();
    const log = events(await (await get(`/api/v1/build/${running}/events?event_delivery=polling&since=0`)).text());
    expect(log.map((e) => e.event)).toEqual(['job_queued', 'job_started', 'progress', 'job_failed', 'end']);
    expect(log[2].data).toMatchObject({ node_id: expect.any(String), message: 'waiting 600000 ms' });
    expect(log[3].data).toMatchObject({ status: 'failed', code: 'WIFLOW_JOB_INTERRUPTED' });
    // the code is documented for users
    expect(readFileSync(new URL('../../../../docs/flow-service.md', import.meta.url), 'utf8')).toContain('WIFLOW_JOB_INTERRUPTED');
  });
});
