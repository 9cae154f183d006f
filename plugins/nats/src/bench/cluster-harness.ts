// Shared by the multi-process test (src/cluster.test.ts) and the scaling benchmark
// (src/bench/scaling.ts): simulated rooms the shipped pose model can take, the flows of the
// ingest, worker and API runtimes, and `wiflow` child processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root (plugins/nats/{src,dist}/bench → ../../../..). */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The `wiflow` bin. */
export const WIFLOW_BIN = path.join(REPO_ROOT, 'core/bin/wiflow.js');

/** One simulated room: its scenario file (for sim.source), its geometry (for pose.estimate and pose.locate) and its empty-room reference file (for pose.locate). */
export interface Room {
  environmentId: string;
  scenarioFile: string;
  geometry: { id: string } & Record<string, unknown>;
  referenceFile: string;
}

/** What the ingest and worker flows need to match the shipped model's contract. */
export interface ModelSetup {
  rooms: Room[];
  /** `csi.signal-chain` config of the model's contract (docs/model.md), without environmentId. */
  signalChain: Record<string, unknown>;
  /** Links per room (the model's `input.links`): windows per set. */
  links: number;
  modelId: string;
}

interface PoseModule {
  PoseModel: { load(dir: string): Promise<{ spec: { modelId: string; input: { links: number }; training: { dataset?: unknown } } }> };
  SHIPPED_MODEL_DIR: string;
  DatasetRecipeSchema: { parse(v: unknown): { rooms: number; secondsPerSession: number; sessionsPerRoom: number; seed: string | number; ranges: unknown; signalChain: Record<string, unknown>; windowFrames: number; hopFrames: number } };
  environmentFromScenario(scenario: unknown): { id: string } & Record<string, unknown>;
  simulateReference(sim: unknown, scenario: { environmentId: string }): unknown;
  writeReference(file: string, reference: unknown): void;
}
interface SimModule {
  planDataset(options: Record<string, unknown>): { sessions: { split: string; scenario: Record<string, unknown> }[] };
}

/** A fresh temporary folder with `rooms` prepared rooms (see prepareRooms), and a writer of JSON files into it (returns the path). */
export async function clusterWorkspace(prefix: string, rooms: number): Promise<{ dir: string; setup: ModelSetup; write(name: string, body: unknown): string }> {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  const setup = await prepareRooms(dir, rooms);
  const write = (name: string, body: unknown) => {
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(body));
    return file;
  };
  return { dir, setup, write };
}

/**
 * `count` rooms of the shipped model's test split (3 links of 3×3 antennas, the simulator's
 * rooms the model never trained on), written as scenario files under `dir` with environment
 * ids `room-0`, `room-1`, ...
 */
export async function prepareRooms(dir: string, count: number): Promise<ModelSetup> {
  const pose = (await import('@wiflow/plugin-pose-tfjs')) as unknown as PoseModule;
  const sim = (await import('@wiflow/plugin-sim')) as unknown as SimModule;
  const model = await pose.PoseModel.load(pose.SHIPPED_MODEL_DIR);
  const recipe = pose.DatasetRecipeSchema.parse(model.spec.training.dataset);
  const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
  const sessions = plan.sessions.filter((s) => s.split === 'test').slice(0, count);
  if (sessions.length < count) throw new Error(`the model's test split has ${sessions.length} sessions, ${count} asked`);
  const rooms = sessions.map((session, i): Room => {
    // Radios named per room (as real receivers have their own MACs): one pose.locate node
    // serves several rooms and tells them apart by their links.
    const radios = (session.scenario.radios as { id: string }[]).map((r) => ({ ...r, id: `room-${i}-${r.id}` }));
    const scenario = { ...session.scenario, environmentId: `room-${i}`, radios };
    const scenarioFile = path.join(dir, `room-${i}.scenario.json`);
    writeFileSync(scenarioFile, JSON.stringify(scenario));
    // The room recorded empty, as an installer would before starting pose.locate.
    const referenceFile = path.join(dir, `room-${i}.reference.json`);
    pose.writeReference(referenceFile, pose.simulateReference(sim, scenario as { environmentId: string }));
    return { environmentId: `room-${i}`, scenarioFile, geometry: pose.environmentFromScenario(scenario), referenceFile };
  });
  return {
    rooms,
    signalChain: { ...recipe.signalChain, windowLength: recipe.windowFrames, hop: recipe.hopFrames },
    links: model.spec.input.links,
    modelId: model.spec.modelId,
  };
}

