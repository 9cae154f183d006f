import { Command } from 'commander';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger, defineNode, definePlugin, PLUGIN_API_VERSION, Runtime, serviceToken, type CliContext } from '../index.js';
import { buildFlow, createTestRuntime } from '../testing/index.js';

const LeftoverToken = serviceToken<{ alive: true }>('test.rollback.Leftover');

const leftoverNode = defineNode({
  type: 'leftover.node',
  title: 'Leftover',
  category: 'testing',
  description: 'Registered by a plugin whose setup fails.',
  inputs: {},
  outputs: { out: { type: 'any' } },
  config: z.object({}),
  create: () => ({}),
});

/** What the failing plugin's registrations did after its setup threw (each should stay empty). */
function failingPlugin(effects: string[]) {
  return definePlugin({
    name: 'failing-plugin',
    config: { leftover: z.object({ level: z.number().default(3) }).prefault({}) },
    setup(ctx) {
      ctx.hooks.start.tapPromise('failing-plugin', async () => void effects.push('start tap ran'));
      ctx.hooks.nodeError.tap('failing-plugin', () => void effects.push('nodeError tap ran'));
      ctx.hooks.beforeStop.withOptions({ stage: -10 }).tapPromise('failing-plugin', async () => void effects.push('beforeStop tap (withOptions) ran'));
      ctx.hooks.compileFlow.tapPromise('failing-plugin', async (flow) => {
        effects.push('compileFlow tap ran');
        return flow;
      });
      ctx.hooks.authenticate.tapPromise('failing-plugin', async () => ({ userId: 'ghost', username: 'ghost', roles: ['admin'], via: 'leftover' }));
      ctx.hooks.stop.intercept({ call: () => void effects.push('stop interceptor ran') });
      ctx.services.provide(LeftoverToken, () => ({ alive: true }));
      ctx.registerNode(leftoverNode);
      ctx.registerRoutes((http) => void http.app.get('/leftover', (_req, res) => void res.json({ leftover: true })));
      ctx.registerCommand((program) => void program.command('leftover').action(() => void effects.push('command ran')));
      throw new Error('licence key expired');
    },
  });
}

describe('a plugin whose setup throws', () => {
  it('leaves nothing behind: no hook tap or interceptor runs, no service, node type, route, CLI command or config section remains', async () => {
    const effects: string[] = [];
    const runtime = await createTestRuntime({ plugins: [failingPlugin(effects)] });
    const report = runtime.plugins.find((r) => r.name === 'failing-plugin');
    expect(report).toMatchObject({ status: 'failed', nodeTypes: [] });
    expect(report?.reason).toContain('licence key expired');

    // services
    expect(runtime.services.has(LeftoverToken)).toBe(false);
    expect(() => runtime.services.get(LeftoverToken)).toThrow(expect.objectContaining({ code: 'WIFLOW_SERVICE_MISSING' }));
    // node types
    expect(runtime.registry.has('leftover.node')).toBe(false);
    // config sections
    expect(Object.keys(runtime.config.all())).not.toContain('leftover');
    expect(runtime.config.update({ leftover: { level: 4 } }).errors).toEqual([{ field: 'leftover', message: 'unknown configuration section', received: { level: 4 } }]);
    // CLI commands: the program `wiflow` builds gets its commands through hooks.cli
    const program = new Command('wiflow');
    runtime.hooks.cli.call(program, { runtime: async () => runtime, print: () => {} } satisfies CliContext);
    expect(program.commands.map((c) => c.name())).not.toContain('leftover');
    // authenticate hook: nobody answers for the credentials
    expect(await runtime.hooks.authenticate.promise({ bearer: 'anything', request: {} as never })).toBeUndefined();

    // start, compileFlow, nodeError and stop: run them all; routes: ask over real HTTP
    const { url } = await runtime.listen(0, '127.0.0.1');
    try {
      expect((await fetch(`${url}/leftover`)).status).toBe(404);
      const job = await runtime.runJob(buildFlow({ feed: ['test.feed', { input: 'values' }], boom: ['test.collect', { output: 'out' }] }, ['feed.out -> boom.in']), { inputs: { values: [1] } });
      expect((await job.done).status).toBe('completed');
    } finally {
      await runtime.stop(2000);
    }
    expect(effects).toEqual([]);
  });

  it('keeps the section an earlier plugin declared when it redeclares it and fails', async () => {
    const first = definePlugin({ name: 'first', config: { shared: z.object({ mode: z.enum(['a', 'b']).default('a') }).prefault({}) }, setup() {} });
    const second = definePlugin({
      name: 'second',
      config: { shared: z.object({ other: z.string().default('x') }).prefault({}) },
      setup() {
        throw new Error('no');
      },
    });
    const runtime = await createTestRuntime({ plugins: [first, second] });
    expect(runtime.config.get('shared')).toEqual({ mode: 'a' });
  });

  it('has its later registrations refused (an async setup that keeps going after it failed)', async () => {
    let late: (() => void) | undefined;
    const plugin = definePlugin({
      name: 'late',
      setup(ctx) {
        late = () => ctx.services.provide(LeftoverToken, () => ({ alive: true }));
        throw new Error('early failure');
      },
    });
    const runtime = await createTestRuntime({ plugins: [plugin] });
    expect(() => late?.()).toThrow(/setup failed and was rolled back/);
    expect(runtime.services.has(LeftoverToken)).toBe(false);
  });
});

