// Right after a (re)start /pose/latest served a frame while /pose/history answered 404: the
// hub batches storage writes (and SQLite buffers its own). History and analytics now read
// what latest served, and frame ids continue across a restart on the same SQLite file.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, waitFor, type TestServer } from './fixtures.test-support.js';

// Writes that would otherwise wait minutes: nothing reaches storage by time alone during the test.
const slowWrites = { api: { hub: { batchSize: 100_000, flushIntervalMs: 600_000 } }, storage: { flushIntervalMs: 60_000 } };

type Pose = { frame_id: number; timestamp: string };
const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers.reverse()) await server.close().catch(() => undefined);
});

async function startServing(dataDir: string): Promise<{ server: TestServer; auth: { Authorization: string } }> {
  const server = await startTestServer({ config: slowWrites, dataDir });
  servers.push(server);
  const auth = { Authorization: `Bearer ${await server.token('admin')}` };
  await server.http.post('/api/v1/system/start').set(auth).expect(202);
  return { server, auth };
}

async function latestFrame(server: TestServer, auth: { Authorization: string }): Promise<Pose> {
  let frame: Pose | undefined;
  await waitFor(async () => {
    const res = await server.http.get('/api/v1/pose/latest').set(auth);
    if (res.status === 200) frame = res.body as Pose;
    return frame !== undefined;
  }, 20_000);
  return frame!;
}

async function storedIds(server: TestServer, auth: { Authorization: string }): Promise<number[]> {
  const ids: number[] = [];
  let cursor: string | null = null;
  do {
    const res: { body: { poses: Pose[]; pagination: { next_cursor: string | null } } } = await server.http.get('/api/v1/pose/history').set(auth).query({ limit: 1000, ...(cursor ? { cursor } : {}) }).expect(200);
    ids.push(...res.body.poses.map((p) => p.frame_id));
    cursor = res.body.pagination.next_cursor;
  } while (cursor);
  return ids;
}

describe('read-your-writes and frame ids across restarts (SQLite file)', () => {
  it('history and analytics include the frame latest served; after a restart ids go on from the stored ones', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-pose-restart-'));
    const first = await startServing(dataDir);
    const served = await latestFrame(first.server, first.auth);
    const history = await first.server.http.get('/api/v1/pose/history').set(first.auth).query({ limit: 1000 }).expect(200);
    expect((history.body.poses as Pose[]).map((p) => p.frame_id)).toContain(served.frame_id);
    expect(history.body.pagination.total_count).toBeGreaterThanOrEqual(served.frame_id);
    const range = { start_time: new Date(Date.now() - 3_600_000).toISOString(), end_time: new Date(Date.now() + 60_000).toISOString(), interval: '5min' };
    const occupancy = await first.server.http.get('/api/v1/analytics/occupancy').set(first.auth).query(range).expect(200);
    expect(Object.values(occupancy.body.distribution as Record<string, number>).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    // Stop the server (the pipeline drains and storage is flushed on shutdown).
    await first.server.runtime.stop(5000);
    const before = await (async () => {
      const again = await startTestServer({ config: slowWrites, dataDir });
      servers.push(again);
      const auth = { Authorization: `Bearer ${await again.token('admin')}` };
      const ids = await storedIds(again, auth);
      await again.runtime.stop(5000);
      return ids;
    })();
    expect(before.length).toBeGreaterThan(0);
    const lastBefore = Math.max(...before);

    const second = await startServing(dataDir);
    const next = await latestFrame(second.server, second.auth);
    expect(next.frame_id).toBeGreaterThan(lastBefore);
    const after = await storedIds(second.server, second.auth);
    expect(new Set(after).size).toBe(after.length);
    expect(Math.min(...after.filter((id) => !before.includes(id)))).toBe(lastBefore + 1);
  });
});
