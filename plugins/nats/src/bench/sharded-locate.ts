// `npm run bench:locate -w @wiflow/plugin-nats`: CPU per packet of pose workers sharded by room
// (nats.subscribe sharded → pose.locate → tracker.track → nats.publish, separate `wiflow`
// processes), against the same packets located and tracked in this process (the same-run
// baseline: what the estimator itself costs). Starts a real nats-server on loopback.
//
//   node dist/bench/sharded-locate.js [--rooms 4] [--seconds 30] [--workers 1,2] [--json]
import { readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { CsiFrame, PoseFrame } from '@wiflow/core';
import { encodeValue } from '../codec.js';
import { shardSubject } from '../cluster/room-shards.js';
import { NATS_SERVER, startNatsServer } from '../nats-server.test-helper.js';
import { fillSubject } from '../subjects.js';
import { locateWorkerFlow, prepareRooms, startWiflow, type ModelSetup, type WiflowProcess } from './cluster-harness.js';
import { cpuSeconds } from './process-cpu.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const ROOMS = Number(option('rooms', '4'));
const SECONDS = Number(option('seconds', '30'));
const WORKERS = option('workers', '1,2').split(',').map(Number);
const TIMEOUT_MS = 600_000;

interface PoseModule {
  PoseLocator: new (model: unknown, environments: unknown[], references: unknown[], options: Record<string, unknown>) => { push(frame: CsiFrame): PoseFrame | null };
  loadLocatorModel(dir: string): unknown;
  SHIPPED_LOCATOR_DIR: string;
  EnvironmentGeometrySchema: { parse(v: unknown): unknown };
  readReference(file: string): unknown;
}

/** Every packet of every room, in time order (as an ingest of live receivers would publish them). */
async function simulate(setup: ModelSetup): Promise<{ room: string; frame: CsiFrame }[]> {
  const sim = (await import('@wiflow/plugin-sim')) as unknown as { Simulator: new (scenario: unknown) => { run(seconds: number): Iterable<{ frames: CsiFrame[] }> } };
  const all: { room: string; frame: CsiFrame }[] = [];
  for (const room of setup.rooms) {
    const scenario = JSON.parse(readFileSync(room.scenarioFile, 'utf8')) as Record<string, unknown>;
    for (const tick of new sim.Simulator(scenario).run(SECONDS)) for (const frame of tick.frames) all.push({ room: room.environmentId, frame: { ...frame, truth: undefined } });
  }
  return all.sort((a, b) => a.frame.time - b.frame.time);
}

/** The same packets through pose.locate and tracker.track in this process: CPU seconds and pose frames. */
async function baseline(setup: ModelSetup, packets: { frame: CsiFrame }[]): Promise<{ cpuSeconds: number; poseFrames: number }> {
  const pose = (await import('@wiflow/plugin-pose-tfjs')) as unknown as PoseModule;
  const { MultiPersonTracker, TrackerOptionsSchema } = await import('@wiflow/plugin-tracker');
  const locator = new pose.PoseLocator(pose.loadLocatorModel(pose.SHIPPED_LOCATOR_DIR), setup.rooms.map((r) => pose.EnvironmentGeometrySchema.parse(r.geometry)), setup.rooms.map((r) => pose.readReference(r.referenceFile)), { densePose: 'none', processingMode: 'realtime' });
  const tracker = new MultiPersonTracker(TrackerOptionsSchema.parse({}));
  let poseFrames = 0;
  const before = process.cpuUsage();
  for (const { frame } of packets) {
    const out = locator.push(frame);
    if (out) {
      tracker.update(out);
      poseFrames++;
    }
  }
  const used = process.cpuUsage(before);
  return { cpuSeconds: (used.user + used.system) / 1e6, poseFrames };
}

async function reset(jsm: JetStreamManager): Promise<void> {
  for (const stream of ['WIFLOW_CSI', 'WIFLOW_POSE']) {
    await jsm.streams.purge(stream);
    for await (const c of jsm.consumers.list(stream)) await jsm.consumers.delete(stream, c.name);
  }
}

async function main(): Promise<void> {
  if (!NATS_SERVER) throw new Error('nats-server is not installed (apt-get install nats-server)');
  const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-sharded-'));
  const server = await startNatsServer({ streams: true });
  const nc = await connect({ servers: server.url });
  try {
    const setup = await prepareRooms(dir, ROOMS);
    const packets = await simulate(setup);
    const base = await baseline(setup, packets);
    console.error(`baseline: ${packets.length} packets, ${base.poseFrames} pose frames, ${base.cpuSeconds.toFixed(1)} CPU s`);
    /** The packets of run `run`, shifted in time: pose frame ids (environment + timestamp) of an earlier run stay in JetStream's duplicate window. */
    const messagesOf = (run: number) => {
      const shiftMs = run * (SECONDS + 10) * 1000;
      return packets.map(({ room, frame }) => ({ subject: fillSubject(`csi.${room}.{link}`, frame), data: encodeValue({ ...frame, time: frame.time + shiftMs, timestamp: frame.timestamp + shiftMs * 1000 }), id: `${room}.${frame.link.tx}-${frame.link.rx}.${frame.timestamp}:${run}` }));
    };
    const js = jetstream(nc);
    const jsm = await jetstreamManager(nc);
    const runs = [];
    for (const [run, count] of WORKERS.entries()) {
      const messages = messagesOf(run);
      await reset(jsm);
      const flowFile = path.join(dir, `worker-${count}.json`);
      writeFileSync(flowFile, JSON.stringify(locateWorkerFlow(setup, { durable: `bench-${count}`, batch: 64, ackWaitMs: 60_000, heartbeatIntervalMs: 1000 })));
      // Who holds which room, from the group's heartbeats: publish once every room has one owner among all workers.
      const holding = new Map<string, number>();
      const settled = new Promise<void>((resolve) => {
        nc.subscribe(shardSubject(`bench-${count}`), {
          callback: (_e, m) => {
            const beat = JSON.parse(new TextDecoder().decode(m.data)) as { instanceId: string; counters: { rooms?: number } };
            holding.set(beat.instanceId, beat.counters.rooms ?? 0);
            if (holding.size === count && [...holding.values()].reduce((a, b) => a + b, 0) === ROOMS) resolve();
          },
        });
      });
      const workers: WiflowProcess[] = [];
      for (let i = 0; i < count; i++) workers.push(startWiflow(['pipeline', flowFile], { dir, name: `w${count}-${i}`, natsUrl: server.url, allow: ['@wiflow/plugin-nats', '@wiflow/plugin-pose-tfjs', '@wiflow/plugin-tracker'], env: { WIFLOW_INSTANCE_ID: `bench-worker-${i}` } }));
      try {
        await Promise.all(workers.map((w) => w.waitFor('pipeline_started', 120_000)));
        await settled;
        const cpuBefore = workers.reduce((n, w) => n + cpuSeconds(w.child.pid), 0);
        const natsBefore = cpuSeconds(server.process.pid);
        const started = performance.now();
        for (let i = 0; i < messages.length; i += 64) {
          await Promise.all(messages.slice(i, i + 64).map((m) => js.publish(m.subject, m.data, { msgID: m.id })));
        }
        for (;;) {
          const done = (await jsm.streams.info('WIFLOW_POSE')).state.messages;
          if (done >= base.poseFrames) break;
          if (performance.now() - started > TIMEOUT_MS) throw new Error(`${count} workers: ${done}/${base.poseFrames} pose frames after ${TIMEOUT_MS / 1000} s`);
          await new Promise((r) => setTimeout(r, 100));
        }
        const seconds = (performance.now() - started) / 1000;
        const workerCpu = workers.reduce((n, w) => n + cpuSeconds(w.child.pid), 0) - cpuBefore;
        console.error(`${count} worker(s): ${messages.length} packets in ${seconds.toFixed(1)} s, ${workerCpu.toFixed(1)} worker CPU s`);
        runs.push({ workers: count, packets: messages.length, poseFrames: (await jsm.streams.info('WIFLOW_POSE')).state.messages, seconds, packetsPerSecond: messages.length / seconds, workerCpuSeconds: workerCpu, packetsPerWorkerCpuSecond: messages.length / workerCpu, natsCpuSeconds: cpuSeconds(server.process.pid) - natsBefore });
      } finally {
        await Promise.all(workers.map((w) => w.stop()));
      }
    }
    const result = { rooms: ROOMS, seconds: SECONDS, packets: packets.length, baseline: { ...base, packetsPerCpuSecond: packets.length / base.cpuSeconds }, runs, loadAverage: loadavg() };
    if (args.includes('--json')) {
      console.log(JSON.stringify(result, null, 2));
      return;
    }
    console.log(`${ROOMS} simulated rooms × ${SECONDS} s: ${packets.length} packets, ${base.poseFrames} pose frames`);
    console.log(`baseline, this process (pose.locate + tracker.track, no NATS): ${base.cpuSeconds.toFixed(1)} CPU s = ${(packets.length / base.cpuSeconds).toFixed(0)} packets per CPU second\n`);
    console.log('| worker processes | pose frames | seconds | packets/s | worker CPU s | packets per worker CPU s | vs baseline | nats-server CPU s |');
    console.log('|---|---|---|---|---|---|---|---|');
    for (const r of runs) console.log(`| ${r.workers} | ${r.poseFrames} | ${r.seconds.toFixed(1)} | ${r.packetsPerSecond.toFixed(0)} | ${r.workerCpuSeconds.toFixed(1)} | ${r.packetsPerWorkerCpuSecond.toFixed(0)} | ${(r.packetsPerWorkerCpuSecond / (packets.length / base.cpuSeconds)).toFixed(2)}× | ${r.natsCpuSeconds.toFixed(1)} |`);
    console.log(`\nload average at the end: ${loadavg().map((x) => x.toFixed(2)).join(', ')} (other processes on this machine compete for the same cores)`);
  } finally {
    await nc.close();
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exit(1);
});
