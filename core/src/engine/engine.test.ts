import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineNode, definePlugin } from '../index.js';
import { buildFlow, createTestRuntime } from '../testing/index.js';

const counter = defineNode({
  type: 't.count',
  title: 'Count',
  category: 'testing',
  description: 'Emits 1..n, then stops (or runs until stopped when n is 0).',
  inputs: {},
  outputs: { out: { type: 'number' } },
  config: z.object({ n: z.number().int().default(100), intervalMs: z.number().default(0) }),
  source: true,
  create(ctx) {
    return {
      async run() {
        for (let i = 1; ctx.config.n === 0 || i <= ctx.config.n; i++) {
          if (ctx.signal.aborted) return;
          await ctx.emit('out', i);
          if (ctx.config.intervalMs > 0) await new Promise((r) => setTimeout(r, ctx.config.intervalMs));
          else if (i % 64 === 0) await new Promise((r) => setImmediate(r));
        }
      },
    };
  },
});

const flaky = defineNode({
  type: 't.flaky',
  title: 'Throws on every 10th',
  category: 'testing',
  description: 'Passes numbers through, throws on multiples of 10.',
  inputs: { in: { type: 'number' } },
  outputs: { out: { type: 'number' } },
  config: z.object({}),
  create(ctx) {
    return {
      receive(_port, value) {
        if ((value as number) % 10 === 0) throw new Error(`bad ${value}`);
        ctx.emit('out', value);
      },
    };
  },
});

const slow = defineNode({
  type: 't.slow',
  title: 'Slow',
  category: 'testing',
  description: 'Waits before passing a value on.',
  inputs: { in: { type: 'any' } },
  outputs: { out: { type: 'any' } },
  config: z.object({ ms: z.number().default(50) }),
  create(ctx) {
    return {
      async receive(_port, value) {
        await new Promise((r) => setTimeout(r, ctx.config.ms));
        ctx.emit('out', value);
      },
    };
  },
});

const sink: unknown[] = [];
const collect = defineNode({
  type: 't.sink',
  title: 'Sink',
  category: 'testing',
  description: 'Remembers values in a module array.',
  inputs: { in: { type: 'any' } },
  outputs: {},
  config: z.object({}),
  create() {
    return { receive: (_p, v) => void sink.push(v) };
  },
});

const plugin = definePlugin({
  name: 'engine-test',
  setup(ctx) {
    for (const n of [counter, flaky, slow, collect]) ctx.registerNode(n);
  },
});

describe('stream pipelines', () => {
  it('keep running when a node throws on every 10th message, and count the errors', async () => {
    sink.length = 0;
    const runtime = await createTestRuntime({ plugins: [plugin] });
    await runtime.start();
    const deployed = await runtime.deploy(buildFlow({ src: ['t.count', { n: 1000 }], f: ['t.flaky'], out: ['t.sink'] }, ['src.out -> f.in', 'f.out -> out.in']));
    const outcome = await deployed.pipeline.done;
    expect(outcome.status).toBe('completed');
    const counters = deployed.pipeline.counters();
    expect(counters.f.in).toBe(1000);
    expect(counters.f.errors).toBe(100);
    expect(counters.f.lastError).toBe('bad 1000');
    expect(counters.out.in).toBe(900);
    expect(sink).toHaveLength(900);
    expect(sink.every((v) => (v as number) % 10 !== 0)).toBe(true);
    expect(counters.f.latencyP99Ms).toBeGreaterThan(0);
    await runtime.stop();
  });

  it('drop-oldest edges drop when the consumer is slow and count it; block edges lose nothing', async () => {
    sink.length = 0;
    const runtime = await createTestRuntime({ plugins: [plugin] });
    await runtime.start();
    const flow = buildFlow({ src: ['t.count', { n: 50 }], s: ['t.slow', { ms: 2 }], out: ['t.sink'] }, ['src.out -> s.in', 's.out -> out.in']);
    flow.edges[0].data = { capacity: 4, overflow: 'drop-oldest' };
    const dropping = await runtime.deploy(flow);
    await dropping.pipeline.done;
    const c = dropping.pipeline.counters();
    expect(c.s.dropped).toBeGreaterThan(0);
    expect(c.s.in + c.s.dropped).toBe(50);

    sink.length = 0;
    flow.edges[0].data = { capacity: 4, overflow: 'block' };
    const blocking = await runtime.deploy(flow);
    await blocking.pipeline.done;
    expect(blocking.pipeline.counters().s.dropped).toBe(0);
    expect(sink).toHaveLength(50);
    await runtime.stop();
  });

  it('stops an endless pipeline on undeploy', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    await runtime.start();
    const deployed = await runtime.deploy(buildFlow({ src: ['t.count', { n: 0, intervalMs: 1 }], out: ['t.sink'] }, ['src.out -> out.in']), { id: 'p1' });
    await new Promise((r) => setTimeout(r, 30));
    await runtime.undeploy('p1');
    const outcome = await deployed.pipeline.done;
    expect(outcome.status).toBe('stopped');
    expect(runtime.pipelines.size).toBe(0);
    await runtime.stop();
  });
});

