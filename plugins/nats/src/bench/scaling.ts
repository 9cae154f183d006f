// `npm run bench -w @wiflow/plugin-nats`: how pose-model work scales over worker processes
// fed by NATS JetStream, plus raw NATS publish/consume rates of the same messages.
// Starts a real nats-server on loopback (Debian's nats-server must be installed).
//
//   node dist/bench/scaling.js [--sets 1200] [--workers 1,2,4] [--batch 32] [--json]
import { execFileSync } from 'node:child_process';
import { cpus, loadavg, tmpdir } from 'node:os';
import { mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { Runtime, type WiflowPlugin } from '@wiflow/core';
import { decodeValue, encodeValue, valuesOf } from '../codec.js';
import { NATS_SERVER, startNatsServer } from '../nats-server.test-helper.js';
import natsPlugin from '../index.js';
import { cpuSeconds } from './process-cpu.js';
import { ingestFlow, prepareRooms, startWiflow, workerFlow, type ModelSetup, type WiflowProcess } from './cluster-harness.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const SETS = Number(option('sets', '1200'));
const WORKERS = option('workers', '1,2,4').split(',').map(Number);
const ROOMS = 4;
const BATCH = Number(option('batch', '32'));
const TIMEOUT_MS = Number(option('timeout', '300')) * 1000;
const SIM_SECONDS = 16;

type WindowLike = { time: number; endTimestamp: number; startTimestamp: number; environmentId: string };

/** Window sets of real simulated rooms, made once by the ingest flow in this process. */
async function seedSets(setup: ModelSetup, url: string, dir: string): Promise<WindowLike[][]> {
  const plugins = await Promise.all(['@wiflow/plugin-sim', '@wiflow/plugin-csi'].map(async (m) => ((await import(m)) as { default: WiflowPlugin }).default));
  const runtime = await Runtime.create({ discover: false, plugins: [...plugins, natsPlugin], dataDir: path.join(dir, 'seed'), config: { nats: { url } } });
  await runtime.start();
  const job = await runtime.runJob(ingestFlow(setup, SIM_SECONDS).data as never);
  const outcome = await job.done;
  if (outcome.status !== 'completed') throw new Error(`seed ingest ${outcome.status}: ${outcome.error}`);
  await runtime.stop();
  const nc = await connect({ servers: url });
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  const total = (await jsm.streams.info('WIFLOW_CSI')).state.messages;
  const consumer = await js.consumers.get('WIFLOW_CSI');
  const sets: WindowLike[][] = [];
  const messages = await consumer.consume();
  for await (const m of messages) {
    sets.push(valuesOf(decodeValue(m.data)) as WindowLike[]);
    if (sets.length >= total) break;
  }
  await messages.close();
  await jsm.streams.purge('WIFLOW_CSI');
  await nc.close();
  return sets;
}

/** `count` encoded sets: the seed sets repeated, each repetition shifted in time by the seed's span. */
function encodeSets(seed: WindowLike[][], count: number, run: number): { subject: string; msgID: string; data: Uint8Array }[] {
  const span = SIM_SECONDS * 1000 + 1000;
  const out: { subject: string; msgID: string; data: Uint8Array }[] = [];
  for (let i = 0; i < count; i++) {
    const base = seed[i % seed.length];
    // Each run its own times: pose frame ids (environment + timestamp) of an earlier run stay in the duplicate window.
    const shift = (Math.floor(i / seed.length) + run * Math.ceil(count / seed.length)) * span;
    const set = base.map((w) => ({ ...w, time: w.time + shift, endTimestamp: w.endTimestamp + shift * 1000, startTimestamp: w.startTimestamp + shift * 1000 }));
    const subject = `csi.${set[0].environmentId}.window-set`;
    out.push({ subject, msgID: `${subject}:${set[0].environmentId}.${set[0].endTimestamp}`, data: encodeValue({ $wiflowSet: set }) });
  }
  return out;
}

/** Publish with message ids tagged by `run` (ids of an earlier run stay in the duplicate window after a purge). */
async function publishAll(js: JetStreamClient, messages: { subject: string; msgID: string; data: Uint8Array }[], run: string, inFlight = 64): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < messages.length; i += inFlight) {
    await Promise.all(messages.slice(i, i + inFlight).map((m) => js.publish(m.subject, m.data, { msgID: `${m.msgID}:${run}` })));
  }
  return (performance.now() - started) / 1000;
}

