import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowData } from '@wiflow/core';
import { chainFlow, startTestStudio, type TestStudio } from '../testing/test-plugins.js';

const endless: FlowData = {
  nodes: [
    { id: 'tick', position: { x: 0, y: 0 }, data: { nodeType: 'stest.ticker', config: { everyMs: 5 } } },
    { id: 'sink', position: { x: 200, y: 0 }, data: { nodeType: 'stest.sink', config: {} } },
  ],
  edges: [{ id: 'e', source: 'tick', sourceHandle: 'value', target: 'sink', targetHandle: 'value' }],
};

describe('the flow service rate limit', () => {
  let s: TestStudio;
  beforeAll(async () => {
    s = await startTestStudio({ studio: { rateLimit: { requests: 5, windowSeconds: 60 } } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('counts per caller, sends the X-RateLimit headers and answers 429 with Retry-After beyond the limit', async () => {
    for (let i = 1; i <= 5; i++) {
      const res = await s.http.get('/api/v1/flows/').set(s.alice.auth).expect(200);
      expect(res.headers['x-ratelimit-limit']).toBe('5');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(5 - i));
      expect(res.headers['x-ratelimit-window']).toBe('60');
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    }
    const limited = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'x' }).expect(429);
    expect(limited.body).toMatchObject({ code: 'WIFLOW_STUDIO_RATE_LIMITED', details: { limit: 5, window_seconds: 60 } });
    expect(limited.body.detail).toMatch(/5 requests per 60 s/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    // Bob has his own bucket; anonymous callers share their address's.
    await s.http.get('/api/v1/flows/').set(s.bob.auth).expect(200);
    for (let i = 0; i < 5; i++) await s.http.get('/api/v1/flows/').expect(401);
    await s.http.get('/api/v1/flows/').expect(429);
  });
});

describe('flow service quotas', () => {
  let s: TestStudio;
  beforeAll(async () => {
    s = await startTestStudio({ studio: { quotas: { deploymentsPerUser: 2, deploymentsTotal: 3, jobsPerUser: 2, jobsTotal: 3, deploymentMaxMinutes: 0.05 } } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('limits deployments per user and in total with 429 and a clear message', async () => {
    // Distinct flows: a second deployment of one running flow is a 409 conflict, not a quota matter.
    const flowOf = async (auth: Record<string, string>, name: string) => (await s.http.post('/api/v1/flows/').set(auth).send({ name, data: endless }).expect(201)).body.id as string;
    const mine = [await flowOf(s.alice.auth, 'endless 1'), await flowOf(s.alice.auth, 'endless 2'), await flowOf(s.alice.auth, 'endless 3')];
    const bobs = [await flowOf(s.bob.auth, 'endless 1'), await flowOf(s.bob.auth, 'endless 2')];
    await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: mine[0] }).expect(201);
    await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: mine[1] }).expect(201);
    const third = await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: mine[2] }).expect(429);
    expect(third.body).toMatchObject({ code: 'WIFLOW_STUDIO_QUOTA_EXCEEDED' });
    expect(third.body.detail).toMatch(/You have 2 pipelines deployed.*deploymentsPerUser = 2/);
    await s.http.post('/api/v1/studio/deployments').set(s.bob.auth).send({ flow_id: bobs[0] }).expect(201);
    const total = await s.http.post('/api/v1/studio/deployments').set(s.bob.auth).send({ flow_id: bobs[1] }).expect(429);
    expect(total.body.detail).toMatch(/runs 3 deployed pipelines.*deploymentsTotal = 3/);
    expect(s.runtime.pipelines.size).toBe(3);
  });

  it('undeploys a pipeline after deploymentMaxMinutes', async () => {
    const list = (await s.http.get('/api/v1/studio/deployments').set(s.alice.auth).expect(200)).body as { id: string }[];
    const id = list[0].id;
    // The counters stream ends with `undeployed` when the pipeline goes: wait for that event.
    const res = await fetch(`${s.url}/api/v1/studio/deployments/${id}/counters/stream?interval_ms=100`, { headers: s.alice.auth });
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('event: undeployed')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    expect(text).toContain('event: undeployed');
    expect(s.runtime.pipelines.has(id)).toBe(false);
  });

  it('limits unfinished jobs per user with 429', async () => {
    const slow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'slow', data: chainFlow([{ type: 'stest.slow', config: { steps: 100, delayMs: 50 } }]) }).expect(201)).body.id;
    const started = [];
    for (let i = 0; i < 2; i++) started.push((await s.http.post(`/api/v1/build/${slow}/flow?event_delivery=polling`).set(s.alice.auth).send({ inputs: { input_value: '1' } }).expect(200)).body.job_id);
    const over = await s.http.post(`/api/v1/build/${slow}/flow?event_delivery=polling`).set(s.alice.auth).send({ inputs: { input_value: '1' } }).expect(429);
    expect(over.body.detail).toMatch(/You have 2 unfinished jobs.*jobsPerUser = 2/);
    for (const id of started) await s.http.post(`/api/v1/build/${id}/cancel`).set(s.alice.auth).expect(200);
    await s.http.post(`/api/v1/build/${slow}/flow?event_delivery=polling`).set(s.alice.auth).send({ inputs: { input_value: '1' } }).expect(200);
  });
});

describe('deployment quotas count running pipelines only', () => {
  let s: TestStudio;
  beforeAll(async () => {
    s = await startTestStudio({ studio: { quotas: { deploymentsPerUser: 1, deploymentsTotal: 1 } } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('lets a user whose one deployment failed deploy another, without undeploying the failed one first', async () => {
    const failing: FlowData = {
      // A source that throws (its file is missing) fails the pipeline.
      nodes: [
        { id: 'file', position: { x: 0, y: 0 }, data: { nodeType: 'stest.filesource', config: { path: '/nonexistent/wiflow-quota-test.csv' } } },
        { id: 'sink', position: { x: 200, y: 0 }, data: { nodeType: 'stest.sink', config: {} } },
      ],
      edges: [{ id: 'e', source: 'file', sourceHandle: 'size', target: 'sink', targetHandle: 'value' }],
    };
    const failingId = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'failing', data: failing }).expect(201)).body.id as string;
    const endlessId = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'endless', data: endless }).expect(201)).body.id as string;
    const deployment = (await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: failingId })).body as { id: string };
    let status = '';
    for (let i = 0; i < 100 && status !== 'failed'; i++) {
      status = (await s.http.get(`/api/v1/studio/deployments/${deployment.id}`).set(s.alice.auth).expect(200)).body.status;
      if (status !== 'failed') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(status).toBe('failed');
    // The failed deployment stays listed, with its reason, and no longer holds the user's one place.
    await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: endlessId }).expect(201);
    const listed = (await s.http.get('/api/v1/studio/deployments').set(s.alice.auth).expect(200)).body as { id: string; status: string }[];
    expect(listed.map((d) => d.status).sort()).toEqual(['failed', 'running']);
    // The one running deployment is the quota's limit again.
    const third = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'endless 2', data: endless }).expect(201)).body.id as string;
    const over = await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: third }).expect(429);
    expect(over.body.detail).toMatch(/You have 1 pipelines deployed/);
  });
});