describe('jobs', () => {
  const jobFlow = buildFlow(
    { input: ['io.input', { name: 'value', valueType: 'json' }], s: ['t.slow', { ms: 10_000 }], output: ['io.output', { name: 'result' }] },
    ['input.value -> s.in', 's.out -> output.value'],
  );

  it('completes with outputs and an ordered event log', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    await runtime.start();
    const flow = buildFlow({ input: ['io.input', { name: 'x', valueType: 'number' }], s: ['t.slow', { ms: 1 }], output: ['io.output', { name: 'y', collect: 'last' }] }, ['input.value -> s.in', 's.out -> output.value']);
    const job = await runtime.runJob(flow, { inputs: { x: 42 } });
    const result = await job.done;
    expect(result.status).toBe('completed');
    expect(result.outputs).toEqual({ y: 42 });
    const events = job.log.since(0);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect(events[0].event).toBe('job_queued');
    expect(events.at(-1)!.event).toBe('end');
    await runtime.stop();
  });

  it('reports cancelled promptly when cancelled while running', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    await runtime.start();
    const job = await runtime.runJob(jobFlow, { inputs: { value: 1 } });
    await new Promise((r) => setTimeout(r, 20));
    expect(job.status).toBe('in_progress');
    const t0 = Date.now();
    await runtime.jobs.cancel(job.id);
    const result = await job.done;
    expect(result.status).toBe('cancelled');
    expect(Date.now() - t0).toBeLessThan(500);
    await runtime.stop();
  });

  it('reports timed_out past its timeout', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    await runtime.start();
    const job = await runtime.runJob(jobFlow, { inputs: { value: 1 }, timeoutMs: 100 });
    const result = await job.done;
    expect(result.status).toBe('timed_out');
    expect(result.finishedAt! - result.startedAt!).toBeLessThan(1000);
    await runtime.stop();
  });

  it('fails a job whose node throws, and the runtime lives on', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    await runtime.start();
    const flow = buildFlow({ input: ['io.input', { name: 'x', valueType: 'number' }], f: ['t.flaky'], output: ['io.output', { name: 'y' }] }, ['input.value -> f.in', 'f.out -> output.value']);
    const bad = await (await runtime.runJob(flow, { inputs: { x: 20 } })).done;
    expect(bad.status).toBe('failed');
    expect(bad.error).toContain('bad 20');
    const good = await (await runtime.runJob(flow, { inputs: { x: 21 } })).done;
    expect(good.status).toBe('completed');
    expect(good.outputs.y).toEqual([21]);
    await runtime.stop();
  });

  it('queues jobs over the per-flow limit', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin], config: { jobs: { maxPerFlow: 1 } } });
    await runtime.start();
    const a = await runtime.runJob(jobFlow, { inputs: { value: 1 }, flowId: 'f' });
    const b = await runtime.runJob(jobFlow, { inputs: { value: 2 }, flowId: 'f' });
    await new Promise((r) => setTimeout(r, 20));
    expect(a.status).toBe('in_progress');
    expect(b.status).toBe('queued');
    await a.cancel();
    await new Promise((r) => setTimeout(r, 20));
    expect(b.status).toBe('in_progress');
    await runtime.stop();
  });

  it('lets an event-log reader resume from sequence N and get exactly the events after N', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    await runtime.start();
    const flow = buildFlow({ src: ['t.count', { n: 5, intervalMs: 5 }], output: ['io.output', { name: 'n' }] }, ['src.out -> output.value']);
    const job = await runtime.runJob(flow);
    const first: number[] = [];
    for await (const e of job.log.read(0)) {
      first.push(e.seq);
      if (first.length === 3) break;
    }
    const resumed: number[] = [];
    for await (const e of job.log.read(3)) resumed.push(e.seq);
    await job.done;
    const all = job.log.since(0).map((e) => e.seq);
    expect(first).toEqual([1, 2, 3]);
    expect(resumed).toEqual(all.slice(3));
    expect(job.log.since(0).filter((e) => e.event === 'output')).toHaveLength(5);
    await runtime.stop();
  });
});
