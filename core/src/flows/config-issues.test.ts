// Compiler problems name the node and the setting in plain words (API, CLI and studio show them as is).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineNode, definePlugin } from '../index.js';
import { buildFlow, createTestRuntime } from '../testing/index.js';

const settings = defineNode({
  type: 't.settings',
  title: 'Settings',
  category: 'test',
  description: '',
  inputs: { in: { type: 'any', required: true } },
  outputs: {},
  config: z
    .object({
      name: z.string().min(1),
      rate: z.number().positive().max(100),
      count: z.number().int().optional(),
      mode: z.enum(['fast', 'slow']).default('fast'),
      zones: z.array(z.object({ id: z.string(), polygon: z.array(z.tuple([z.number(), z.number()])).min(3) })).default([]),
      enabled: z.boolean().default(true),
    })
    .strict(),
  create: () => ({}),
});
const plugin = definePlugin({ name: 'config-issues-test', setup: (ctx) => ctx.registerNode(settings) });

async function problemsOf(config: Record<string, unknown>, title?: string): Promise<string[]> {
  const runtime = await createTestRuntime({ plugins: [plugin] });
  const flow = buildFlow({ s1: ['t.settings', config] }, []);
  if (title) flow.nodes[0].data.title = title;
  const result = runtime.compile(flow);
  return result.ok ? [] : result.problems.map((p) => p.message);
}

describe('config problems in plain words', () => {
  it('says a missing setting is required, naming the node by title, type and id', async () => {
    const messages = await problemsOf({ rate: 5 }, 'Input 1');
    expect(messages).toContain('Node "Input 1" (t.settings, id s1): the setting "name" is required (text).');
    // No schema-library phrasing leaks through.
    expect(messages.join('\n')).not.toMatch(/Invalid input|received undefined|config\./);
  });

  it('names the node type title when the node has none, and says what a wrong value is', async () => {
    const messages = await problemsOf({ name: 'x', rate: 'fast' });
    expect(messages).toContain('Node "Settings" (t.settings, id s1): the setting "rate" must be a number, not the text "fast".');
  });

  it('states limits, choices, whole numbers, unknown settings and nested paths', async () => {
    const messages = await problemsOf({ name: '', rate: 500, count: 1.5, mode: 'medium', zones: [{ id: 'z', polygon: [[0, 0]] }], colour: 'red' });
    const text = messages.join('\n');
    expect(text).toContain('the setting "name" must not be empty.');
    expect(text).toContain('the setting "rate" must be at most 100 (it is the number 500).');
    expect(text).toContain('the setting "count" must be a whole number, not the number 1.5.');
    expect(text).toContain('the setting "mode" must be one of "fast", "slow", not the text "medium".');
    expect(text).toContain('the setting "zones[0].polygon" must have at least 3 items.');
    expect(text).toContain('the setting "colour" is not known to this node type.');
  });

  it('keeps the field path machine-readable for editors', async () => {
    const runtime = await createTestRuntime({ plugins: [plugin] });
    const result = runtime.compile(buildFlow({ s1: ['t.settings', { name: 'x', rate: 0 }] }, []));
    expect(result.ok).toBe(false);
    expect(result.problems.find((p) => p.code === 'invalid_config')).toMatchObject({ nodeId: 's1', field: 'rate', message: 'Node "Settings" (t.settings, id s1): the setting "rate" must be greater than 0 (it is the number 0).' });
  });

  it('says which input of which node is not connected', async () => {
    const messages = await problemsOf({ name: 'x', rate: 1 });
    expect(messages).toEqual(['Node "Settings" (t.settings, id s1): the input "in" is required but not connected.']);
  });
});
