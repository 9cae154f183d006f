import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigStore, configSection, createLogger, definePlugin, PLUGIN_API_VERSION, Runtime, serviceToken, Tokens, WIFLOW_VERSION, type FlowControl, type SystemInfo } from '../index.js';
import { buildFlow, createTestRuntime } from '../testing/index.js';

/** The token plugin API 2 host plugins reached the runtime with. */
const OldRuntimeToken = serviceToken<unknown>('wiflow.Runtime');

/** Members only the whole runtime has: none may show on anything a plugin receives. */
const RUNTIME_ONLY = ['services', 'config', 'hooks', 'http', 'listen', 'start', 'stop', 'plugins'];

describe('plugin capabilities (plugin API 3)', () => {
  it('gives a plugin no way to the runtime: no service token, no hook argument, no http field, no storage request field', async () => {
    const seen: { name: string; value: unknown }[] = [];
    let lookup: { has: boolean; error: unknown } | undefined;
    const probe = definePlugin({
      name: 'probe',
      setup(ctx) {
        let error: unknown;
        try {
          ctx.services.get(OldRuntimeToken);
        } catch (e) {
          error = e;
        }
        lookup = { has: ctx.services.has(OldRuntimeToken), error };
        for (const hook of ['start', 'ready', 'beforeStop', 'stop'] as const) ctx.hooks[hook].tapPromise('probe', async (value) => void seen.push({ name: hook, value }));
        ctx.hooks.resolveStorage.tapPromise('probe', async (request) => {
          seen.push({ name: 'resolveStorage.host', value: request.host });
          return undefined;
        });
        ctx.registerRoutes((http) => void seen.push({ name: 'http', value: http }));
        seen.push({ name: 'Tokens.Flows', value: ctx.services.get(Tokens.Flows) });
        seen.push({ name: 'Tokens.System', value: ctx.services.get(Tokens.System) });
      },
    });
    const runtime = await createTestRuntime({ plugins: [probe] });
    await runtime.listen(0, '127.0.0.1');
    await runtime.stop(2000);

    expect(runtime.plugins.find((r) => r.name === 'probe')?.status).toBe('loaded');
    expect(lookup?.has).toBe(false);
    expect(lookup?.error).toMatchObject({ code: 'WIFLOW_SERVICE_MISSING' });
    expect(seen.map((s) => s.name).sort()).toEqual(['Tokens.Flows', 'Tokens.System', 'beforeStop', 'http', 'ready', 'resolveStorage.host', 'start', 'stop']);
    for (const { name, value } of seen) {
      expect(value, name).not.toBe(runtime);
      const members = name === 'resolveStorage.host' ? RUNTIME_ONLY.filter((m) => m !== 'services' && m !== 'config') : RUNTIME_ONLY;
      for (const member of members) expect(Object.keys(value as object), `${name} has ${member}`).not.toContain(member);
    }
    expect(Object.keys(seen.find((s) => s.name === 'http')!.value as object).sort()).toEqual(['app', 'websocket']);
    // The storage host reads config and services, but cannot deploy, listen or stop anything.
    expect(Object.keys(seen.find((s) => s.name === 'resolveStorage.host')!.value as object).sort()).toEqual(['config', 'logger', 'registry', 'services']);
  });

  it('lets a host plugin run and deploy flows and read system state through Tokens.Flows and Tokens.System', async () => {
    let flows: FlowControl | undefined;
    let system: SystemInfo | undefined;
    const host = definePlugin({
      name: 'host',
      setup(ctx) {
        flows = ctx.services.get(Tokens.Flows);
        system = ctx.services.get(Tokens.System);
      },
    });
    const runtime = await createTestRuntime({ plugins: [host] });
    expect(system?.state).toBe('created');
    expect(system?.version).toBe(WIFLOW_VERSION);
    expect(system?.httpServer).toBeUndefined();
    await runtime.listen(0, '127.0.0.1');
    expect(system?.state).toBe('started');
    expect(system?.httpServer?.listening).toBe(true);

    // The node catalog is read-only: listing works, registering is not there.
    expect(flows!.registry.has('io.input')).toBe(true);
    expect((flows!.registry as unknown as Record<string, unknown>).register).toBeUndefined();

    const echo = buildFlow({ in: ['io.input', { name: 'x', valueType: 'json' }], out: ['io.output', { name: 'y', collect: 'last' }] }, ['in.value -> out.value']);
    const job = await flows!.runJob(echo, { inputs: { x: { n: 7 } }, timeoutMs: 5000 });
    const done = await job.done;
    expect(done.status).toBe('completed');
    expect(done.outputs.y).toEqual({ n: 7 });
    expect(flows!.jobs.get(job.id)?.id).toBe(job.id);

    const feed = buildFlow({ feed: ['test.feed', { input: 'none' }], sink: ['test.collect', { output: 'all' }] }, ['feed.out -> sink.in']);
    const deployed = await flows!.deploy(feed, { id: 'probe-pipeline' });
    expect(flows!.pipelines.get('probe-pipeline')).toBe(deployed);
    await flows!.undeploy('probe-pipeline');
    expect(flows!.pipelines.has('probe-pipeline')).toBe(false);

    await runtime.stop(2000);
    expect(system?.state).toBe('stopped');
  });

  it('reports an installed plugin built for plugin API 2 as outdated, naming what replaced the runtime', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-plugins-'));
    const pkg = path.join(dir, 'node_modules', 'api2-plugin');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name: 'api2-plugin', version: '1.0.0', type: 'module', keywords: ['wiflow-plugin'], wiflow: { entry: 'index.js', apiVersion: 2 } }));
    writeFileSync(path.join(pkg, 'index.js'), `export default { name: 'api2-plugin', setup(ctx) { ctx.services.get({ key: Symbol.for('wiflow.Runtime'), name: 'wiflow.Runtime' }); } };`);
    const runtime = await Runtime.create({ dataDir: path.join(dir, 'data'), searchFrom: [dir], config: { plugins: { allow: ['api2-plugin'] } }, logger: createLogger({ level: 'silent' }) });
    const report = runtime.plugins.find((r) => r.name === 'api2-plugin');
    expect(report?.status).toBe('failed');
    expect(report?.reason).toContain(`was built for plugin API 2; this core provides API ${PLUGIN_API_VERSION}`);
    expect(report?.reason).toContain('Tokens.Flows');
    expect(report?.reason).toContain('docs/plugins.md');
  });
});

