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
});
