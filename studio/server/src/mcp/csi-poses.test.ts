// Acceptance: "a tool call on a flow that processes an uploaded CSI capture returns poses".
// Needs @wiflow/plugin-csi (csi.file, csi.signal-chain) and @wiflow/plugin-pose-tfjs
// (pose.estimate with its shipped model), built. It fails, saying what is missing, when they are not.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FlowData, PoseFrame, WiflowPlugin } from '@wiflow/core';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../testing/test-plugins.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const csiDir = path.resolve(repoRoot, '../shared/data/csi');
const capture = path.join(csiDir, 'intel/log.all_csi.6.7.6.dat');
/** The real captures the acceptance test may use. */
const captures = ['intel/log.all_csi.6.7.6.dat', 'picoscenes/picoscenes_iwl5300_example.csi', 'nexmon/example_4366c0.pcap', 'esp32/example_data.csv', 'atheros/example_bigEndian.dat'].map((f) => path.join(csiDir, f));

interface CsiModule {
  default: WiflowPlugin;
  captureInfo(path: string): Promise<{ links: { tx: string; rx: string }[]; frames: number }>;
  CANONICAL_GRIDS: Record<string, ArrayLike<number>>;
}
interface PoseModule {
  default: WiflowPlugin;
  SHIPPED_MODEL_DIR: string;
  readModelSpec(dir: string): { modelId: string; input: { frames: number; links: number; subcarriers: number } };
  defaultCamera(room: { width: number; depth: number; height: number }): unknown;
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
      await client.connect(new StreamableHTTPClientTransport(new URL(`${local.url}/api/v1/mcp/project/${flow.folder_id}/streamable`)));
      const result = await client.callTool({ name: 'count_capture', arguments: { capture: file.body.id } });
      expect(result.structuredContent).toEqual({ frames: info.frames, windows: results.windows });
      await client.close();
    } finally {
      await local.close();
    }
  });
});

describe('MCP tool on an uploaded CSI capture', () => {
  it('returns poses', { timeout: 180_000 }, async () => {
    expect(existsSync(csiDir), `real captures missing at ${csiDir}`).toBe(true);
    const csi = (await import('@wiflow/plugin-csi').catch((e: Error) => {
      throw new Error(`@wiflow/plugin-csi is not installed or not built: ${e.message}`);
    })) as unknown as CsiModule;
    const pose = (await import('@wiflow/plugin-pose-tfjs').catch((e: Error) => {
      throw new Error(`@wiflow/plugin-pose-tfjs is not installed or not built: ${e.message}`);
    })) as unknown as PoseModule;
    const spec = pose.readModelSpec(pose.SHIPPED_MODEL_DIR);

    s = await startTestStudio({ plugins: [csi.default, pose.default] });
    for (const type of ['csi.file', 'csi.signal-chain', 'pose.estimate']) expect(s.runtime.registry.get(type), `node type ${type} is not registered`).toBeDefined();

    // The real capture with the most frames among those with enough links and frames for the model.
    const candidates = [];
    for (const file of captures) {
      const found = await csi.captureInfo(file).catch(() => null);
      if (found && found.links.length >= spec.input.links && found.frames >= spec.input.frames) candidates.push({ file, info: found });
    }
    candidates.sort((a, b) => b.info.frames - a.info.frames);
    expect(candidates.length, `no real capture has ${spec.input.links} links and ${spec.input.frames} frames for the shipped model`).toBeGreaterThan(0);
    const { file: capture, info } = candidates[0];

    const room = { width: 5, depth: 5, height: 3 };
    const links = info.links.slice(0, spec.input.links).map((l, i) => ({ tx: l.tx, rx: l.rx, txPosition: [0.3, 1 + i, 1.2], rxPosition: [4.7, 1 + i, 1.2] }));
    const grid = Object.entries(csi.CANONICAL_GRIDS).find(([, g]) => g.length === spec.input.subcarriers)?.[0];
    expect(grid, `no canonical grid with ${spec.input.subcarriers} subcarriers`).toBeDefined();

    const data: FlowData = {
      nodes: [
        { id: 'capture', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'capture', valueType: 'file', description: 'An uploaded CSI capture (file id)' }, bind: [{ node: 'reader', field: 'path' }] } },
        { id: 'reader', position: { x: 200, y: 0 }, data: { nodeType: 'csi.file', config: { path: 'set from the capture input', speed: 0 } } },
        { id: 'chain', position: { x: 400, y: 0 }, data: { nodeType: 'csi.signal-chain', config: { grid, windowLength: spec.input.frames, hop: Math.max(1, Math.floor(spec.input.frames / 2)), environmentId: 'lab' } } },
        { id: 'pose', position: { x: 600, y: 0 }, data: { nodeType: 'pose.estimate', config: { environments: [{ id: 'lab', room, links, camera: pose.defaultCamera(room) }] } } },
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
    const file = await s.http.post('/api/v2/files').set(s.alice.auth).attach('file', readFileSync(capture), path.basename(capture)).expect(201);

    const client = new Client({ name: 'csi-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/api/v1/mcp/project/${project.id}/streamable`)));
    const { tools } = await client.listTools();
    expect(tools.find((t) => t.name === 'poses_from_capture')!.inputSchema.properties).toHaveProperty('capture');
    const result = await client.callTool({ name: 'poses_from_capture', arguments: { capture: file.body.id } }, undefined, { timeout: 170_000 });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const frames = (result.structuredContent as { poses: PoseFrame[] }).poses;
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) {
      expect(Array.isArray(frame.persons)).toBe(true);
      expect(frame.metadata.modelId).toBe(spec.modelId);
      expect(frame.environmentId).toBe('lab');
    }
    await client.close();
  });
});