type NodeSpec = [nodeType: string, config: Record<string, unknown>];

/** A flow file body from `{ id: [type, config] }` and `['a.port', 'b.port']` edges. */
export function flow(nodes: Record<string, NodeSpec>, edges: [string, string][]): { name: string; data: { nodes: unknown[]; edges: unknown[] } } {
  return {
    name: 'cluster',
    data: {
      nodes: Object.entries(nodes).map(([id, [nodeType, config]]) => ({ id, position: { x: 0, y: 0 }, data: { nodeType, config } })),
      edges: edges.map(([s, t], i) => ({ id: `e${i}`, source: s.split('.')[0], sourceHandle: s.split('.')[1], target: t.split('.')[0], targetHandle: t.split('.')[1] })),
    },
  };
}

/**
 * Ingest runtime: per room `sim.source → csi.signal-chain → nats.publish`, the windows of
 * every link of one instant gathered into one message on `csi.<room>.window-set`. `realtime`
 * paces the simulator at the recording's rate (tests that must act mid-stream use it: unpaced,
 * an idle machine can process every set before the test gets to act); the bench runs unpaced.
 */
export function ingestFlow(setup: ModelSetup, durationS: number, options: { realtime?: boolean } = {}) {
  const nodes: Record<string, NodeSpec> = {};
  const edges: [string, string][] = [];
  setup.rooms.forEach((room, i) => {
    nodes[`sim${i}`] = ['sim.source', { scenario: room.scenarioFile, realtime: options.realtime ?? false, durationS, attachTruth: false }];
    nodes[`chain${i}`] = ['csi.signal-chain', { ...setup.signalChain, environmentId: room.environmentId }];
    edges.push([`sim${i}.frames`, `chain${i}.frames`], [`chain${i}.windows`, `pub${i}.in`]);
    nodes[`pub${i}`] = ['nats.publish', { subject: 'csi.{environment}.window-set', messageId: '{environment}.{endTimestamp}', gather: { key: '{environment}', size: setup.links } }];
  });
  return flow(nodes, edges);
}

/** Worker runtime: `nats.subscribe(csi.>) → pose.estimate → nats.publish(pose.<environment>)`. */
export function workerFlow(setup: ModelSetup, options: { durable?: string; batch?: number; ackWaitMs?: number; maxBatch?: number } = {}) {
  return flow(
    {
      sub: ['nats.subscribe', { subject: 'csi.>', durable: options.durable ?? 'pose-workers', batch: options.batch ?? 16, ackWaitMs: options.ackWaitMs ?? 2000 }],
      pose: ['pose.estimate', { environments: setup.rooms.map((r) => r.geometry), densePose: 'none', maxBatch: options.maxBatch ?? 32 }],
      pub: ['nats.publish', { subject: 'pose.{environment}', messageId: '{environment}.{timestamp}' }],
    },
    [['sub.out', 'pose.windows'], ['pose.poses', 'pub.in']],
  );
}

/**
 * Ingest runtime for the default estimator: per room `sim.source → nats.publish` of the raw
 * CSI frames on `csi.<room>.<link>` (pose.locate takes raw packets, not windows), message id
 * `<link>.<timestamp>` so a re-sent packet is dropped by JetStream.
 */
export function frameIngestFlow(setup: ModelSetup, durationS: number, options: { realtime?: boolean } = {}) {
  const nodes: Record<string, NodeSpec> = {};
  const edges: [string, string][] = [];
  setup.rooms.forEach((room, i) => {
    nodes[`sim${i}`] = ['sim.source', { scenario: room.scenarioFile, realtime: options.realtime ?? false, durationS, attachTruth: false }];
    nodes[`pub${i}`] = ['nats.publish', { subject: `csi.${room.environmentId}.{link}`, messageId: '{link}.{timestamp}' }];
    edges.push([`sim${i}.frames`, `pub${i}.in`]);
  });
  return flow(nodes, edges);
}

/**
 * Worker runtime of the default estimator: `nats.subscribe(csi.{room}.>, sharded by room) →
 * pose.locate → tracker.track → nats.publish(pose.<environment>)`. Each room's packets reach
 * one worker of the group (rendezvous assignment over the live workers), so the per-room state
 * of pose.locate (packet history, count tracker) and of tracker.track (track ids) holds.
 */
