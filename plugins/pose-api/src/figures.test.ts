// The figures a newcomer saw wrong on the demo: data_rate_hz counted the simulator's truth
// output with its CSI frames (≈ 79 for 3 links × 20 Hz), peak_occupancy_time was an hour
// bucket's start (before the server existed), and occupancy_now listed no zones although the
// room's analytics define them. A simulated room (home-monitored.yaml: three receivers at
// 20 Hz) through ground-truth poses into the pose API, on a real SQLite file.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defineNode, definePlugin, type FlowData } from '@wiflow/core';
import simPlugin from '@wiflow/plugin-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, waitFor, type TestServer } from './fixtures.test-support.js';

const scenario = fileURLToPath(new URL('../../../examples/scenarios/home-monitored.yaml', import.meta.url));
const LINKS = 3;
const RATE_HZ = 20;

// Stands in for an analytics node of the room (retail.analytics, security.analytics): it
// passes poses on and defines the room's zones in its config, as those do.
const roomZonesPlugin = definePlugin({
  name: 'fixture-room-zones',
  setup: (ctx) =>
    ctx.registerNode(
      defineNode({
        type: 'fixture.room-zones',
        title: 'Room zones',
        category: 'analytics',
        description: 'Passes poses on; its config names the room zones',
        inputs: { poses: { type: 'PoseFrame', required: true } },
        outputs: { poses: { type: 'PoseFrame' } },
        config: z.object({ zones: z.array(z.object({ id: z.string(), name: z.string(), polygon: z.array(z.tuple([z.number(), z.number()])) })) }),
        create: (node) => ({ receive: (_port, value) => node.emit('poses', value) }),
      }),
    ),
});

const ZONES = [
  { id: 'sofa', name: 'Sofa', polygon: [[0.3, 2.8], [2.2, 2.8], [2.2, 3.8], [0.3, 3.8]] },
  { id: 'room', name: 'Living room', polygon: [[0, 0], [5, 0], [5, 4], [0, 4]] },
];

const pipeline: FlowData = {
  nodes: [
    { id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario, realtime: true, loop: true, environmentId: 'home' } } },
    { id: 'truth', position: { x: 200, y: 0 }, data: { nodeType: 'sim.truth-poses', config: { scenario, rateHz: 10 } } },
    { id: 'zones', position: { x: 400, y: 0 }, data: { nodeType: 'fixture.room-zones', config: { zones: ZONES } } },
    { id: 'publish', position: { x: 600, y: 0 }, data: { nodeType: 'pose.publish', config: {} } },
  ],
  edges: [
    { id: 'e1', source: 'sim', sourceHandle: 'truth', target: 'truth', targetHandle: 'truth' },
    { id: 'e2', source: 'truth', sourceHandle: 'poses', target: 'zones', targetHandle: 'poses' },
    { id: 'e3', source: 'zones', sourceHandle: 'poses', target: 'publish', targetHandle: 'poses' },
  ],
};

let server: TestServer;
let auth: { Authorization: string };
let startedAt: number;
beforeAll(async () => {
  server = await startTestServer({ plugins: [simPlugin, roomZonesPlugin], config: { api: { pipeline: { flow: null } } } });
  // The system pipeline from a file, like `wiflow serve` with the demo configuration.
  const file = path.join(server.dataDir, 'room.json');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(file, JSON.stringify({ name: 'Room', data: pipeline }));
  expect(server.runtime.config.update({ api: { pipeline: { flow: file } } }).errors).toEqual([]);
  auth = { Authorization: `Bearer ${await server.token('admin')}` };
  startedAt = Date.now();
  await server.http.post('/api/v1/system/start').set(auth).expect(202);
}, 60_000);
afterAll(async () => {
  await server?.close();
});

describe('figures of a running room', () => {
  it('data_rate_hz counts CSI frames only: links × rate', { timeout: 30_000 }, async () => {
    let rate: number | null = null;
    await waitFor(async () => {
      const status = await server.http.get('/api/v1/system/status').set(auth).expect(200);
      rate = status.body.components.csi_receiver.data_rate_hz;
      return rate !== null;
    }, 20_000);
    // With the truth output counted too it was links × rate + rate (80 here).
    expect(Math.abs(rate! - LINKS * RATE_HZ)).toBeLessThan(RATE_HZ / 2);
  });

  it('peak_occupancy_time lies within the stored data, not at an hour bucket\'s start', { timeout: 30_000 }, async () => {
    await waitFor(async () => (await server.http.get('/api/v1/pose/latest').set(auth)).status === 200, 20_000);
    const range = { start_time: new Date(startedAt - 24 * 3_600_000).toISOString(), end_time: new Date(Date.now() + 60_000).toISOString(), granularity: 'hour' };
    const summary = await server.http.get('/api/v1/analytics/summary').set(auth).query(range).expect(200);
    const stats = summary.body.detection_stats;
    expect(stats.peak_occupancy).toBeGreaterThan(0);
    const history = await server.http.get('/api/v1/pose/history').set(auth).query({ limit: 1000 }).expect(200);
    const first = Math.min(...(history.body.poses as { timestamp: string }[]).map((p) => Date.parse(p.timestamp)));
    const peakAt = Date.parse(stats.peak_occupancy_time);
    expect(peakAt).toBeGreaterThanOrEqual(first);
    expect(peakAt).toBeGreaterThanOrEqual(startedAt);
    expect(peakAt).toBeLessThanOrEqual(Date.now());
  });

  it('occupancy counts people in the zones the running room pipeline defines', { timeout: 30_000 }, async () => {
    const job = await server.runtime.runJob({
      nodes: [
        { id: 'in', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'environment_id', valueType: 'text' } } },
        { id: 'occupancy', position: { x: 200, y: 0 }, data: { nodeType: 'pose.occupancy', config: {} } },
        { id: 'out', position: { x: 400, y: 0 }, data: { nodeType: 'io.output', config: { name: 'occupancy', collect: 'last' } } },
      ],
      edges: [
        { id: 'a', source: 'in', sourceHandle: 'value', target: 'occupancy', targetHandle: 'environment' },
        { id: 'b', source: 'occupancy', sourceHandle: 'occupancy', target: 'out', targetHandle: 'value' },
      ],
    }, { inputs: { environment_id: 'home' } });
    const result = await job.done;
    expect(result.status).toBe('completed');
    const answer = result.outputs.occupancy as { person_count: number; zones: { zone_id: string; zone_name: string; person_count: number }[] };
    expect(answer.zones.map((zone) => [zone.zone_id, zone.zone_name])).toEqual([['sofa', 'Sofa'], ['room', 'Living room']]);
    // Everyone is in the living room.
    expect(answer.zones.find((zone) => zone.zone_id === 'room')!.person_count).toBe(answer.person_count);
    expect(answer.person_count).toBeGreaterThan(0);
  });
});
