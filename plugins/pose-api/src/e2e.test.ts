// The default pipeline end to end: simulator → CSI signal chain → shipped pose model →
// pose.publish, started and stopped through the API; /pose/latest returns the model's output
// with its provenance. Skips (saying why) when the shipped weights are not there.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import supertest from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { Runtime, createLogger, type CsiFrame } from '@wiflow/core';
import csiPlugin from '@wiflow/plugin-csi';
import posePlugin, { DatasetRecipeSchema, PoseModel, SHIPPED_MODEL_DIR } from '@wiflow/plugin-pose-tfjs';
import simPlugin from '@wiflow/plugin-sim';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import trackerPlugin from '@wiflow/plugin-tracker';
import { createIdentityPlugin } from '@wiflow/plugin-identity';
import { createPoseApiPlugin, PoseApiToken, type PoseApi } from './index.js';

const repoRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');
const scenario = path.join(repoRoot, 'examples/scenarios/home-monitored.yaml');
const shipped = existsSync(path.join(SHIPPED_MODEL_DIR, 'model.json')) && existsSync(scenario);
if (!shipped) console.warn(`e2e skipped: needs the shipped model at ${SHIPPED_MODEL_DIR} and ${scenario}`);

describe.skipIf(!shipped)('default pipeline through the pose API', () => {
  let runtime: Runtime | undefined;
  afterAll(async () => {
    await runtime?.stop(5000);
    if (runtime) rmSync(runtime.dataDir, { recursive: true, force: true });
  });

  it('start runs simulator → signal chain → pose.estimate; /pose/latest is real model output with provenance; stop stops the data', async () => {
    const model = await PoseModel.load(SHIPPED_MODEL_DIR);
    const recipe = DatasetRecipeSchema.parse(model.spec.training.dataset);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-pose-e2e-'));
    const flowFile = path.join(dataDir, 'default-pipeline.json');
    const environmentId = 'home';
    writeFileSync(
      flowFile,
      JSON.stringify({
        nodes: [
          { id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario, realtime: true, loop: true } } },
          { id: 'chain', position: { x: 200, y: 0 }, data: { nodeType: 'csi.signal-chain', config: { ...recipe.signalChain, windowLength: recipe.windowFrames, hop: recipe.hopFrames, environmentId } } },
          { id: 'pose', position: { x: 400, y: 0 }, data: { nodeType: 'pose.estimate', config: { scenario } } },
          { id: 'publish', position: { x: 600, y: 0 }, data: { nodeType: 'pose.publish', config: {} } },
        ],
        edges: [
          { id: 'e1', source: 'sim', sourceHandle: 'frames', target: 'chain', targetHandle: 'frames' },
          { id: 'e2', source: 'chain', sourceHandle: 'windows', target: 'pose', targetHandle: 'windows' },
          { id: 'e3', source: 'pose', sourceHandle: 'poses', target: 'publish', targetHandle: 'poses' },
        ],
      }),
    );
    runtime = await Runtime.create({
      dataDir,
      discover: false,
      logger: createLogger({ level: 'silent' }),
      config: { api: { convention: 'A', pipeline: { flow: flowFile } }, storage: { kind: 'sqlite' } },
      plugins: [sqlitePlugin, simPlugin, csiPlugin, posePlugin, trackerPlugin, createIdentityPlugin({ print: () => undefined, env: {} }), createPoseApiPlugin({ env: {} })],
    });
    const address = await runtime.listen(0, '127.0.0.1');
    const api = runtime.services.get(PoseApiToken);
    const token = api.auth.signAccessToken((await runtime.storage.users.getByUsername('admin'))!).token;
    const http = supertest(address.url);
    const auth = { Authorization: `Bearer ${token}` };

    expect((await http.get('/api/v1/pose/latest').set(auth)).status).toBe(503);
    const started = await http.post('/api/v1/system/start').set(auth).send({});
    expect(started.status).toBe(202);
    await api.system.settled();
    expect(api.system.lastError).toBeNull();
    expect(api.system.state).toBe('running');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no pose frame within 60 s (${api.system.lastError ?? "no error"}): ${JSON.stringify(api.system.components().map((c) => [c.id, c.counters.in, c.counters.out, c.counters.errors, c.counters.lastError, c.counters.stats]))}`)), 60_000);
      const off = api.hub.subscribe({ frame: () => (clearTimeout(timer), off(), resolve()) });
    });
    const latest = await http.get('/api/v1/pose/latest').set(auth);
    expect(latest.status).toBe(200);
    expect(latest.body.metadata).toMatchObject({ environment_id: environmentId, provenance: 'simulated', model_hash: model.hash, router_count: expect.any(Number) });
    expect(latest.body.metadata.model_id).toMatch(/wiflow-pose/);
    for (const person of latest.body.persons) expect(person.keypoints).toHaveLength(17);

    const status = await http.get('/api/v1/system/status').set(auth);
    expect(status.body.components.neural_network).toMatchObject({ status: 'active', model_loaded: true });
    expect(status.body.components.csi_receiver.status).toBe('active');
    expect(status.body.components.neural_network.inference_time_ms).toBeGreaterThan(0);

    expect((await http.post('/api/v1/system/stop').set(auth).send({})).status).toBe(202);
    await api.system.settled();
    const published = api.hub.counters.framesPublished;
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(api.hub.counters.framesPublished).toBe(published);
    expect((await http.get('/api/v1/pose/latest').set(auth)).status).toBe(503);
    await runtime.storage.flush();
    const range = await runtime.storage.poses.availableRange(environmentId);
    expect(range?.frameCount).toBeGreaterThan(0);

    // POST /pose/process: CSI captured from the simulator, submitted as JSON, through the same chain and model.
    runtime.config.update({
      api: {
        processing: {
          chain: ['csi.signal-chain', 'pose.estimate'],
          nodeConfig: { 'csi.signal-chain': { ...recipe.signalChain, windowLength: recipe.windowFrames, hop: recipe.hopFrames, environmentId }, 'pose.estimate': { scenario } },
        },
      },
    });
    const capture = await runtime.runJob({
      nodes: [
        { id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario, realtime: false, durationS: 1.5, attachTruth: false } } },
        { id: 'out', position: { x: 0, y: 0 }, data: { nodeType: 'io.output', config: { name: 'frames', collect: 'all' } } },
      ],
      edges: [{ id: 'e', source: 'sim', sourceHandle: 'frames', target: 'out', targetHandle: 'value' }],
    });
    const captured = ((await capture.done).outputs.frames ?? []) as CsiFrame[];
    expect(captured.length).toBeGreaterThan(recipe.windowFrames);
    const round = (v: number) => Math.round(v * 1e4) / 1e4;
    const packets = captured.map((f) => ({
      timestamp: new Date(f.time).toISOString(),
      antenna_data: Array.from({ length: f.ntx * f.nrx }, (_, r) => Array.from({ length: f.nsc }, (_, k) => ({ real: round(f.csi.re[r * f.nsc + k]), imag: round(f.csi.im[r * f.nsc + k]) }))),
      metadata: { router_id: f.link.tx, receiver_id: f.link.rx, tx_count: f.ntx, subcarrier_indices: [...f.subcarriers], ...(f.centerFrequencyHz ? { center_frequency_hz: f.centerFrequencyHz } : {}) },
    }));
    const processed = await http.post('/api/v1/pose/process').set(auth).send({ csi_data: packets, processing_options: { enable_tracking: false } });
    expect(processed.status, JSON.stringify(processed.body).slice(0, 300)).toBe(200);
    expect(processed.body.node_types).toEqual(['csi.signal-chain', 'pose.estimate']);
    expect(processed.body.poses.length).toBeGreaterThan(0);
    expect(processed.body.poses[0].metadata).toMatchObject({ model_hash: model.hash, provenance: 'replay', environment_id: environmentId });
    const tracked = await http.post('/api/v1/pose/process').set(auth).send({ csi_data: packets, processing_options: { enable_tracking: true } });
    expect(tracked.status).toBe(200);
    expect(tracked.body.node_types).toEqual(['csi.signal-chain', 'pose.estimate', 'tracker.track']);
    expect(tracked.body.poses.length).toBeGreaterThan(0);

    // The default chain: the empty-room locator on the raw packets, the room's reference simulated from the scenario.
    runtime.config.update({ api: { processing: { chain: ['pose.locate'], nodeConfig: { 'pose.locate': { scenario } } } } });
    const located = await http.post('/api/v1/pose/process').set(auth).send({ csi_data: packets, processing_options: { enable_tracking: true } });
    expect(located.status, JSON.stringify(located.body).slice(0, 300)).toBe(200);
    expect(located.body.node_types).toEqual(['pose.locate', 'tracker.track']);
    expect(located.body.poses.length).toBeGreaterThan(0);
    expect(located.body.poses[0].metadata).toMatchObject({ model_id: expect.stringMatching(/^wiflow-locate-/), model_hash: expect.stringMatching(/^[0-9a-f]{64}$/), provenance: 'replay', environment_id: environmentId });
    // Packets of a link the room does not have: the locator names the link, nothing falls back silently.
    const stranger = await http.post('/api/v1/pose/process').set(auth).send({ csi_data: packets.slice(0, 4).map((p) => ({ ...p, metadata: { ...p.metadata, receiver_id: 'nobody' } })) });
    expect(stranger.status).toBe(422);
    expect(stranger.body.error.details).toMatchObject({ link: 'router->nobody', field: 'link' });

    // A scenario the model cannot take (one link, the model wants three): status says so.
    const oneLink = path.join(repoRoot, 'examples/scenarios/home-two-people-fall.yaml');
    if (existsSync(oneLink)) {
      const flow = JSON.parse(readFileSync(flowFile, 'utf8'));
      flow.nodes[0].data.config.scenario = oneLink;
      flow.nodes[1].data.config.environmentId = 'home-living-room';
      flow.nodes[2].data.config.scenario = oneLink;
      writeFileSync(flowFile, JSON.stringify(flow));
      expect((await http.post('/api/v1/system/start').set(auth).send({})).status).toBe(202);
      await api.system.settled();
      let body: any;
      for (let i = 0; i < 200; i++) {
        body = (await http.get('/api/v1/system/status').set(auth)).body;
        if (body.components.neural_network.status === 'error') break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(body.components.neural_network.status).toBe('error');
      expect(body.last_error).toMatch(/pose \(pose\.estimate\): .*the model expects 3/);
      expect((await http.post('/api/v1/system/stop').set(auth).send({})).status).toBe(202);
      await api.system.settled();
    }
  }, 180_000);
});