async function streamCount(jsm: JetStreamManager, stream: string): Promise<number> {
  return (await jsm.streams.info(stream)).state.messages;
}

async function reset(jsm: JetStreamManager): Promise<void> {
  for (const stream of ['WIFLOW_CSI', 'WIFLOW_POSE']) {
    await jsm.streams.purge(stream);
    for await (const c of jsm.consumers.list(stream)) await jsm.consumers.delete(stream, c.name);
  }
}

/** Raw NATS: publish the sets, then consume them (fetch, decode, ack) in this process. */
async function rawRates(nc: NatsConnection, messages: { subject: string; msgID: string; data: Uint8Array }[]) {
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  await reset(jsm);
  const bytes = messages.reduce((n, m) => n + m.data.byteLength, 0);
  const publishSeconds = await publishAll(js, messages, 'raw');
  await jsm.consumers.add('WIFLOW_CSI', { durable_name: 'raw', ack_policy: AckPolicy.Explicit });
  const consumer = await js.consumers.get('WIFLOW_CSI', 'raw');
  const started = performance.now();
  let consumed = 0;
  while (consumed < messages.length) {
    const batch = await consumer.fetch({ max_messages: 64, expires: 2000 });
    for await (const m of batch) {
      decodeValue(m.data);
      m.ack();
      consumed++;
    }
  }
  const consumeSeconds = (performance.now() - started) / 1000;
  await reset(jsm);
  return {
    messages: messages.length,
    meanMessageBytes: Math.round(bytes / messages.length),
    publishPerSecond: messages.length / publishSeconds,
    publishMBps: bytes / publishSeconds / 1e6,
    consumePerSecond: consumed / consumeSeconds,
    consumeMBps: bytes / consumeSeconds / 1e6,
  };
}

interface WorkerRun {
  workers: number;
  sets: number;
  seconds: number;
  setsPerSecond: number;
  windowsPerSecond: number;
  perWorkerSetsPerSecond: number;
  meanPoseBytes: number;
  /** CPU seconds all workers used during the run, and sets per worker CPU second. */
  workerCpuSeconds: number;
  setsPerWorkerCpuSecond: number;
  /** CPU seconds nats-server used during the run. */
  natsCpuSeconds: number;
}

