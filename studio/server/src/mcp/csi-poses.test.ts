// Acceptance: "a tool call on a flow that processes an uploaded CSI capture returns poses".
// Needs @wiflow/plugin-csi (csi.file, csi.signal-chain) and @wiflow/plugin-pose-tfjs
// (pose.estimate with its shipped model), built. It fails, saying what is missing, when they are not.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FlowData, PoseFrame, WiflowPlugin } from '@wiflow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../testing/test-plugins.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
// Public sample captures kept with plugin-csi (plugins/csi/test-fixtures/README.md: sources and licences).
const csiDir = path.resolve(repoRoot, 'plugins/csi/test-fixtures');
const capture = path.join(csiDir, 'intel/log.all_csi.6.7.6.dat');

interface CsiModule {
  default: WiflowPlugin;
  captureInfo(path: string): Promise<{ links: { tx: string; rx: string }[]; frames: number }>;
  CANONICAL_GRIDS: Record<string, ArrayLike<number>>;
}
interface PoseModule {
  default: WiflowPlugin;
  SHIPPED_MODEL_DIR: string;
  PoseModel: { load(dir: string): Promise<{ hash: string; spec: { modelId: string; training: { dataset?: unknown } } }> };
  DatasetRecipeSchema: { parse(v: unknown): { rooms: unknown; secondsPerSession: unknown; sessionsPerRoom: unknown; seed: unknown; ranges: unknown; signalChain: Record<string, unknown>; windowFrames: number; hopFrames: number } };
  environmentFromScenario(scenario: unknown): { id: string };
}
interface SimModule {
  default: WiflowPlugin;
  planDataset(options: Record<string, unknown>): { sessions: { split: string; scenario: Record<string, unknown> }[] };
}

let s: TestStudio | undefined;
afterAll(async () => {
  await s?.close();
});

