// POST /pose/process with the default estimator (pose.locate) over real HTTP: CSI that does not
// fit its link's empty-room reference (antennas, subcarrier grid, channel), CSI of a link no
// room has, and a reference that is missing or lacks a link are refused with a clear error
// naming the link and the field; nothing falls back silently.
import path from 'node:path';
import type { CsiFrame } from '@wiflow/core';
import csiPlugin from '@wiflow/plugin-csi';
import posePlugin, { environmentFromScenario, simulateReference, writeReference, type EmptyRoomReference } from '@wiflow/plugin-pose-tfjs';
import simPlugin, * as sim from '@wiflow/plugin-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../fixtures.test-support.js';

const scenario = sim.validateScenario(sim.hallScenario());
const environment = environmentFromScenario(scenario as never);

let server: TestServer;
let reference: EmptyRoomReference;
let referenceFile: string;
/** Two seconds of the hall (router → laptop, 3×3 antennas, 30 subcarriers), as POST /pose/process takes them. */
let packets: { timestamp: string; antenna_data: { real: number; imag: number }[][]; metadata: Record<string, unknown> }[];

beforeAll(async () => {
  server = await startTestServer({ plugins: [simPlugin, csiPlugin, posePlugin] });
  reference = simulateReference(sim as never, scenario as never, 3);
  referenceFile = path.join(server.dataDir, 'hall-reference.json');
  writeReference(referenceFile, reference);
  const capture = await server.runtime.runJob({
    nodes: [
      { id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario, realtime: false, durationS: 2, attachTruth: false } } },
      { id: 'out', position: { x: 0, y: 0 }, data: { nodeType: 'io.output', config: { name: 'frames', collect: 'all' } } },
    ],
    edges: [{ id: 'e', source: 'sim', sourceHandle: 'frames', target: 'out', targetHandle: 'value' }],
  });
  const frames = ((await capture.done).outputs.frames ?? []) as CsiFrame[];
  packets = frames.map((f) => ({
    timestamp: new Date(f.time).toISOString(),
    antenna_data: Array.from({ length: f.ntx * f.nrx }, (_, r) => Array.from({ length: f.nsc }, (_, k) => ({ real: f.csi.re[r * f.nsc + k], imag: f.csi.im[r * f.nsc + k] }))),
    metadata: { router_id: f.link.tx, receiver_id: f.link.rx, tx_count: f.ntx, subcarrier_indices: [...f.subcarriers], center_frequency_hz: f.centerFrequencyHz },
  }));
}, 60_000);
afterAll(() => server?.close());

const useReferences = (references: string[]) =>
  server.runtime.config.update({ api: { processing: { chain: ['pose.locate'], nodeConfig: { 'pose.locate': { environments: [environment], references, densePose: 'none' } } } } });
const process = async (csi: typeof packets) =>
  server.http.post('/api/v1/pose/process').set('Authorization', `Bearer ${await server.token('operator')}`).send({ csi_data: csi });

describe('POST /pose/process against empty-room references', () => {
  it('locates CSI that fits its reference', async () => {
    useReferences([referenceFile]);
    const ok = await process(packets);
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200);
    expect(ok.body.poses.length).toBeGreaterThan(0);
    expect(ok.body.poses[0].metadata).toMatchObject({ model_id: expect.stringMatching(/^wiflow-locate-/), provenance: 'replay' });
  });

  it('refuses CSI that does not fit the reference with 422, naming the link and the field', async () => {
    useReferences([referenceFile]);
    const cases: [string, typeof packets, string, RegExp][] = [
      // Two receive antennas where the reference has three (the third row of each transmit stream dropped).
      ['receive antennas', packets.map((p) => ({ ...p, antenna_data: p.antenna_data.filter((_, r) => r % 3 !== 2) })), 'nrx (receive antennas)', /reference is 3, the link has 2/],
      ['subcarrier count', packets.map((p) => ({ ...p, antenna_data: p.antenna_data.map((row) => row.slice(0, 28)), metadata: { ...p.metadata, subcarrier_indices: (p.metadata.subcarrier_indices as number[]).slice(0, 28) } })), 'subcarriers (count)', /reference is 30, the link has 28/],
      // Another grid of as many subcarriers: the 40 MHz grouping where the reference was recorded at 20 MHz.
      ['subcarrier grid', packets.map((p) => ({ ...p, metadata: { ...p.metadata, subcarrier_indices: Array.from({ length: 30 }, (_, i) => (i < 15 ? -58 + 4 * i : 2 + 4 * (i - 15))) } })), 'subcarriers[0] (index)', /reference is -28, the link has -58/],
      ['channel', packets.map((p) => ({ ...p, metadata: { ...p.metadata, center_frequency_hz: 2.437e9 } })), 'centerFrequencyHz', /reference is 5320 MHz, the link has 2437 MHz/],
    ];
    for (const [what, csi, field, message] of cases) {
      const res = await process(csi);
      expect(res.status, what).toBe(422);
      expect(res.body.error.code, what).toBe('VALIDATION_ERROR');
      expect(res.body.error.message, what).toMatch(/^link router->laptop: field /);
      expect(res.body.error.message, what).toMatch(message);
      expect(res.body.error.details, what).toMatchObject({ link: 'router->laptop', field });
    }
  });

  it('refuses CSI of a link no room has, naming the link', async () => {
    useReferences([referenceFile]);
    const res = await process(packets.slice(0, 4).map((p) => ({ ...p, metadata: { ...p.metadata, receiver_id: 'nobody' } })));
    expect(res.status).toBe(422);
    expect(res.body.error.message).toMatch(/frame of link router->nobody: no environment of this pose\.locate node has the link, so it has no empty-room reference .*router->laptop/);
    expect(res.body.error.details).toMatchObject({ link: 'router->nobody', field: 'link' });
  });

  it('a missing reference file, or a reference without the room\'s link, fails processing with an error naming them', async () => {
    useReferences([path.join(server.dataDir, 'never-recorded.json')]);
    const missing = await process(packets);
    // The server's own configuration is wrong, not the request: 500 MODEL_ERROR, with what to fix.
    expect(missing.status).toBe(500);
    expect(missing.body.error.code).toBe('MODEL_ERROR');
    expect(missing.body.error.message).toMatch(/references\[0\] \(.*never-recorded\.json\): .*does not exist; record the empty room with `wiflow locate record`/);
    const otherLink = path.join(server.dataDir, 'other-link-reference.json');
    writeReference(otherLink, { ...reference, links: reference.links.map((l) => ({ ...l, rx: 'tv-box' })) });
    useReferences([otherLink]);
    const lacking = await process(packets);
    expect(lacking.status).toBe(500);
    expect(lacking.body.error.message).toMatch(/environment hall: link router->laptop has no entry in the empty-room reference \(field links; it has router->tv-box\)/);
  });
});