async function workerRun(nc: NatsConnection, natsPid: number | undefined, url: string, dir: string, setup: ModelSetup, messages: { subject: string; msgID: string; data: Uint8Array }[], count: number): Promise<WorkerRun> {
  const js = jetstream(nc);
  const jsm = await jetstreamManager(nc);
  await reset(jsm);
  const flowFile = path.join(dir, `worker-${count}.json`);
  writeFileSync(flowFile, JSON.stringify(workerFlow(setup, { durable: `bench-${count}`, batch: BATCH, ackWaitMs: 30_000 })));
  const workers: WiflowProcess[] = [];
  const stats = process.env.WIFLOW_BENCH_STATS ? ['--stats', process.env.WIFLOW_BENCH_STATS] : [];
  for (let i = 0; i < count; i++) workers.push(startWiflow(['pipeline', flowFile, ...stats], { dir, name: `w${count}-${i}`, natsUrl: url, allow: ['@wiflow/plugin-nats', '@wiflow/plugin-pose-tfjs'] }));
  try {
    await Promise.all(workers.map((w) => w.waitFor('pipeline_started', 120_000)));
    const cpuBefore = workers.reduce((n, w) => n + cpuSeconds(w.child.pid), 0);
    const natsBefore = cpuSeconds(natsPid);
    const started = performance.now();
    await publishAll(js, messages, `workers-${count}`);
    for (;;) {
      const done = await streamCount(jsm, 'WIFLOW_POSE');
      if (done >= messages.length) break;
      if (performance.now() - started > TIMEOUT_MS) throw new Error(`${count} workers: ${done}/${messages.length} after ${TIMEOUT_MS / 1000} s\n${workers[0].output().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (performance.now() - started) / 1000;
    const workerCpuSeconds = workers.reduce((n, w) => n + cpuSeconds(w.child.pid), 0) - cpuBefore;
    const natsCpuSeconds = cpuSeconds(natsPid) - natsBefore;
    const poseBytes = (await jsm.streams.info('WIFLOW_POSE')).state.bytes;
    const setsPerSecond = messages.length / seconds;
    return {
      workers: count,
      sets: messages.length,
      seconds,
      setsPerSecond,
      windowsPerSecond: setsPerSecond * setup.links,
      perWorkerSetsPerSecond: setsPerSecond / count,
      meanPoseBytes: Math.round(poseBytes / messages.length),
      workerCpuSeconds,
      setsPerWorkerCpuSecond: messages.length / workerCpuSeconds,
      natsCpuSeconds,
    };
  } finally {
    if (stats.length) for (const w of workers) console.error(w.output().trim().split('\n').filter((l) => l.includes('"counters"')).pop());
    await Promise.all(workers.map((w) => w.stop()));
  }
}

async function main(): Promise<void> {
  if (!NATS_SERVER) throw new Error('nats-server is not installed (apt-get install nats-server)');
  const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-scaling-'));
  const server = await startNatsServer();
  try {
    const setup = await prepareRooms(dir, ROOMS);
    const seed = await seedSets(setup, server.url, dir);
    const messages = encodeSets(seed, SETS, 0);
    const nc = await connect({ servers: server.url, maxPingOut: 10 });
    const raw = await rawRates(nc, messages);
    const runs: WorkerRun[] = [];
    for (const count of WORKERS) {
      const run = await workerRun(nc, server.process.pid, server.url, dir, setup, encodeSets(seed, SETS, runs.length + 1), count);
      runs.push(run);
      console.error(`${count} worker(s): ${run.setsPerSecond.toFixed(1)} sets/s (${run.windowsPerSecond.toFixed(0)} windows/s) in ${run.seconds.toFixed(1)} s`);
    }
    await nc.close();
    const natsVersion = execFileSync(NATS_SERVER, ['--version']).toString().trim();
    const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', node: process.version, natsServer: natsVersion };
    const result = { machine, model: setup.modelId, rooms: ROOMS, linksPerSet: setup.links, seedSets: seed.length, raw, runs };
    if (args.includes('--json')) {
      console.log(JSON.stringify(result, null, 2));
      return;
    }
    console.log(`machine: ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, ${machine.natsServer}`);
    console.log(`model ${setup.modelId}; ${SETS} window sets (${setup.links} links each) from ${seed.length} simulated instants of ${ROOMS} rooms\n`);
    console.log(`NATS alone (this process): publish ${raw.publishPerSecond.toFixed(0)} sets/s (${raw.publishMBps.toFixed(1)} MB/s), consume+decode+ack ${raw.consumePerSecond.toFixed(0)} sets/s (${raw.consumeMBps.toFixed(1)} MB/s), ${raw.meanMessageBytes} B per set\n`);
    console.log('| worker processes | sets (pose frames) | seconds | sets/s | windows/s | per worker sets/s | speed-up vs 1 | worker CPU s | sets per worker CPU s | nats-server CPU s |');
    console.log('|---|---|---|---|---|---|---|---|---|---|');
    const one = runs.find((r) => r.workers === 1)?.setsPerSecond ?? runs[0].setsPerSecond;
    for (const r of runs) console.log(`| ${r.workers} | ${r.sets} | ${r.seconds.toFixed(1)} | ${r.setsPerSecond.toFixed(1)} | ${r.windowsPerSecond.toFixed(0)} | ${r.perWorkerSetsPerSecond.toFixed(1)} | ${(r.setsPerSecond / one).toFixed(2)}× | ${r.workerCpuSeconds.toFixed(1)} | ${r.setsPerWorkerCpuSecond.toFixed(1)} | ${r.natsCpuSeconds.toFixed(1)} |`);
    console.log(`\nload average at the end: ${loadavg().map((x) => x.toFixed(2)).join(', ')} (other processes on this machine compete for the same cores)`);
    console.log(`mean pose message ${runs[0].meanPoseBytes} B (stream bytes / frames)`);
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
