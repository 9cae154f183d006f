// Cluster mode end to end, every part a real process: nats-server with JetStream, an ingest
// runtime, two pose workers (`wiflow pipeline` running the default estimator, pose.locate →
// tracker.track, sharded by room) and two API instances (`wiflow serve` in cluster mode, each
// with its own SQLite file; A is the storage writer). What the workers alone do is tested in
// plugin-nats (cluster-locate.test.ts: a room's frames exactly as one process gives them, and the
// hand-over; cluster.test.ts: exactly once per window set for the windowed pose.estimate pair);
// this suite checks what the API side makes of a worker cluster.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { assignRooms, decodeValue, shardSubject } from '@wiflow/plugin-nats';
import { NATS_SERVER, clusterWorkspace, frameIngestFlow, locateWorkerFlow, publishedFrames, startNatsServer, startWiflow, type WiflowProcess } from '@wiflow/plugin-nats/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { ROOT, startServer, token, type ServerHandle } from './support/server.js';

describe('cluster mode without NATS', () => {
  it('`wiflow serve` exits with status 1 and says why when NATS cannot be reached', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-cluster-down-'));
    const config = path.join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ plugins: { allow: ['@wiflow/plugin-identity', '@wiflow/plugin-pose-api', '@wiflow/plugin-nats', '@wiflow/plugin-sqlite'] }, cluster: { enabled: true, instanceId: 'api-lonely' } }));
    // Port 1 on loopback: nothing listens there.
    const child = spawn(process.execPath, [path.join(ROOT, 'core/bin/wiflow.js'), 'serve', '--port', '0', '--config', config, '--data-dir', path.join(dir, 'data')], {
      cwd: ROOT,
      env: { ...process.env, WIFLOW_NATS_URL: 'nats://127.0.0.1:1', WIFLOW_LOG_LEVEL: 'error' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(output).toContain('cannot join the cluster as api-lonely: NATS at nats://127.0.0.1:1');
    expect(output).not.toContain('listening on');
    expect(code).toBe(1);
  });
});

if (!NATS_SERVER) console.warn('cluster test skipped: nats-server is not installed (apt-get install nats-server; .ci/run installs it)');

type Frame = { environmentId: string; timestamp: number; persons: unknown[]; metadata: { modelId: string; modelHash?: string; provenance?: string; linkCount: number } };
type Instance = { instance_id: string; role: string; status: 'up' | 'down'; self: boolean; components: Record<string, string>; counters: Record<string, number> };