describe('plugin context', () => {
  it('gives the declared config sections parsed and typed, and shows updates', async () => {
    const seen: number[] = [];
    const plugin = definePlugin({
      name: 'configured',
      config: { gauge: z.object({ limit: z.number().int().min(1).default(5) }).prefault({}) },
      setup(ctx) {
        seen.push(ctx.config.gauge.limit);
        ctx.registerCommand(() => void seen.push(ctx.config.gauge.limit));
      },
    });
    const runtime = await createTestRuntime({ plugins: [plugin], config: { gauge: { limit: 7 } } });
    expect(runtime.config.update({ gauge: { limit: 9 } }).errors).toEqual([]);
    runtime.hooks.cli.call(new Command('wiflow'), { runtime: async () => runtime, print: () => {} });
    expect(seen).toEqual([7, 9]);
  });

  it('refuses a plugin whose configured section is invalid, with the field in the reason', async () => {
    const plugin = definePlugin({ name: 'strict', config: { gauge: z.object({ limit: z.number().int().min(1) }) }, setup() {} });
    const runtime = await createTestRuntime({ plugins: [plugin], config: { gauge: { limit: 0 } } });
    const report = runtime.plugins.find((r) => r.name === 'strict');
    expect(report?.status).toBe('failed');
    expect(report?.reason).toContain('gauge: limit');
    expect(runtime.config.schemaOf('gauge')).toBeUndefined();
  });

  it('tells a plugin written for API 1 that reads ctx.runtime where things moved', async () => {
    const plugin = definePlugin({
      name: 'old-style',
      setup(ctx) {
        (ctx as unknown as { runtime: { storage: unknown } }).runtime.storage;
      },
    });
    const runtime = await createTestRuntime({ plugins: [plugin] });
    expect(runtime.plugins.find((r) => r.name === 'old-style')?.reason).toContain('ctx.runtime was removed in plugin API 2');
  });

  it('reports an installed plugin that declares apiVersion 1 as outdated, with what changed and where the docs are', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-plugins-'));
    const pkg = path.join(dir, 'node_modules', 'old-plugin');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'old-plugin', version: '1.0.0', type: 'module', keywords: ['wiflow-plugin'], wiflow: { entry: 'index.js', apiVersion: 1 } }));
    writeFileSync(path.join(pkg, 'index.js'), `export default { name: 'old-plugin', setup(ctx) { ctx.runtime.config.section('x', null); } };`);
    const runtime = await Runtime.create({ dataDir: path.join(dir, 'data'), searchFrom: [dir], config: { plugins: { allow: ['old-plugin'] } }, logger: createLogger({ level: 'silent' }) });
    const report = runtime.plugins.find((r) => r.name === 'old-plugin');
    expect(report?.status).toBe('failed');
    expect(report?.reason).toContain(`was built for plugin API 1; this core provides API ${PLUGIN_API_VERSION}`);
    expect(report?.reason).toContain('docs/plugins.md');
  });
});