describe('typed config reads', () => {
  it("reads core's sections typed, with their defaults", () => {
    const config = new ConfigStore({ server: { port: 9000 } });
    const server = config.get('server');
    // Typed by core's schema: no cast at the call site.
    const port: number = server.port;
    expect(port).toBe(9000);
    expect(server.host).toBe('127.0.0.1');
    expect(config.get('engine').overflow).toBe('block');
  });

  it("reads a section through its declaring schema, a reader's view of another package's section, and a section nobody declared", () => {
    const Owner = z.object({ mode: z.enum(['a', 'b']).default('a'), depth: z.number().default(3) }).prefault({});
    const OwnerSection = configSection('owned', Owner);
    const DepthView = configSection('owned', z.object({ depth: z.number() }).loose());
    const AbsentView = configSection('absent', z.object({ enabled: z.boolean().default(false) }).prefault({}));
    const config = new ConfigStore({ owned: { mode: 'b' } });
    config.section(OwnerSection.name, OwnerSection.schema);

    expect(config.read(OwnerSection)).toBe(config.get('owned'));
    expect(config.read(OwnerSection)).toEqual({ mode: 'b', depth: 3 });
    // The view sees the declaring schema's defaults (depth 3), not only what the file says.
    expect(config.read(DepthView).depth).toBe(3);
    expect(config.read(AbsentView)).toEqual({ enabled: false });

    expect(config.update({ owned: { depth: 5 } }).errors).toEqual([]);
    expect(config.read(DepthView).depth).toBe(5);
    expect(config.read(OwnerSection).depth).toBe(5);
  });

  it('answers WIFLOW_CONFIG_INVALID, naming the section and field, when a view refuses the value', () => {
    const config = new ConfigStore({ other: { level: 'high' } });
    const LevelView = configSection('other', z.object({ level: z.number() }));
    expect(() => config.read(LevelView)).toThrow(expect.objectContaining({ code: 'WIFLOW_CONFIG_INVALID', message: expect.stringContaining('other: level') }));
  });
});
