// GET /api/v1/studio/rooms (the live view's floor plan) and GET /api/v1/studio/jobs (the flow
// list's last run and the jobs page), against a real runtime on loopback.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import simPlugin from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { testStudioForFile, upperFlow } from '../testing/test-plugins.js';

const SCENARIO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../examples/scenarios/home-monitored.yaml');

const s = await testStudioForFile({ plugins: [simPlugin] });

describe('rooms of the running pipelines', () => {
  it('serves the room, radios and zones a running pipeline names, and nothing once it stops', async () => {
    const flow = (
      await s.http
        .post('/api/v1/flows/')
        .set(s.alice.auth)
        .send({
          name: 'room',
          data: {
            nodes: [
              { id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario: SCENARIO, realtime: true, loop: true } } },
            ],
            edges: [],
          },
        })
        .expect(201)
    ).body as { id: string };
    expect((await s.http.get('/api/v1/studio/rooms').set(s.alice.auth).expect(200)).body).toEqual([]);
    const deployed = (await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: flow.id }).expect(201)).body as { id: string };
    const rooms = (await s.http.get('/api/v1/studio/rooms').set(s.alice.auth).expect(200)).body as { environment_id: string; width: number; depth: number; radios: { id: string; role: string; x: number; y: number }[]; zones: { id: string; name: string; polygon: number[][] }[]; source: string; flow_id: string }[];
    expect(rooms).toHaveLength(1);
    expect(rooms[0]).toMatchObject({ environment_id: 'home', width: 5, depth: 4, flow_id: flow.id, deployment_id: deployed.id });
    expect(rooms[0].source).toContain('home-monitored.yaml');
    expect(rooms[0].radios.filter((r) => r.role === 'tx')).toHaveLength(1);
    expect(rooms[0].radios.filter((r) => r.role === 'rx')).toHaveLength(3);
    expect(rooms[0].zones.map((z) => z.name).sort()).toEqual(['Kitchen door', 'Sofa']);
    await s.http.get('/api/v1/studio/rooms').expect(401);
    await s.http.delete(`/api/v1/studio/deployments/${deployed.id}`).set(s.alice.auth).expect(204);
    expect((await s.http.get('/api/v1/studio/rooms').set(s.alice.auth).expect(200)).body).toEqual([]);
  });
});

describe('recent jobs', () => {
  it("lists the caller's jobs of a flow, newest first, with status and times; others see none", async () => {
    const flow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'jobs', data: upperFlow() }).expect(201)).body as { id: string };
    expect((await s.http.get(`/api/v1/studio/jobs?flow_id=${flow.id}`).set(s.alice.auth).expect(200)).body).toEqual([]);
    await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ inputs: { text: 'first' } }).expect(200);
    await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ inputs: { text: 'second' } }).expect(200);
    const jobs = (await s.http.get(`/api/v1/studio/jobs?flow_id=${flow.id}`).set(s.alice.auth).expect(200)).body as { job_id: string; flow_id: string; status: string; created_at: string; finished_at: string | null }[];
    expect(jobs).toHaveLength(2);
    expect(jobs.every((j) => j.flow_id === flow.id && j.status === 'completed' && j.finished_at !== null)).toBe(true);
    expect(Date.parse(jobs[0].created_at)).toBeGreaterThanOrEqual(Date.parse(jobs[1].created_at));
    expect((await s.http.get(`/api/v1/studio/jobs?limit=1`).set(s.alice.auth).expect(200)).body).toHaveLength(1);
    expect((await s.http.get('/api/v1/studio/jobs').set(s.bob.auth).expect(200)).body).toEqual([]);
    await s.http.get('/api/v1/studio/jobs?limit=0').set(s.alice.auth).expect(422);
  });
});
