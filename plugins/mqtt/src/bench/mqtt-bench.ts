// Benchmark: MQTT publish throughput to aedes on loopback — raw mqtt.js loop (baseline) vs the mqtt.publish node in a flow.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import mqtt from 'mqtt';
import { COCO_KEYPOINTS, type PoseFrame } from '@wiflow/core';
import { buildFlow, createTestRuntime } from '@wiflow/core/testing';
import mqttPlugin from '../index.js';
import { poseFrameToWire } from '../wire.js';
import { startAedes } from './brokers.js';

const FRAMES = Number(process.env.BENCH_FRAMES ?? 20_000);
const PERSONS = 2;

function frame(frameId: number): PoseFrame {
  return {
    timestamp: Date.now(),
    frameId,
    environmentId: 'bench',
    processingTimeMs: 2,
    persons: Array.from({ length: PERSONS }, (_, id) => ({
      id,
      trackId: id + 1,
      confidence: 0.9,
      keypoints: COCO_KEYPOINTS.map((name, i) => ({ name, x: 100 + i * 3.25, y: 200 + i * 1.5, confidence: 0.87, visible: true })),
      boundingBox: { x: 90, y: 190, width: 40, height: 120 },
      keypoints3d: COCO_KEYPOINTS.map((name, i) => ({ name, x: 1.25, y: 2.5, z: 1.7 - i * 0.1, confidence: 0.87 })),
      position: { x: 1 + id, y: 2 },
      activity: 'walking' as const,
      trackStatus: 'active' as const,
    })),
    metadata: { modelId: 'wiflow-pose-v1', modelHash: 'abc', modelVersion: '1', processingMode: 'realtime', provenance: 'simulated', csiQuality: 0.8, linkCount: 2, pipeline: 'bench' },
  };
}

/** Count messages on a topic filter until `n` arrived. */
async function counter(url: string, filter: string) {
  const client = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  await client.subscribeAsync(filter, { qos: 1 });
  let count = 0;
  let resolveAt: (() => void) | undefined;
  let target = Infinity;
  client.on('message', () => {
    count++;
    if (count >= target) resolveAt?.();
  });
  return {
    reset() {
      count = 0;
    },
    waitFor(n: number, timeoutMs = 120_000): Promise<void> {
      target = n;
      if (count >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${count} of ${n} messages arrived within ${timeoutMs} ms`)), timeoutMs);
        resolveAt = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
    close: () => client.endAsync(true),
  };
}

/** Baseline: one mqtt.js client publishing the same payloads in a loop (at most 1000 in flight). */
async function rawLoop(url: string, payloads: string[], qos: 0 | 1, topic: string, sub: Awaited<ReturnType<typeof counter>>): Promise<number> {
  const client = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  sub.reset();
  const started = performance.now();
  let inFlight = 0;
  let next = 0;
  await new Promise<void>((resolve) => {
    const pump = () => {
      while (next < payloads.length && inFlight < 1000) {
        inFlight++;
        client.publish(topic, payloads[next++], { qos }, () => {
          inFlight--;
          if (next < payloads.length) pump();
          else if (inFlight === 0) resolve();
        });
      }
    };
    pump();
  });
  await sub.waitFor(payloads.length);
  const ms = performance.now() - started;
  await client.endAsync();
  return ms;
}

/** The mqtt.publish node fed by a flow (test.feed → mqtt.publish), until the subscriber got every frame. */
async function pipeline(url: string, frames: PoseFrame[], qos: 0 | 1, state: boolean, sub: Awaited<ReturnType<typeof counter>>): Promise<{ ms: number; published: number }> {
  const runtime = await createTestRuntime({ plugins: [mqttPlugin], config: { engine: { queueCapacity: 4096 } } });
  await runtime.start();
  sub.reset();
  const flow = buildFlow(
    {
      feed: ['test.feed', { input: 'poses' }],
      mqtt: ['mqtt.publish', { url, topicPrefix: 'bench-node', qos: { poses: qos }, retainState: state, homeAssistant: { enabled: state }, bufferSize: frames.length * 4, maxInFlight: 1000, summaryIntervalMs: 0, closeTimeoutMs: 60_000 }],
    },
    ['feed.out -> mqtt.poses'],
  );
  const started = performance.now();
  const job = await runtime.runJob(flow, { inputs: { poses: frames }, timeoutMs: 300_000 });
  await sub.waitFor(frames.length);
  const ms = performance.now() - started;
  const done = await job.done;
  if (done.status !== 'completed') throw new Error(`bench job ${done.status}: ${done.error}`);
  const published = Number(job.counters().mqtt.stats?.published ?? 0);
  await runtime.stop(5000);
  return { ms, published };
}

async function main(): Promise<void> {
  const broker = await startAedes();
  const frames = Array.from({ length: FRAMES }, (_, i) => frame(i));
  const payloads = frames.map((f) => JSON.stringify(poseFrameToWire(f)));
  const bytes = Buffer.byteLength(payloads[0]);
  const rawSub = await counter(broker.url, 'bench-raw/#');
  const nodeSub = await counter(broker.url, 'bench-node/bench/pose');
  const rows: string[] = [];
  const row = (name: string, ms: number, extra = '') => {
    const rate = (FRAMES / ms) * 1000;
    rows.push(`| ${name} | ${FRAMES} | ${ms.toFixed(0)} | ${rate.toFixed(0)} | ${((rate * bytes) / 1e6).toFixed(1)} | ${extra} |`);
    console.log(rows.at(-1));
  };
  console.log(`# mqtt bench: ${FRAMES} pose frames (${PERSONS} persons, ${bytes} B JSON each) to aedes on 127.0.0.1; node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'})`);
  console.log('| run | frames | ms | frames/s | MB/s | notes |');
  console.log('|---|---|---|---|---|---|');
  // Warm-up (JIT, sockets) not recorded.
  await rawLoop(broker.url, payloads.slice(0, 2000), 0, 'bench-raw/warm', rawSub);
  // Baseline and wiflow alternate, twice, so load from other processes hits both alike.
  for (let round = 1; round <= 2; round++) {
    row(`baseline: raw mqtt.js publish loop, QoS 0 (payloads pre-serialised) [round ${round}]`, await rawLoop(broker.url, payloads, 0, 'bench-raw/pose', rawSub));
    let result = await pipeline(broker.url, frames, 0, false, nodeSub);
    row(`wiflow: flow test.feed → mqtt.publish, QoS 0, poses only [round ${round}]`, result.ms, `published ${result.published}`);
    row(`baseline: raw mqtt.js publish loop, QoS 1 (payloads pre-serialised) [round ${round}]`, await rawLoop(broker.url, payloads, 1, 'bench-raw/pose', rawSub));
    result = await pipeline(broker.url, frames, 1, false, nodeSub);
    row(`wiflow: flow test.feed → mqtt.publish, QoS 1, poses only [round ${round}]`, result.ms, `published ${result.published}`);
    result = await pipeline(broker.url, frames, 1, true, nodeSub);
    row(`wiflow: same, QoS 1, + retained summary/occupancy + HA discovery [round ${round}]`, result.ms, `published ${result.published} (frames + summaries + state)`);
  }
  await rawSub.close();
  await nodeSub.close();
  await broker.close();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
