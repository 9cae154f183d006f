// @wiflow/core/testing: the plugin author kit — run one node or a small flow in-process.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { z } from 'zod';
import type { FlowData, FlowEdge, FlowNode } from '../flows/flow.js';
import type { JobSnapshot } from '../engine/job.js';
import type { NodeCounters } from '../engine/node-runner.js';
import { defineNode, type NodeDefinition } from '../nodes/define-node.js';
import { definePlugin, type WiflowPlugin } from '../plugins/define-plugin.js';
import type { PluginReport } from '../plugins/plugin-host.js';
import { createLogger } from '../runtime/logger.js';
import { Runtime } from '../runtime/runtime.js';

export { ArrivalWaiters } from './arrival-waiters.js';
export { errorCatalogueProblems, type CatalogueEntry } from './error-catalogue.js';
export { runWiflow, WIFLOW_BIN, type WiflowRun } from './cli-process.js';
export { confinementFolders, confinementRefusal, type ConfinementFolders } from './confinement-folders.js';

const feedNode = defineNode({
  type: 'test.feed',
  title: 'Test feed',
  category: 'testing',
  description: 'Emits the values of the job input named by `input`, one message each.',
  inputs: {},
  outputs: { out: { type: 'any' } },
  config: z.object({ input: z.string() }),
  source: true,
  create(ctx) {
    return {
      async run() {
        const values = (ctx.jobInputs[ctx.config.input] as unknown[] | undefined) ?? [];
        for (const v of values) {
          if (ctx.signal.aborted) return;
          await ctx.emit('out', v);
        }
      },
    };
  },
});

const collectNode = defineNode({
  type: 'test.collect',
  title: 'Test collector',
  category: 'testing',
  description: 'Collects every value into the job output named by `output`.',
  inputs: { in: { type: 'any' } },
  outputs: {},
  config: z.object({ output: z.string() }),
  create(ctx) {
    return { receive: (_p, v) => ctx.setOutput(ctx.config.output, v, 'all') };
  },
});

/** The harness's own node types (test.feed, test.collect). */
export const testingPlugin: WiflowPlugin = definePlugin({
  name: 'wiflow:testing',
  setup(ctx) {
    ctx.registerNode(feedNode);
    ctx.registerNode(collectNode);
  },
});

/** Options for a test runtime. */
export interface TestRuntimeOptions {
  plugins?: WiflowPlugin[];
  config?: Record<string, unknown>;
  /** Discover installed plugins too (default false: only the plugins given). */
  discover?: boolean;
  dataDir?: string;
}

/** A runtime in a fresh temp data dir, quiet logs, with the harness node types and the given plugins. */
export async function createTestRuntime(options: TestRuntimeOptions = {}): Promise<Runtime> {
  return Runtime.create({
    dataDir: options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'wiflow-test-')),
    config: options.config,
    discover: options.discover ?? false,
    plugins: [testingPlugin, ...(options.plugins ?? [])],
    logger: createLogger({ level: (process.env.WIFLOW_LOG_LEVEL as 'debug' | undefined) ?? 'silent' }),
  });
}

/**
 * Install a plugin package (a folder with its package.json and built entry) into a fresh
 * `node_modules` and build a runtime that discovers it as `wiflow serve` would: package.json
 * `wiflow` key and keyword, apiVersion check, import, setup. Only that plugin loads
 * (`plugins.allow`); `report` says whether it loaded, and why not.
 */
export async function loadInstalledPlugin(packageDir: string, options: { config?: Record<string, unknown>; dataDir?: string } = {}): Promise<{ runtime: Runtime; report: PluginReport | undefined }> {
  const { name } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8')) as { name: string };
  const root = mkdtempSync(path.join(tmpdir(), 'wiflow-installed-'));
  const target = path.join(root, 'node_modules', name);
  mkdirSync(path.dirname(target), { recursive: true });
  // A link, as npm workspaces and `npm link` install: the plugin resolves its own dependencies from where it lives.
  symlinkSync(path.resolve(packageDir), target, 'dir');
  const runtime = await Runtime.create({
    dataDir: options.dataDir ?? path.join(root, 'data'),
    searchFrom: [root],
    config: { ...options.config, plugins: { allow: [name] } },
    logger: createLogger({ level: (process.env.WIFLOW_LOG_LEVEL as 'debug' | undefined) ?? 'silent' }),
  });
  return { runtime, report: runtime.plugins.find((r) => r.name === name) };
}