export function locateWorkerFlow(setup: ModelSetup, options: { durable?: string; batch?: number; ackWaitMs?: number; heartbeatIntervalMs?: number; missedBeats?: number } = {}) {
  return flow(
    {
      sub: ['nats.subscribe', {
        subject: 'csi.{room}.>',
        durable: options.durable ?? 'pose-workers',
        batch: options.batch ?? 64,
        ackWaitMs: options.ackWaitMs ?? 2000,
        shard: { rooms: setup.rooms.map((r) => r.environmentId), heartbeatIntervalMs: options.heartbeatIntervalMs ?? 2000, missedBeats: options.missedBeats ?? 3 },
      }],
      pose: ['pose.locate', { environments: setup.rooms.map((r) => r.geometry), references: setup.rooms.map((r) => r.referenceFile), densePose: 'none' }],
      track: ['tracker.track', {}],
      pub: ['nats.publish', { subject: 'pose.{environment}', messageId: '{environment}.{timestamp}' }],
    },
    [['sub.out', 'pose.frames'], ['pose.poses', 'track.poses'], ['track.poses', 'pub.in']],
  );
}

/** A `wiflow` child process with its output collected. */
export interface WiflowProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when the output contains `text`; rejects when the process exits first or after `timeoutMs`. */
  waitFor(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** SIGTERM and wait for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

/** Start `wiflow <args>` with `plugins.allow` limited to `allow` (faster starts). */
export function startWiflow(args: string[], options: { dir: string; name: string; allow: string[]; natsUrl: string; config?: Record<string, unknown>; env?: NodeJS.ProcessEnv }): WiflowProcess {
  const configFile = path.join(options.dir, `${options.name}.config.json`);
  writeFileSync(configFile, JSON.stringify({ ...options.config, plugins: { allow: options.allow } }));
  const child = spawn(process.execPath, [WIFLOW_BIN, ...args, '--config', configFile, '--data-dir', path.join(options.dir, options.name)], {
    cwd: REPO_ROOT,
    env: { ...process.env, WIFLOW_NATS_URL: options.natsUrl, WIFLOW_LOG_LEVEL: 'warn', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const waiters = new Set<() => void>();
  const onData = (d: Buffer) => {
    out += d.toString();
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  return {
    child,
    output: () => out,
    waitFor: (text, timeoutMs = 60_000) =>
      new Promise<void>((resolve, reject) => {
        const found = () => (typeof text === 'string' ? out.includes(text) : text.test(out));
        if (found()) return resolve();
        const done = (error?: Error) => {
          waiters.delete(check);
          clearTimeout(timer);
          child.off('exit', onExit);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (found()) done();
        };
        const onExit = (code: number | null) => done(new Error(`${options.name} exited (${code}) before printing ${String(text)}:\n${out.slice(-3000)}`));
        const timer = setTimeout(() => done(new Error(`${options.name}: no ${String(text)} within ${timeoutMs} ms:\n${out.slice(-3000)}`)), timeoutMs);
        waiters.add(check);
        child.once('exit', onExit);
      }),
    stop: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/** Every `pipeline_ended` / `counters` JSON line a `wiflow pipeline` printed. */
export function pipelineEvents(output: string): { event: string; counters?: Record<string, { stats?: Record<string, number> } & Record<string, unknown>> }[] {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{"event"'))
    .map((l) => JSON.parse(l) as { event: string });
}

/** The raw frames an ingest runtime (`frameIngestFlow`) published over all its rooms. */
export function publishedFrames(ingestOutput: string, setup: ModelSetup): number {
  return publishedSets(ingestOutput, setup);
}

/** The window sets an ingest runtime (`ingestFlow`) published over all its rooms, from its `pipeline_ended` counters. */
export function publishedSets(ingestOutput: string, setup: ModelSetup): number {
  const ended = pipelineEvents(ingestOutput).find((e) => e.event === 'pipeline_ended');
  if (!ended) throw new Error('the ingest runtime has not ended its pipeline');
  return setup.rooms.reduce((n, _room, i) => n + (ended.counters![`pub${i}`].stats!.published ?? 0), 0);
}
