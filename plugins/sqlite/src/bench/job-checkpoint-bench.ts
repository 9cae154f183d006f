// Job checkpoint cost (core's `jobs.checkpointMs`): a job whose one node logs EVENTS events of
// about 1 KiB each, evenly over SECONDS s, runs in a runtime on a SQLite file. The process's CPU
// seconds for the run are measured with checkpoints off (0: the job is stored when queued,
// started and ended; the baseline, in the same run), at the default 1000 ms, and at 100 ms.
// Usage: node dist/bench/job-checkpoint-bench.js [--events N] [--seconds S] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { defineNode, definePlugin, Runtime, type FlowData, type Logger } from '@wiflow/core';
import { z } from 'zod';
import sqlitePlugin from '../index.js';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const EVENTS = option('events', 20_000);
const SECONDS = option('seconds', 10);
/** Steps per second: the node logs EVENTS / (SECONDS × STEPS) events, then waits 1 / STEPS s. */
const STEPS = 50;
const PAD = 'x'.repeat(1000);

const chattyPlugin = definePlugin({
  name: 'job-checkpoint-bench',
  setup(ctx) {
    ctx.registerNode(
      defineNode({
        type: 'bench.chatty',
        title: 'Chatty',
        category: 'testing',
        description: 'Source: logs `events` events of about 1 KiB evenly over `seconds` s, then ends.',
        inputs: {},
        outputs: { done: { type: 'number' } },
        config: z.object({ events: z.number().int().min(1), seconds: z.number().positive() }),
        source: true,
        create: (c) => ({
          async run() {
            const steps = Math.max(1, Math.round(c.config.seconds * STEPS));
            const perStep = Math.ceil(c.config.events / steps);
            let logged = 0;
            for (let step = 0; step < steps && logged < c.config.events && !c.signal.aborted; step++) {
              for (let i = 0; i < perStep && logged < c.config.events; i++, logged++) c.log({ event: 'bench', data: { i: logged, pad: PAD } });
              await new Promise((resolve) => setTimeout(resolve, 1000 / STEPS));
            }
            await c.emit('done', logged);
          },
        }),
      }),
    );
  },
});

const silent = () => undefined;
const logger: Logger = { debug: silent, info: silent, warn: silent, error: (...args: unknown[]) => console.error(...args), child: () => logger } as unknown as Logger;

const flow: FlowData = {
  nodes: [{ id: 'chatty', position: { x: 0, y: 0 }, data: { nodeType: 'bench.chatty', config: { events: EVENTS, seconds: SECONDS } } }],
  edges: [],
};

interface Row {
  checkpointMs: number;
  cpuSeconds: number;
  wallSeconds: number;
  storedEvents: number;
}

async function measure(checkpointMs: number): Promise<Row> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-job-checkpoint-bench-'));
  const runtime = await Runtime.create({
    discover: false,
    dataDir,
    config: { storage: { kind: 'sqlite' }, jobs: { checkpointMs, timeoutMs: 600_000 } },
    plugins: [sqlitePlugin, chattyPlugin],
    logger,
  });
  await runtime.start();
  try {
    const cpu = process.cpuUsage();
    const wall = performance.now();
    const job = await runtime.runJob(flow);
    const snapshot = await job.done;
    if (snapshot.status !== 'completed') throw new Error(`the bench job ended ${snapshot.status}: ${snapshot.error}`);
    await runtime.jobs.settled();
    const used = process.cpuUsage(cpu);
    const wallSeconds = (performance.now() - wall) / 1000;
    const stored = await runtime.storage.jobs.get(job.id);
    return { checkpointMs, cpuSeconds: (used.user + used.system) / 1e6, wallSeconds, storedEvents: stored?.events.length ?? 0 };
  } finally {
    await runtime.stop(2000);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const rows: Row[] = [];
for (const checkpointMs of [0, 1000, 100]) rows.push(await measure(checkpointMs));
const baseline = rows[0]!;
const result = {
  events: EVENTS,
  seconds: SECONDS,
  eventBytes: 1000,
  cpus: cpus().length,
  loadavg: loadavg().map((l) => Number(l.toFixed(2))),
  rows: rows.map((r) => ({ ...r, cpuOverBaseline: Number((r.cpuSeconds / baseline.cpuSeconds).toFixed(3)), extraCpuPercentOfWall: Number((((r.cpuSeconds - baseline.cpuSeconds) / r.wallSeconds) * 100).toFixed(2)) })),
};
if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
else {
  console.log(`job checkpoints: one job logging ${EVENTS} events of ~1 KiB over ${SECONDS} s, SQLite storage (load ${result.loadavg.join(' ')}, ${result.cpus} cores)`);
  for (const r of result.rows) {
    console.log(
      `  checkpointMs ${String(r.checkpointMs).padStart(4)}: ${r.cpuSeconds.toFixed(2)} CPU-s in ${r.wallSeconds.toFixed(1)} s (${r.cpuOverBaseline}× the baseline, +${r.extraCpuPercentOfWall} % of a core), ${r.storedEvents} events stored`,
    );
  }
}