/**
 * The `wiflow` program's plugin commands for a runtime, as the CLI registers them (through
 * `hooks.cli`); `print` receives what commands print. Run one with
 * `await program.parseAsync(['my-command', ...args], { from: 'user' })`.
 */
export function pluginCommands(runtime: Runtime, print: (line: string) => void = () => {}): Command {
  const program = new Command('wiflow').exitOverride();
  runtime.hooks.cli.call(program, { runtime: async () => runtime, print });
  return program;
}

/** What `runNode` returns. */
export interface NodeRunResult {
  /** Values emitted per output port. */
  outputs: Record<string, unknown[]>;
  status: JobSnapshot['status'];
  error: string | null;
  counters: NodeCounters | undefined;
}

/**
 * Run one node type in job mode: feed `inputs[port]` values into its input ports, collect
 * what it emits per output port. Sources run until they finish (or `timeoutMs`).
 */
export async function runNode(
  definition: NodeDefinition,
  options: { config?: Record<string, unknown>; inputs?: Record<string, unknown[]>; plugins?: WiflowPlugin[]; runtime?: Runtime; timeoutMs?: number } = {},
): Promise<NodeRunResult> {
  const plugin = definePlugin({ name: `test:${definition.type}`, setup: (ctx) => ctx.registerNode(definition) });
  const runtime = options.runtime ?? (await createTestRuntime({ plugins: [...(options.plugins ?? []), ...(options.plugins?.some((p) => p.name === plugin.name) ? [] : [plugin])] }));
  if (!runtime.registry.has(definition.type)) throw new Error(`node type ${definition.type} is not registered in the given runtime`);
  const nodes: FlowNode[] = [{ id: 'subject', position: { x: 0, y: 0 }, data: { nodeType: definition.type, config: options.config ?? {} } }];
  const edges: FlowEdge[] = [];
  const jobInputs: Record<string, unknown> = {};
  for (const port of Object.keys(definition.inputs)) {
    const values = options.inputs?.[port];
    if (!values) continue;
    nodes.push({ id: `feed_${port}`, position: { x: 0, y: 0 }, data: { nodeType: 'test.feed', config: { input: port } } });
    edges.push({ id: `e_feed_${port}`, source: `feed_${port}`, sourceHandle: 'out', target: 'subject', targetHandle: port });
    jobInputs[port] = values;
  }
  for (const port of Object.keys(definition.outputs)) {
    nodes.push({ id: `collect_${port}`, position: { x: 0, y: 0 }, data: { nodeType: 'test.collect', config: { output: port } } });
    edges.push({ id: `e_collect_${port}`, source: 'subject', sourceHandle: port, target: `collect_${port}`, targetHandle: 'in' });
  }
  await runtime.start();
  const job = await runtime.runJob({ nodes, edges }, { inputs: jobInputs, timeoutMs: options.timeoutMs ?? 30_000 });
  const result = await job.done;
  const outputs: Record<string, unknown[]> = {};
  for (const port of Object.keys(definition.outputs)) outputs[port] = (result.outputs[port] as unknown[] | undefined) ?? [];
  return { outputs, status: result.status, error: result.error, counters: job.counters().subject };
}

/** Run a flow as a job in a runtime and wait for its end. */
export async function runFlow(runtime: Runtime, data: FlowData, inputs: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<JobSnapshot> {
  await runtime.start();
  const job = await runtime.runJob(data, { inputs, timeoutMs });
  return job.done;
}

/** Build flow data from a compact description: nodes `{id: [type, config]}` and edges `'a.out -> b.in'`. */
export function buildFlow(nodes: Record<string, [string, Record<string, unknown>?]>, edges: string[]): FlowData {
  return {
    nodes: Object.entries(nodes).map(([id, [nodeType, config]], i) => ({ id, position: { x: i * 220, y: 0 }, data: { nodeType, config: config ?? {} } })),
    edges: edges.map((spec, i) => {
      const match = /^\s*([^.\s]+)\.(\S+)\s*->\s*([^.\s]+)\.(\S+)\s*$/.exec(spec);
      if (!match) throw new Error(`edge ${JSON.stringify(spec)} is not "node.port -> node.port"`);
      return { id: `e${i}`, source: match[1], sourceHandle: match[2], target: match[3], targetHandle: match[4] };
    }),
  };
}
