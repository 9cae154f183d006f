import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RateLimiter } from '../limits/rate-limiter.js';
import { NatsRateLimitStore } from './nats-rate-limit-store.js';
import { ClusterHeartbeat } from './cluster-heartbeat.js';
import { ClusterPoseFeed } from './cluster-pose-feed.js';
import { jetstream } from '@nats-io/jetstream';
import type { PoseFrame } from '@wiflow/core';

const NATS_SERVER = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p));
if (!NATS_SERVER) console.warn('NATS rate-limit store test skipped: nats-server is not installed (apt-get install nats-server; .ci/run installs it)');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
    server.on('error', reject);
  });
}

describe.skipIf(!NATS_SERVER)('rate-limit counters shared through NATS KV (real nats-server)', () => {
  let server: ChildProcess;
  let url = '';
  const connections: NatsConnection[] = [];
  beforeAll(async () => {
    const port = await freePort();
    url = `nats://127.0.0.1:${port}`;
    server = spawn(NATS_SERVER!, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', mkdtempSync(path.join(tmpdir(), 'wiflow-kv-'))], { stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise<void>((resolve, reject) => {
      let log = '';
      const onData = (d: Buffer) => {
        log += d.toString();
        if (log.includes('Server is ready')) resolve();
      };
      server.stdout!.on('data', onData);
      server.stderr!.on('data', onData);
      server.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${log}`)));
    });
  });
  afterAll(async () => {
    for (const nc of connections) await nc.close();
    server?.kill('SIGTERM');
  });

  it('two API instances counting the same caller concurrently lose no hit, and windows are separate', async () => {
    const a = await connect({ servers: url });
    const b = await connect({ servers: url });
    connections.push(a, b);
    const now = 1_700_000_000_000;
    const limiterA = new RateLimiter(new NatsRateLimitStore(a), () => now);
    const limiterB = new RateLimiter(new NatsRateLimitStore(b), () => now);
    const verdicts = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? limiterA : limiterB).check('api', 'key:alice', 25, 60)));
    // Every hit counted once: the counts are exactly 1..30, whichever instance took them.
    const remaining = verdicts.map((v) => v.remaining).sort((x, y) => x - y);
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(25);
    expect(remaining.filter((r) => r === 0)).toHaveLength(6);
    expect(verdicts.every((v) => v.resetSeconds === Math.ceil((Math.floor(now / 60_000) * 60_000 + 60_000) / 1000))).toBe(true);
    // Another caller and the next window start from zero.
    expect((await limiterA.check('api', 'key:bob', 25, 60)).remaining).toBe(24);
    const later = new RateLimiter(new NatsRateLimitStore(b), () => now + 60_000);
    expect((await later.check('api', 'key:alice', 25, 60)).remaining).toBe(24);
  }, 30_000);

  it('instances announce heartbeats; each sees the whole cluster, and a silent one is reported down', async () => {
    const a = await connect({ servers: url });
    const b = await connect({ servers: url });
    connections.push(a, b);
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const api = new ClusterHeartbeat(a, () => ({ instanceId: 'api-1', role: 'api', pid: 1, host: 'h', components: { api: 'running' }, counters: { frames_per_second: 20 } }), { intervalMs: 60_000, now });
    const worker = new ClusterHeartbeat(b, () => ({ instanceId: 'worker-1', role: 'worker', pid: 2, host: 'h', components: { pipeline: 'running' }, counters: {} }), { intervalMs: 60_000, now });
    const heard = (hb: ClusterHeartbeat, n: number) => new Promise<void>((resolve) => {
      const check = () => {
        if (hb.members().length >= n) {
          off();
          resolve();
        }
      };
      const off = hb.onHeartbeat(check);
      check();
    });
    await api.start();
    await worker.start();
    await Promise.all([heard(api, 2), heard(worker, 2)]);
    expect(api.members().map((m) => [m.instanceId, m.role, m.status])).toEqual([['api-1', 'api', 'up'], ['worker-1', 'worker', 'up']]);
    expect(api.members()[1].components).toEqual({ pipeline: 'running' });
    // The worker stops announcing; 3 intervals later the API reports it down, while it still beats itself.
    worker.stop();
    clock += 3 * 60_000 + 1;
    // (wait for this very beat: answers to earlier beats may still be on the way)
    const fresh = new Promise<void>((resolve) => {
      const off = api.onHeartbeat(() => {
        if (api.members().find((m) => m.instanceId === 'api-1')?.at !== clock) return;
        off();
        resolve();
      });
    });
    api.beat();
    await fresh;
    expect(api.members().map((m) => [m.instanceId, m.status])).toEqual([['api-1', 'up'], ['worker-1', 'down']]);
    api.stop();
  }, 30_000);

  it('every API instance sees every pose frame live; the shared storage consumer writes each frame once', async () => {
    const a = await connect({ servers: url });
    const b = await connect({ servers: url });
    const publisher = await connect({ servers: url });
    connections.push(a, b, publisher);
    const feeds = [new ClusterPoseFeed(a, { batch: 8 }), new ClusterPoseFeed(b, { batch: 8 })];
    const live: PoseFrame[][] = [[], []];
    const stored: PoseFrame[][] = [[], []];
    for (const [i, feed] of feeds.entries()) {
      await feed.live((frame) => live[i].push(frame));
      await feed.store(async (frames) => {
        stored[i].push(...frames);
      });
    }
    const js = jetstream(publisher);
    const total = 120;
    for (let i = 0; i < total; i++) {
      const frame = { timestamp: 1000 + i, frameId: i, environmentId: `room-${i % 4}`, persons: [], metadata: { weights: { $typed: 'Float32Array', b64: Buffer.from(new Float32Array([i]).buffer).toString('base64') } } };
      await js.publish(`pose.room-${i % 4}`, JSON.stringify(frame));
    }
    await js.publish('pose.room-0', 'not json');
    const deadline = Date.now() + 20_000;
    // Wait for every frame on both live feeds, every frame stored, and the bad message rejected by both live feeds (it comes last).
    const rejected = () => feeds[0].counters.rejected + feeds[1].counters.rejected;
    while ((live[0].length < total || live[1].length < total || stored[0].length + stored[1].length < total || rejected() < 2) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(live[0].map((f) => f.timestamp)).toEqual(live[1].map((f) => f.timestamp));
    expect(live[0]).toHaveLength(total);
    const keys = [...stored[0], ...stored[1]].map((f) => `${f.environmentId}.${f.timestamp}`);
    expect(keys).toHaveLength(total);
    expect(new Set(keys).size).toBe(total);
    expect((live[0][5].metadata as unknown as { weights: Float32Array }).weights).toBeInstanceOf(Float32Array);
    expect(feeds[0].counters.rejected + feeds[1].counters.rejected).toBeGreaterThanOrEqual(2);
    await Promise.all(feeds.map((f) => f.stop()));
  }, 30_000);
});
