import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { decodeValue } from './codec.js';
import { NATS_SERVER, useNatsServer } from './nats-server.test-helper.js';
import { PUBLISHER_HEADER } from './nodes/publish.js';
import { clusterWorkspace, ingestFlow, publishedSets, startWiflow, workerFlow, type WiflowProcess } from './bench/cluster-harness.js';

if (!NATS_SERVER) console.warn('NATS cluster test skipped: nats-server is not installed (apt-get install nats-server; .ci/run installs it)');

/** Every message of a stream subject: decoded value and publisher header. */
async function readAll(nc: NatsConnection, stream: string): Promise<{ subject: string; value: unknown; publisher: string }[]> {
  const jsm = await jetstreamManager(nc);
  const total = (await jsm.streams.info(stream)).state.messages;
  const consumer = await jetstream(nc).consumers.get(stream);
  const out: { subject: string; value: unknown; publisher: string }[] = [];
  if (total === 0) return out;
  const messages = await consumer.consume();
  for await (const m of messages) {
    out.push({ subject: m.subject, value: decodeValue(m.data), publisher: m.headers?.get(PUBLISHER_HEADER) ?? '' });
    if (out.length >= total) break;
  }
  await messages.close();
  return out;
}

describe.skipIf(!NATS_SERVER)('NATS JetStream across processes, with the real pose model', () => {
  const processes: WiflowProcess[] = [];
  const nats = useNatsServer({
    cleanup: () => {
      for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    },
  });

  it('ingest → 2 pose workers (one killed mid-stream) → every instant of 4 rooms comes out exactly once', async () => {
    const { dir, setup, write } = await clusterWorkspace('wiflow-cluster-', 4);
    const workerFile = write('worker.json', workerFlow(setup, { batch: 8, ackWaitMs: 1500 }));
    const ingestFile = write('ingest.json', ingestFlow(setup, 12, { realtime: true }) /* paced: 12 s, so the kill lands mid-stream */);
    const base = { dir, natsUrl: nats.server.url };
    const workerAllow = ['@wiflow/plugin-nats', '@wiflow/plugin-pose-tfjs'];
    const workerA = startWiflow(['pipeline', workerFile, '--stats', '1'], { ...base, name: 'worker-a', allow: workerAllow });
    const workerB = startWiflow(['pipeline', workerFile], { ...base, name: 'worker-b', allow: workerAllow });
    processes.push(workerA, workerB);
    await Promise.all([workerA.waitFor('pipeline_started', 90_000), workerB.waitFor('pipeline_started', 90_000)]);

    const ingest = startWiflow(['pipeline', ingestFile], { ...base, name: 'ingest', allow: ['@wiflow/plugin-nats', '@wiflow/plugin-sim', '@wiflow/plugin-csi'] });
    processes.push(ingest);

    // Kill worker A once some (not all) pose frames are out.
    const nc = await connect({ servers: nats.server.url });
    const jsm = await jetstreamManager(nc);
    const poseCount = async () => (await jsm.streams.info('WIFLOW_POSE').catch(() => undefined))?.state.messages ?? 0;
    const deadline = Date.now() + 90_000;
    // (worker A prints its counters every second: wait until it has published some itself.)
    const aPublished = () => /"published":[1-9]/.test(workerA.output());
    while (((await poseCount()) < 20 || !aPublished()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    workerA.child.kill('SIGKILL');
    const killedAt = await poseCount();

    await ingest.waitFor('pipeline_ended', 90_000);
    const published = publishedSets(ingest.output(), setup);
    expect(published).toBeGreaterThan(killedAt);

    // Every published window set becomes one pose frame (worker B finishes A's unacknowledged sets after ackWait).
    while ((await poseCount()) < published && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Past the redelivery delay: a duplicate would show up now.
    await new Promise((r) => setTimeout(r, 2000));

    const poses = await readAll(nc, 'WIFLOW_POSE');
    const frames = poses.map((p) => p.value as { environmentId: string; timestamp: number; persons: unknown[]; metadata: { modelId: string; linkCount: number } });
    const keys = frames.map((f) => `${f.environmentId}.${f.timestamp}`);
    expect(new Set(keys).size).toBe(published);
    expect(frames.length).toBe(published);
    expect(new Set(frames.map((f) => f.environmentId))).toEqual(new Set(setup.rooms.map((r) => r.environmentId)));
    expect(frames.every((f) => f.metadata.modelId === setup.modelId && f.metadata.linkCount === setup.links && Array.isArray(f.persons))).toBe(true);
    // Both workers did model work: A before it was killed, B all along.
    const publishers = new Set(poses.map((p) => p.publisher.split(':')[1]));
    expect(publishers.has(String(workerA.child.pid))).toBe(true);
    expect(publishers.has(String(workerB.child.pid))).toBe(true);
    await workerB.stop();
    await nc.close();
  }, 180_000);
});
