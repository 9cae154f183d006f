import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineNode, definePlugin } from '../index.js';
import { buildFlow, createTestRuntime } from '../testing/index.js';

const frames = defineNode({ type: 'c.frames', title: 'Frames', category: 'test', description: '', inputs: {}, outputs: { frames: { type: 'CsiFrame' } }, config: z.object({ rate: z.number().positive() }), source: true, create: () => ({ run: async () => {} }) });
const poses = defineNode({ type: 'c.poses', title: 'Poses', category: 'test', description: '', inputs: { windows: { type: 'CsiWindow', required: true } }, outputs: { poses: { type: 'PoseFrame' } }, config: z.object({}), create: () => ({}) });
const loop = defineNode({ type: 'c.loop', title: 'Loop', category: 'test', description: '', inputs: { in: { type: 'any' } }, outputs: { out: { type: 'any' } }, config: z.object({}), create: () => ({}) });
const plugin = definePlugin({ name: 'compiler-test', setup: (ctx) => [frames, poses, loop].forEach((n) => ctx.registerNode(n)) });

describe('flow compiler', () => {
  it('reports four different problems in one answer, each naming node, port and reason', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    const flow = buildFlow(
      { a: ['c.frames', { rate: -5 }], b: ['c.poses'], x: ['no.such.type'], l1: ['c.loop'], l2: ['c.loop'] },
      ['a.frames -> b.windows', 'a.frames -> ghost.in', 'l1.out -> l2.in', 'l2.out -> l1.in'],
    );
    const result = runtime.compile(flow);
    expect(result.ok).toBe(false);
    const codes = result.problems.map((p) => p.code).sort();
    expect(codes).toEqual(['cycle', 'dangling_edge', 'incompatible_edge', 'invalid_config', 'missing_input', 'unknown_node_type'].sort());
    const incompatible = result.problems.find((p) => p.code === 'incompatible_edge')!;
    expect(incompatible).toMatchObject({ edgeId: 'e0', nodeId: 'b', port: 'windows' });
    expect(incompatible.message).toContain('CsiFrame');
    expect(result.problems.find((p) => p.code === 'invalid_config')).toMatchObject({ nodeId: 'a', field: 'rate' });
    expect(result.problems.find((p) => p.code === 'unknown_node_type')).toMatchObject({ nodeId: 'x' });
    expect(result.problems.find((p) => p.code === 'dangling_edge')).toMatchObject({ edgeId: 'e1', nodeId: 'ghost' });
  });

  it('orders a valid flow in layers', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    const result = runtime.compile(buildFlow({ a: ['c.frames', { rate: 100 }], l1: ['c.loop'], l2: ['c.loop'] }, ['a.frames -> l1.in', 'l1.out -> l2.in']));
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.flow.layers).toEqual([['a'], ['l1'], ['l2']]);
  });

  it('refuses nodes whose capabilities the run does not allow, naming node, capability and holder; runJob answers 403', async () => {
    const reader = defineNode({ type: 'c.reader', title: 'Reader', category: 'test', description: '', inputs: {}, outputs: { frames: { type: 'CsiFrame' } }, config: z.object({}), capabilities: ['fs.read', 'net.connect'], source: true, create: () => ({ run: async () => {} }) });
    const runtime = await createTestRuntime({ plugins: [definePlugin({ name: 'capability-test', setup: (ctx) => ctx.registerNode(reader) })] });
    const flow = buildFlow({ r: ['c.reader'] }, []);
    expect(runtime.compile(flow).ok).toBe(true);
    expect(runtime.compile(flow, { capabilities: ['fs.read', 'net.connect'] }).ok).toBe(true);
    const denied = runtime.compile(flow, { capabilities: ['fs.read'], holder: 'role operator' });
    expect(denied.ok).toBe(false);
    expect(denied.problems).toEqual([{ code: 'capability_denied', nodeId: 'r', capability: 'net.connect', message: 'node r (c.reader) needs capability net.connect, which role operator does not allow' }]);
    await runtime.start();
    const error = await runtime.runJob(flow, { access: { capabilities: [], holder: 'role viewer' } }).then(() => null, (e: { code: string; status: number; message: string }) => e);
    expect(error).toMatchObject({ code: 'WIFLOW_CAPABILITY_DENIED', status: 403 });
    expect(error!.message).toContain('node r (c.reader) needs capability fs.read, which role viewer does not allow');
    await runtime.stop(1000);
  });
});