/** Every message of a stream, decoded. */
async function readAll(nc: NatsConnection, stream: string): Promise<Frame[]> {
  const total = (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
  const out: Frame[] = [];
  if (total === 0) return out;
  const messages = await (await jetstream(nc).consumers.get(stream)).consume();
  for await (const m of messages) {
    out.push(decodeValue(m.data) as Frame);
    if (out.length >= total) break;
  }
  await messages.close();
  return out;
}

/** Poll until `check` holds (each poll waits for the answer it checks). */
async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!NATS_SERVER)('cluster mode: 2 pose workers and 2 `wiflow serve` API instances on one NATS', () => {
  let nats: Awaited<ReturnType<typeof startNatsServer>>;
  const processes: WiflowProcess[] = [];
  const servers: ServerHandle[] = [];
  beforeAll(async () => {
    nats = await startNatsServer();
  });
  afterAll(async () => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.stop()));
    await nats?.stop();
  });

  it('frames of 4 rooms located by 2 workers (one killed mid-stream) reach both API instances live, are stored once, and the cluster is reported', async () => {
    const { dir, setup, write } = await clusterWorkspace('wiflow-cluster-serve-', 4);
    const rooms = new Set(setup.rooms.map((r) => r.environmentId));
    // Rendezvous ownership of these room ids gives each worker two rooms, so killing A moves rooms.
    const owners = assignRooms([...rooms], ['worker-a', 'worker-b']);
    expect(new Set(owners.values())).toEqual(new Set(['worker-a', 'worker-b']));
    const password = 'cluster-admin-password-1';
    const env = { WIFLOW_NATS_URL: nats.url, WIFLOW_JWT_SECRET: 'a-cluster-wide-signing-secret-of-32+-chars', WIFLOW_ADMIN_PASSWORD: password };
    // One config file per API instance: the same but for the storage writer. A shared rate
    // limit that startup readiness checks cannot exhaust, and a day-long window.
    const apiConfig = (storageWriter: boolean) =>
      write(`api-${storageWriter ? 'writer' : 'reader'}.json`, {
        plugins: { allow: ['@wiflow/plugin-identity', '@wiflow/plugin-pose-api', '@wiflow/plugin-nats', '@wiflow/plugin-sqlite'] },
        cluster: { enabled: true, heartbeatIntervalMs: 500, missedBeats: 6, storageWriter },
        api: { rateLimits: { health: { limit: 200, windowSeconds: 86_400 } } },
      });
    const [apiA, apiB] = await Promise.all([
      startServer({ args: ['--config', apiConfig(true)], env: { ...env, WIFLOW_INSTANCE_ID: 'api-a' } }),
      startServer({ args: ['--config', apiConfig(false)], env: { ...env, WIFLOW_INSTANCE_ID: 'api-b' } }),
    ]);
    servers.push(apiA, apiB);

    const workerFile = write('worker.json', locateWorkerFlow(setup, { batch: 16, ackWaitMs: 1500, heartbeatIntervalMs: 500, missedBeats: 6 }));
    const workerAllow = ['@wiflow/plugin-nats', '@wiflow/plugin-pose-tfjs', '@wiflow/plugin-tracker'];
    const nc = await connect({ servers: nats.url });
    // Which rooms each worker holds, from the shard group's own heartbeats.
    const holding = new Map<string, string>();
    const beats = nc.subscribe(shardSubject('pose-workers'), {
      callback: (_e, m) => {
        const beat = JSON.parse(new TextDecoder().decode(m.data)) as { instanceId: string; components: Record<string, string>; leaving?: boolean };
        holding.set(beat.instanceId, beat.leaving ? '' : Object.keys(beat.components).map((k) => k.replace('room:', '')).sort().join());
      },
    });
    // Pose frames live (for knowing when the last packets are located; the stream is read for the checks).
    const live: Frame[] = [];
    const poses = nc.subscribe('pose.>', { callback: (_e, m) => live.push(decodeValue(m.data) as Frame) });
    await nc.flush();
    const roomsOf = (worker: string) => [...rooms].filter((r) => owners.get(r) === worker).sort().join();
    // Down after 3 s of silence: a loaded 2-core CI machine may stall an event loop for a while.
    const workerConfig = (instanceId: string) => ({ cluster: { enabled: true, instanceId, heartbeatIntervalMs: 500, missedBeats: 6 } });
    const workerA = startWiflow(['pipeline', workerFile, '--stats', '1'], { dir, natsUrl: nats.url, name: 'worker-a', allow: workerAllow, config: workerConfig('worker-a') });
    const workerB = startWiflow(['pipeline', workerFile], { dir, natsUrl: nats.url, name: 'worker-b', allow: workerAllow, config: workerConfig('worker-b') });
    processes.push(workerA, workerB);
    await Promise.all([workerA.waitFor('pipeline_started', 90_000), workerB.waitFor('pipeline_started', 90_000)]);
    await until('each worker holds its rooms', () => holding.get('worker-a') === roomsOf('worker-a') && holding.get('worker-b') === roomsOf('worker-b'), 60_000);

    // A WebSocket client of API instance B, which runs no pipeline.
    const [tokenA, tokenB] = await Promise.all([token(apiA.url, 'admin', password), token(apiB.url, 'admin', password)]);
    const socket = new WebSocket(`${apiB.url.replace('http', 'ws')}/ws/pose?token=${tokenB}`);
    const updates: { data: { environment_id: string; metadata: Record<string, unknown> } }[] = [];
    let confirmed = false;
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as { type: string };
      if (message.type === 'subscription_confirmed') confirmed = true;
      if (message.type === 'pose_update') updates.push(message as unknown as (typeof updates)[number]);
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ type: 'subscribe', channel: 'pose_updates', filters: {} }));
    await until('subscription confirmed', () => confirmed);

    const ingest = startWiflow(['pipeline', write('ingest.json', frameIngestFlow(setup, 12, { realtime: true }) /* paced: 12 s, so the kill lands mid-stream */)], { dir, natsUrl: nats.url, name: 'ingest', allow: ['@wiflow/plugin-nats', '@wiflow/plugin-sim'] });
    processes.push(ingest);

    // Kill worker A once it has published some (not all) pose frames.
    const jsm = await jetstreamManager(nc);
    const poseCount = async () => (await jsm.streams.info('WIFLOW_POSE').catch(() => undefined))?.state.messages ?? 0;
    await until('worker A published', async () => (await poseCount()) >= 20 && /"published":[1-9]/.test(workerA.output()), 90_000);
    workerA.child.kill('SIGKILL');
    const killedAt = await poseCount();

    // B takes A's rooms once A's heartbeats stop.
    await until("B holds A's rooms", () => holding.get('worker-b') === [...rooms].sort().join(), 60_000);
    await ingest.waitFor('pipeline_ended', 90_000);
    expect(publishedFrames(ingest.output(), setup)).toBeGreaterThan(0);

    // Every packet is located once the rooms' durable consumers have nothing pending or unacknowledged (A's redelivered to B).
    const settled = async () => {
      for await (const c of jsm.consumers.list('WIFLOW_CSI')) if (c.config.durable_name && (c.num_pending > 0 || c.num_ack_pending > 0)) return false;
      return true;
    };
    await until('every packet located and acknowledged', settled, 90_000);
    expect([...rooms].every((room) => live.some((f) => f.environmentId === room))).toBe(true);
    beats.unsubscribe();
    poses.unsubscribe();
    const frames = await readAll(nc, 'WIFLOW_POSE');
    expect(frames.length).toBeGreaterThan(killedAt);
    // Stored once per instant of a room: the stream keeps one frame per (room, timestamp), the message id.
    const keys = frames.map((f) => `${f.environmentId}.${f.timestamp}`);
    expect(new Set(keys).size).toBe(frames.length);
    expect(new Set(frames.map((f) => f.environmentId))).toEqual(rooms);
    // The default estimator's frames, saying what made them.
    expect(frames.every((f) => /^wiflow-locate-v\d+$/.test(f.metadata.modelId) && /^[0-9a-f]{64}$/.test(f.metadata.modelHash ?? '') && f.metadata.provenance === 'simulated')).toBe(true);
    expect(frames.every((f) => f.metadata.linkCount === (setup.rooms.find((r) => r.environmentId === f.environmentId)!.geometry.links as unknown[]).length)).toBe(true);

    // B's WebSocket client got the workers' frames, from every room.
    await until('B streamed frames of every room', () => new Set(updates.map((u) => u.data.environment_id)).size === rooms.size);
    expect(updates.every((u) => rooms.has(u.data.environment_id))).toBe(true);
    socket.close();

    // Both instances answer /pose/latest with worker-produced frames.
    for (const [url, bearer] of [[apiA.url, tokenA], [apiB.url, tokenB]]) {
      for (const room of rooms) {
        const latest = await fetch(`${url}/api/v1/pose/latest?environment_id=${room}`, { headers: { authorization: `Bearer ${bearer}` } });
        expect(latest.status).toBe(200);
        const body = (await latest.json()) as { timestamp: string; metadata: Record<string, unknown> };
        const ofRoom = frames.filter((f) => f.environmentId === room).map((f) => f.timestamp);
        expect(ofRoom.some((t) => new Date(t).toISOString() === body.timestamp), `${url} ${room}: ${body.timestamp}; stream ${new Date(Math.min(...ofRoom)).toISOString()}…${new Date(Math.max(...ofRoom)).toISOString()} (${ofRoom.length}) ${JSON.stringify(body.metadata).slice(0, 300)}`).toBe(true);
      }
    }

    // /system/status on A: both API instances and both workers; A stored every frame once, B none; worker A down.
    const status = async () => {
      const response = await fetch(`${apiA.url}/api/v1/system/status`, { headers: { authorization: `Bearer ${tokenA}` } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { cluster: { instances: Instance[]; instances_down: number } }).cluster;
    };
    await until('worker A reported down, every frame stored by A', async () => {
      const c = await status();
      const byId = Object.fromEntries(c.instances.map((i) => [i.instance_id, i]));
      return byId['worker-a']?.status === 'down' && byId['api-a']?.counters.frames_stored === frames.length;
    });
    const cluster = await status();
    expect(cluster.instances.map((i) => [i.instance_id, i.role, i.status, i.self])).toEqual([
      ['api-a', 'api', 'up', true],
      ['api-b', 'api', 'up', false],
      ['worker-a', 'worker', 'down', false],
      ['worker-b', 'worker', 'up', false],
    ]);
    const byId = Object.fromEntries(cluster.instances.map((i) => [i.instance_id, i]));
    expect(byId['api-a'].components.storage_writer).toBe('running');
    expect(byId['api-b'].components.storage_writer).toBe('off');
    expect(byId['api-b'].counters.frames_stored).toBe(0);
    expect(byId['worker-b'].components['pose.locate']).toBe('running');
    expect(byId['worker-b'].components['tracker.track']).toBe('running');
    expect(byId['worker-b'].counters.nats_published).toBeGreaterThan(0);
    const detailed = await fetch(`${apiB.url}/api/v1/health/detailed`, { headers: { authorization: `Bearer ${tokenB}` } });
    const health = (await detailed.json()) as { data?: unknown; overall_status: string; components: { cluster: { status: string; instances_down: number } } };
    expect(health.overall_status).toBe('degraded');
    expect(health.components.cluster).toMatchObject({ status: 'degraded', instances_down: 1 });

    // One caller's rate limit is shared: B's counter continues A's, and the 429 comes from B.
    const remaining = (r: Response) => Number(r.headers.get('x-ratelimit-remaining'));
    const atA = await fetch(`${apiA.url}/api/v1/health`);
    const atB = await fetch(`${apiB.url}/api/v1/health`);
    expect(remaining(atB)).toBe(remaining(atA) - 1);
    for (let left = remaining(atB); left > 0; left--) expect((await fetch(`${apiB.url}/api/v1/health`)).status).toBe(200);
    const refused = await fetch(`${apiB.url}/api/v1/health`);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: 'RATE_LIMIT_EXCEEDED', message: expect.any(String), request_id: expect.any(String) } });
    expect((await fetch(`${apiA.url}/api/v1/health`)).status).toBe(429);

    await workerB.stop();
    await nc.close();
  }, 180_000);
});
