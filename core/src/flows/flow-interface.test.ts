import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineNode, definePlugin, flowInterface, type FlowData } from '../index.js';
import { createTestRuntime } from '../testing/index.js';

/** Emits its `count` config value once (what a bound input sets). */
const repeat = defineNode({
  type: 'fi.repeat',
  title: 'Repeat',
  category: 'test',
  description: '',
  inputs: {},
  outputs: { out: { type: 'any' } },
  config: z.object({ count: z.number().int().min(1), label: z.string().default('x') }),
  source: true,
  create: (ctx) => ({ run: async () => void (await ctx.emit('out', `${ctx.config.label}×${ctx.config.count}`)) }),
});
const plugin = definePlugin({ name: 'flow-interface-test', setup: (ctx) => ctx.registerNode(repeat) });

/** io.input `times` (integer) bound to the repeat node's `count`; io.output `said` (last). */
function boundFlow(bind: { node: string; field: string }[] = [{ node: 'rep', field: 'count' }]): FlowData {
  return {
    nodes: [
      { id: 'times', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', title: 'Times', config: { name: 'times', valueType: 'integer', description: 'How often' }, bind } },
      { id: 'label', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'label', valueType: 'text', required: false, default: 'x' }, bind: [{ node: 'rep', field: 'label' }] } },
      { id: 'rep', position: { x: 0, y: 0 }, data: { nodeType: 'fi.repeat', config: { count: 1 } } },
      { id: 'said', position: { x: 0, y: 0 }, data: { nodeType: 'io.output', config: { name: 'said', collect: 'last', schema: { type: 'string' } } } },
    ],
    edges: [{ id: 'e', source: 'rep', sourceHandle: 'out', target: 'said', targetHandle: 'value' }],
  };
}

describe('flow interface', () => {
  it('describes inputs, outputs, bindings and their JSON Schemas from the io nodes', () => {
    const iface = flowInterface(boundFlow());
    expect(iface.inputs.map((i) => [i.name, i.title, i.valueType, i.required, i.hasDefault])).toEqual([
      ['times', 'Times', 'integer', true, false],
      ['label', 'label', 'text', false, true],
    ]);
    expect(iface.bindings).toEqual([
      { input: 'times', inputNodeId: 'times', node: 'rep', field: 'count' },
      { input: 'label', inputNodeId: 'label', node: 'rep', field: 'label' },
    ]);
    expect(iface.outputs).toEqual([{ nodeId: 'said', name: 'said', title: 'said', description: '', collect: 'last', schema: { type: 'string' } }]);
    expect(iface.schemas.input).toEqual({
      type: 'object',
      properties: { times: { type: 'integer', description: 'How often' }, label: { type: 'string', default: 'x' } },
      required: ['times'],
      additionalProperties: false,
    });
    expect(iface.schemas.output).toEqual({ type: 'object', properties: { said: { type: 'string' } } });
  });

  it('reads malformed stored data as an empty interface instead of throwing', () => {
    for (const data of [null, {}, { nodes: 'x' }, { nodes: [null, 3, { data: null }, { id: 'a', data: { nodeType: 'io.input', config: { name: 5 } } }] }]) {
      expect(flowInterface(data as never)).toMatchObject({ inputs: [], outputs: [], bindings: [] });
    }
  });
});

describe('the compiler and input bindings', () => {
  it('writes a job input into the config field it is bound to, so the job runs with it', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    await runtime.start();
    const job = await runtime.runJob(boundFlow(), { inputs: { times: 3, label: 'hi' } });
    const result = await job.done;
    expect(result.status, result.error ?? '').toBe('completed');
    expect(result.outputs.said).toBe('hi×3');
  });

  it('validates the bound value with the target node schema, naming the field', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    const result = runtime.compile(boundFlow(), {}, { times: 0 });
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([expect.objectContaining({ code: 'invalid_config', nodeId: 'rep', field: 'count' })]);
  });

  it('reports bindings to a missing node or a field the node type does not have', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    const result = runtime.compile(boundFlow([{ node: 'ghost', field: 'count' }, { node: 'rep', field: 'cuont' }]));
    expect(result.problems).toEqual([
      expect.objectContaining({ code: 'dangling_edge', nodeId: 'times', message: 'input times is bound to node ghost, which is not in the flow' }),
      expect.objectContaining({ code: 'invalid_config', nodeId: 'rep', field: 'cuont', message: 'input times is bound to fi.repeat config field "cuont", which does not exist' }),
    ]);
  });
});
