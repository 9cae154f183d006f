import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { CsiFrame, PoseFrame } from '@wiflow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeValue } from './codec.js';
import { assignRooms } from './cluster/room-assignment.js';
import { shardSubject } from './cluster/room-shards.js';
import { NATS_SERVER, startNatsServer } from './nats-server.test-helper.js';
import { PUBLISHER_HEADER } from './nodes/publish.js';
import { clusterWorkspace, frameIngestFlow, locateWorkerFlow, publishedFrames, startWiflow, type WiflowProcess } from './bench/cluster-harness.js';

if (!NATS_SERVER) console.warn('NATS room-sharding test skipped: nats-server is not installed (apt-get install nats-server; .ci/run installs it)');

/** Every message of a stream: subject and decoded value, in stream order. */
async function readStream(nc: NatsConnection, stream: string): Promise<{ subject: string; value: unknown }[]> {
  const total = (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;
  const out: { subject: string; value: unknown }[] = [];
  if (total === 0) return out;
  const messages = await (await jetstream(nc).consumers.get(stream)).consume();
  for await (const m of messages) {
    out.push({ subject: m.subject, value: decodeValue(m.data) });
    if (out.length >= total) break;
  }
  await messages.close();
  return out;
}

/** What a frame says about its people, for comparing two runs of the estimator. */
const people = (f: PoseFrame) => f.persons.map((p) => [p.trackId, p.position.x, p.position.y]);

describe.skipIf(!NATS_SERVER)('pose workers sharded by room (real nats-server, pose.locate)', () => {
  let server: Awaited<ReturnType<typeof startNatsServer>>;
  const started: WiflowProcess[] = [];
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    for (const p of started) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await server?.stop();
  });

  it('each room is located by one worker, exactly as one process would; a worker that leaves hands its room to the other', async () => {
    const { dir, setup, write } = await clusterWorkspace('wiflow-shard-', 2);
    const rooms = setup.rooms.map((r) => r.environmentId);
    // Two worker names the rendezvous assignment splits one room each (deterministic: the first such pair).
    const names = Array.from({ length: 8 }, (_, i) => `worker-${i}`);
    const [nameA, nameB] = names.flatMap((a) => names.map((b) => [a, b])).find(([a, b]) => a !== b && new Set(assignRooms(rooms, [a, b]).values()).size === 2)!;
    const owners = assignRooms(rooms, [nameA, nameB]);
    const roomOf = (worker: string) => rooms.find((r) => owners.get(r) === worker)!;

    const nc = await connect({ servers: server.url });
    // Who holds which room, from the group's own heartbeats.
    const holding = new Map<string, string[]>();
    const beats = nc.subscribe(shardSubject('pose-workers'), {
      callback: (_e, m) => {
        const beat = JSON.parse(new TextDecoder().decode(m.data)) as { instanceId: string; components: Record<string, string>; leaving?: boolean };
        holding.set(beat.instanceId, beat.leaving ? [] : Object.keys(beat.components).map((k) => k.replace('room:', '')).sort());
        for (const w of waiters) w();
      },
    });
    const waiters = new Set<() => void>();
    const processes: WiflowProcess[] = [];
    /** Resolves when `test` holds after a heartbeat or pose frame; fails after `timeoutMs`, saying what was awaited and what the processes printed. */
    const until = (what: string, test: () => boolean, timeoutMs = 90_000) => new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no ${what} within ${timeoutMs} ms; holding ${JSON.stringify([...holding])}, ${poses.length} pose frames\n${processes.map((p) => p.output().slice(-1500)).join('\n---\n')}`));
      }, timeoutMs);
      const check = () => {
        const failed = processes.find((p) => p.output().includes('"status":"failed"'));
        if (failed) {
          clearTimeout(timer);
          waiters.delete(check);
          return reject(new Error(`a process failed while waiting for ${what}:\n${failed.output().slice(-1500)}`));
        }
        if (!test()) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    });
    // Pose frames live, with the worker that published each.
    const poses: { frame: PoseFrame; publisher: string; afterLeave: boolean }[] = [];
    let left = false;
    nc.subscribe('pose.>', {
      callback: (_e, m) => {
        poses.push({ frame: decodeValue(m.data) as PoseFrame, publisher: m.headers?.get(PUBLISHER_HEADER) ?? '', afterLeave: left });
        for (const w of waiters) w();
      },
    });
    await nc.flush();

    const workerFile = write('worker.json', locateWorkerFlow(setup, { batch: 16, ackWaitMs: 1500, heartbeatIntervalMs: 500, missedBeats: 4 }));
    const allow = ['@wiflow/plugin-nats', '@wiflow/plugin-pose-tfjs', '@wiflow/plugin-tracker'];
    const workerA = startWiflow(['pipeline', workerFile], { dir, natsUrl: server.url, name: 'worker-a', allow, env: { WIFLOW_INSTANCE_ID: nameA } });
    const workerB = startWiflow(['pipeline', workerFile], { dir, natsUrl: server.url, name: 'worker-b', allow, env: { WIFLOW_INSTANCE_ID: nameB } });
    processes.push(workerA, workerB);
    started.push(workerA, workerB);
    await Promise.all([workerA.waitFor('pipeline_started', 90_000), workerB.waitFor('pipeline_started', 90_000)]);
    // The group settles on the assignment before any packet is sent.
    await until('assignment of one room to each worker', () => holding.get(nameA)?.join() === roomOf(nameA) && holding.get(nameB)?.join() === roomOf(nameB));

    const ingest = startWiflow(['pipeline', write('ingest.json', frameIngestFlow(setup, 14, { realtime: true }))], { dir, natsUrl: server.url, name: 'ingest', allow: ['@wiflow/plugin-nats', '@wiflow/plugin-sim'] });
    processes.push(ingest);
    started.push(ingest);
    const pidOf = (p: WiflowProcess) => `:${p.child.pid}`;
    // Worker A leaves (SIGTERM: a graceful stop) once it has located its room for a while.
    await until('16 frames from worker A', () => poses.filter((p) => p.publisher.endsWith(pidOf(workerA))).length >= 16);
    left = true;
    await workerA.stop();
    await until('both rooms held by B', () => holding.get(nameB)?.join() === [...rooms].sort().join());
    await ingest.waitFor('pipeline_ended', 90_000);
    expect(publishedFrames(ingest.output(), setup)).toBeGreaterThan(0);
    // B locates A's room from then on.
    await until("a frame of A's room from B", () => poses.some((p) => p.afterLeave && p.frame.environmentId === roomOf(nameA) && p.publisher.endsWith(pidOf(workerB))));
    const lastCsi = Math.max(...(await readStream(nc, 'WIFLOW_CSI')).map((m) => (m.value as CsiFrame).time));
    // Every packet has been consumed once the last pose frame of each room is out (frames come every few packets).
    await until('the last frames of both rooms', () => rooms.every((room) => poses.some((p) => p.frame.environmentId === room && p.frame.timestamp >= lastCsi - 1000)));

    // Before A left, each room's frames came from its owner alone; frames carry the estimator's id, hash and provenance.
    for (const room of rooms) {
      const before = poses.filter((p) => !p.afterLeave && p.frame.environmentId === room);
      expect(before.length).toBeGreaterThan(0);
      const owner = owners.get(room) === nameA ? workerA : workerB;
      expect(before.filter((p) => !p.publisher.endsWith(pidOf(owner)))).toEqual([]);
    }
    for (const { frame } of poses) {
      expect(frame.metadata.modelId).toBe('wiflow-locate-v2');
      expect(frame.metadata.modelHash).toMatch(/^[0-9a-f]{64}$/);
      expect(frame.metadata.provenance).toBe('simulated');
    }
    // After A left, every frame of its room comes from B.
    const moved = poses.filter((p) => p.afterLeave && p.frame.environmentId === roomOf(nameA) && p.publisher.endsWith(pidOf(workerB)));
    expect(moved.length).toBeGreaterThan(0);

    // B's own room never moved: its frames are exactly what one process locating and tracking
    // that room's packets in order gives — same frames, positions and track ids. A worker that
    // saw only some of the room's packets (packets spread over workers) would differ.
    const pose = await import('@wiflow/plugin-pose-tfjs');
    const { MultiPersonTracker, TrackerOptionsSchema } = await import('@wiflow/plugin-tracker');
    const roomB = setup.rooms.find((r) => r.environmentId === roomOf(nameB))!;
    const locator = new pose.PoseLocator(pose.loadLocatorModel(pose.SHIPPED_LOCATOR_DIR), [pose.EnvironmentGeometrySchema.parse(roomB.geometry)], [pose.readReference(roomB.referenceFile)], { densePose: 'none', processingMode: 'realtime' });
    const tracker = new MultiPersonTracker(TrackerOptionsSchema.parse({}));
    const expected: PoseFrame[] = [];
    for (const m of await readStream(nc, 'WIFLOW_CSI')) {
      if (!m.subject.startsWith(`csi.${roomB.environmentId}.`)) continue;
      const frame = locator.push(m.value as CsiFrame);
      if (frame) expected.push(tracker.update(frame));
    }
    const fromB = poses.filter((p) => p.publisher.endsWith(pidOf(workerB)));
    const got = fromB.filter((p) => p.frame.environmentId === roomB.environmentId).map((p) => p.frame);
    expect(got.length).toBe(expected.length);
    expect(got.map((f) => f.timestamp)).toEqual(expected.map((f) => f.timestamp));
    expect(got.map((f) => f.persons.map((p) => [p.position.x, p.position.y]))).toEqual(expected.map((f) => f.persons.map((p) => [p.position.x, p.position.y])));
    // Track ids are numbered per tracker: compare them up to the first frame of A's room that B's tracker took.
    const firstMoved = fromB.findIndex((p) => p.frame.environmentId !== roomB.environmentId);
    const alone = fromB.slice(0, firstMoved).length;
    expect(alone).toBeGreaterThanOrEqual(12);
    expect(got.slice(0, alone).map((f) => f.persons.map((p) => p.trackId))).toEqual(expected.slice(0, alone).map((f) => f.persons.map((p) => p.trackId)));
    const ids = got.slice(0, alone).flatMap((f) => f.persons.map((p) => p.trackId)).filter((id) => id !== null);
    expect(ids.length).toBeGreaterThan(0);

    beats.unsubscribe();
    await workerB.stop();
    await nc.close();
  }, 240_000);
});