describe('an uploaded CSI capture feeds csi.file', () => {
  it('runs csi.file → csi.signal-chain on the upload and counts frames and windows (REST and MCP)', { timeout: 120_000 }, async () => {
    const csi = (await import('@wiflow/plugin-csi')) as unknown as CsiModule;
    const local = await startTestStudio({ plugins: [csi.default] });
    try {
      const data: FlowData = {
        nodes: [
          { id: 'capture', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'capture', valueType: 'file' }, bind: [{ node: 'reader', field: 'path' }] } },
          { id: 'reader', position: { x: 200, y: 0 }, data: { nodeType: 'csi.file', config: { path: 'set from the capture input' } } },
          { id: 'frames', position: { x: 400, y: 100 }, data: { nodeType: 'stest.count', config: {} } },
          { id: 'chain', position: { x: 400, y: 0 }, data: { nodeType: 'csi.signal-chain', config: { grid: 'ht20', windowLength: 4, hop: 2 } } },
          { id: 'windows', position: { x: 600, y: 0 }, data: { nodeType: 'stest.count', config: {} } },
          { id: 'frameCount', position: { x: 800, y: 100 }, data: { nodeType: 'io.output', config: { name: 'frames', collect: 'last', schema: { type: 'integer' } } } },
          { id: 'windowCount', position: { x: 800, y: 0 }, data: { nodeType: 'io.output', config: { name: 'windows', collect: 'last', schema: { type: 'integer' } } } },
        ],
        edges: [
          { id: 'e1', source: 'reader', sourceHandle: 'frames', target: 'frames', targetHandle: 'value' },
          { id: 'e2', source: 'reader', sourceHandle: 'frames', target: 'chain', targetHandle: 'frames' },
          { id: 'e3', source: 'chain', sourceHandle: 'windows', target: 'windows', targetHandle: 'value' },
          { id: 'e4', source: 'frames', sourceHandle: 'count', target: 'frameCount', targetHandle: 'value' },
          { id: 'e5', source: 'windows', sourceHandle: 'count', target: 'windowCount', targetHandle: 'value' },
        ],
      };
      const flow = (await local.http.post('/api/v1/flows/').set(local.alice.auth).send({ name: 'Count capture', mcp_enabled: true, data }).expect(201)).body;
      expect(flow.problems).toEqual([]);
      const file = await local.http.post('/api/v2/files').set(local.alice.auth).attach('file', readFileSync(capture), path.basename(capture)).expect(201);
      const info = await csi.captureInfo(capture);
      const res = await local.http.post(`/api/v1/run/${flow.id}`).set(local.alice.auth).send({ inputs: { capture: file.body.id } }).expect(200);
      const results = Object.assign({}, ...res.body.outputs[0].outputs.map((o: { results: object }) => o.results));
      expect(results.frames).toBe(info.frames);
      expect(results.windows).toBeGreaterThan(0);
      const client = new Client({ name: 'csi-test', version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${local.url}/api/v1/mcp/project/${flow.folder_id}/streamable`), { requestInit: { headers: { 'x-api-key': local.alice.apiKey } } }));
      const result = await client.callTool({ name: 'count_capture', arguments: { capture: file.body.id } });
      expect(result.structuredContent).toEqual({ frames: info.frames, windows: results.windows });
      await client.close();
    } finally {
      await local.close();
    }
  });
});

describe('MCP tool on an uploaded CSI capture', () => {
  // The public sample captures in plugins/csi/test-fixtures are single-link (one tx, one rx); the shipped pose
  // model takes 3 links of 3x3 antennas (docs/model.md). So the capture uploaded here is a
  // wiflow recording (.wfr, plugin-csi's capture format) of a simulated room of the model's
  // test split, made by sim.source → csi.record, and read back by csi.file like any capture.
  it('returns poses', { timeout: 240_000 }, async () => {
    const importOr = async <T>(name: string, load: () => Promise<unknown>): Promise<T> =>
      (await load().catch((e: Error) => {
        throw new Error(`${name} is not installed or not built: ${e.message}`);
      })) as T;
    const csi = await importOr<CsiModule>('@wiflow/plugin-csi', () => import('@wiflow/plugin-csi'));
    const sim = await importOr<SimModule>('@wiflow/plugin-sim', () => import('@wiflow/plugin-sim'));
    const pose = await importOr<PoseModule>('@wiflow/plugin-pose-tfjs', () => import('@wiflow/plugin-pose-tfjs'));
    // WIFLOW_TEST_POSE_MODEL points at another model directory (a bring-your-own model) to try the wiring.
    const modelDir = process.env.WIFLOW_TEST_POSE_MODEL || pose.SHIPPED_MODEL_DIR;
    const model = await pose.PoseModel.load(modelDir);
    const recipe = pose.DatasetRecipeSchema.parse(model.spec.training.dataset);
    const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
    const session = plan.sessions.find((x) => x.split === 'test')!;
    const environment = pose.environmentFromScenario(session.scenario);

    s = await startTestStudio({ plugins: [csi.default, sim.default, pose.default] });
    for (const type of ['sim.source', 'csi.record', 'csi.file', 'csi.signal-chain', 'pose.estimate']) expect(s.runtime.registry.get(type), `node type ${type} is not registered`).toBeDefined();

    // 1. Record a capture (outside the flow service) and upload it.
    const recording = path.join(s.dataDir, 'room.wfr');
    const recorder = await s.runtime.runJob({
      nodes: [
        { id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario: session.scenario, realtime: false, durationS: 8 } } },
        { id: 'rec', position: { x: 200, y: 0 }, data: { nodeType: 'csi.record', config: { path: recording, source: 'studio-server acceptance test' } } },
      ],
      edges: [
        { id: 'f', source: 'sim', sourceHandle: 'frames', target: 'rec', targetHandle: 'frames' },
        { id: 't', source: 'sim', sourceHandle: 'truth', target: 'rec', targetHandle: 'truth' },
      ],
    });
    expect((await recorder.done).status).toBe('completed');
    const file = await s.http.post('/api/v2/files').set(s.alice.auth).attach('file', readFileSync(recording), 'room.wfr').expect(201);

    // 2. A flow: capture input (bound to csi.file's path) → signal chain → pose model → poses.
    const data: FlowData = {
      nodes: [
        { id: 'capture', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'capture', valueType: 'file', description: 'An uploaded CSI capture (file id)' }, bind: [{ node: 'reader', field: 'path' }] } },
        { id: 'reader', position: { x: 200, y: 0 }, data: { nodeType: 'csi.file', config: { path: 'set from the capture input' } } },
        { id: 'chain', position: { x: 400, y: 0 }, data: { nodeType: 'csi.signal-chain', config: { ...recipe.signalChain, windowLength: recipe.windowFrames, hop: recipe.hopFrames, environmentId: environment.id } } },
        { id: 'pose', position: { x: 600, y: 0 }, data: { nodeType: 'pose.estimate', config: { model: modelDir === pose.SHIPPED_MODEL_DIR ? '' : modelDir, environments: [environment], densePose: 'none', presenceThreshold: 0 } } },
        { id: 'poses', position: { x: 800, y: 0 }, data: { nodeType: 'io.output', config: { name: 'poses', collect: 'all', description: 'Pose frames' } } },
      ],
      edges: [
        { id: 'e1', source: 'reader', sourceHandle: 'frames', target: 'chain', targetHandle: 'frames' },
        { id: 'e2', source: 'chain', sourceHandle: 'windows', target: 'pose', targetHandle: 'windows' },
        { id: 'e3', source: 'pose', sourceHandle: 'poses', target: 'poses', targetHandle: 'value' },
      ],
    };
    const project = (await s.http.post('/api/v1/projects/').set(s.alice.auth).send({ name: 'CSI' }).expect(201)).body;
    const flow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Poses from capture', action_name: 'poses_from_capture', mcp_enabled: true, folder_id: project.id, data }).expect(201)).body;
    expect(flow.problems).toEqual([]);

    // 3. The MCP tool call on the uploaded file returns poses.
    const client = new Client({ name: 'csi-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/api/v1/mcp/project/${project.id}/streamable`), { requestInit: { headers: { 'x-api-key': s.alice.apiKey } } }));
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'poses_from_capture')!.inputSchema.properties).toHaveProperty('capture');
    const result = await client.callTool({ name: 'poses_from_capture', arguments: { capture: file.body.id } }, undefined, { timeout: 200_000 });
    expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBeFalsy();
    const frames = (result.structuredContent as { poses: PoseFrame[] }).poses;
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) {
      expect(Array.isArray(frame.persons)).toBe(true);
      expect(frame.metadata.modelId).toBe(model.spec.modelId);
      expect(frame.metadata.modelHash).toBe(model.hash);
      expect(frame.environmentId).toBe(environment.id);
    }
    expect(frames.some((f) => f.persons.length > 0)).toBe(true);
    await client.close();
  });
});
