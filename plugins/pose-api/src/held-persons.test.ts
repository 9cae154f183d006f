// tracker.track's held evidence (upstream_min_evidence, opt-in) through the pose API over HTTP: a person whose
// id the tracker holds back is not served as a person by /pose/latest (analytics count none either), and with
// the gate off (the default) both people are served as before. The frames come from a stand-in estimator
// (two people followed by their upstream ids: one explaining much change, one little) through the real
// tracker.track node and pose.publish, on the server a user runs.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineNode, definePlugin } from '@wiflow/core';
import trackerPlugin from '@wiflow/plugin-tracker';
import { afterEach, describe, expect, it } from 'vitest';
import { syntheticFrame } from './bench/synthetic-source.js';
import { startTestServer, waitFor, type TestServer } from './fixtures.test-support.js';

/** `fixture.evidence-poses`: two people every 20 ms, as pose.locate gives them: upstream ids, `evidence` per estimate. */
const evidencePoses = defineNode({
  type: 'fixture.evidence-poses',
  title: 'Fixture poses with evidence',
  category: 'sources',
  description: 'Test stand-in estimator',
  inputs: {},
  outputs: { poses: { type: 'PoseFrame' } },
  config: z.object({ evidence: z.array(z.number()).default([2, 0.05]) }),
  source: true,
  create(ctx) {
    return {
      async run() {
        for (let frameId = 1; !ctx.signal.aborted; frameId++) {
          const frame = syntheticFrame(frameId % 50, 'shop', 2);
          frame.persons.forEach((p, i) => (p.evidence = ctx.config.evidence[i]));
          await ctx.emit('poses', frame);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      },
    };
  },
});
const fixturePlugin = definePlugin({ name: 'fixture-evidence', setup: (ctx) => ctx.registerNode(evidencePoses) });

/** A server whose pipeline is the stand-in → tracker.track with `tracker` options → pose.publish, started. */
async function serverWith(tracker: Record<string, unknown>): Promise<TestServer> {
  const flowFile = path.join(mkdtempSync(path.join(tmpdir(), 'wiflow-held-')), 'pipeline.json');
  writeFileSync(flowFile, JSON.stringify({
    nodes: [
      { id: 'source', position: { x: 0, y: 0 }, data: { nodeType: 'fixture.evidence-poses', config: {} } },
      { id: 'track', position: { x: 200, y: 0 }, data: { nodeType: 'tracker.track', config: tracker } },
      { id: 'publish', position: { x: 400, y: 0 }, data: { nodeType: 'pose.publish', config: {} } },
    ],
    edges: [
      { id: 'e1', source: 'source', sourceHandle: 'poses', target: 'track', targetHandle: 'poses' },
      { id: 'e2', source: 'track', sourceHandle: 'poses', target: 'publish', targetHandle: 'poses' },
    ],
  }));
  const server = await startTestServer({ config: { api: { pipeline: { flow: flowFile } } }, plugins: [trackerPlugin, fixturePlugin], withoutDomainPlugins: true });
  const started = await server.http.post('/api/v1/system/start').set({ Authorization: `Bearer ${await server.token('admin')}` }).send({});
  expect(started.status).toBe(202);
  await server.api.system.settled();
  expect(server.api.system.lastError).toBeNull();
  await waitFor(() => server.api.hub.counters.framesPublished >= 10);
  return server;
}

describe('held persons and /pose/latest', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('with the gate on, the person whose id is held is not served; the other is', async () => {
    server = await serverWith({ upstream_min_evidence: 0.5 });
    const latest = await server.http.get('/api/v1/pose/latest').set({ Authorization: `Bearer ${await server.token('viewer')}` });
    expect(latest.status).toBe(200);
    expect(latest.body.persons).toHaveLength(1);
    // The served person is the one explaining much change (the stand-in's first person, at y = 1).
    expect(latest.body.persons[0].position.y).toBeCloseTo(1, 6);
    expect(latest.body.persons[0].tracking_info.track_id).not.toBeNull();
  });

  it('with the gate off (the default), both people are served', async () => {
    server = await serverWith({});
    const latest = await server.http.get('/api/v1/pose/latest').set({ Authorization: `Bearer ${await server.token('viewer')}` });
    expect(latest.status).toBe(200);
    expect(latest.body.persons.map((p: { position: { y: number } }) => Math.round(p.position.y)).sort()).toEqual([1, 2]);
  });
});
