import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { chainFlow, testStudioForFile, upperFlow } from '../testing/test-plugins.js';

const s = await testStudioForFile({ jobs: { maxConcurrent: 8, maxPerUser: 4, maxPerFlow: 1, timeoutMs: 60_000 } });

async function createFlow(body: Record<string, unknown>, user = s.alice) {
  return (await s.http.post('/api/v1/flows/').set(user.auth).send(body).expect(201)).body as { id: string; name: string; endpoint_name: string | null };
}

/** Read a streaming response as text until it ends. */
function readStream(path: string, options: { method?: string; headers?: Record<string, string>; body?: unknown; onChunk?: (text: string, req: http.ClientRequest, headers: http.IncomingHttpHeaders) => void } = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${s.url}${path}`, { method: options.method ?? 'GET', headers: { 'content-type': 'application/json', ...options.headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        text += c;
        options.onChunk?.(text, req, res.headers);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(JSON.stringify(options.body));
    req.end();
  });
}

function sseEvents(text: string): { id?: string; event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((b) => b.includes('data:'))
    .map((block) => {
      const lines = block.split('\n');
      const get = (k: string) => lines.find((l) => l.startsWith(`${k}: `))?.slice(k.length + 2);
      return { id: get('id'), event: get('event') ?? 'message', data: JSON.parse(get('data') ?? 'null') };
    });
}

/** Parse Langflow's framing strictly: every event is one JSON object followed by a blank line, nothing else. */
function langflowEvents(text: string): { event: string; data: unknown }[] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\n\n')
    .map((block) => {
      expect(block).not.toContain('\n');
      return JSON.parse(block) as { event: string; data: unknown };
    });
}

describe('build', () => {
  it('starts a job and delivers its ordered events by polling (NDJSON), draining between polls', async () => {
    const flow = await createFlow({ name: 'Build poll', data: upperFlow() });
    const start = await s.http.post(`/api/v1/build/${flow.id}/flow?event_delivery=polling`).set(s.alice.auth).send({ inputs: { input_value: 'hello' } }).expect(200);
    const jobId = start.body.job_id;
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    const seen: { event: string; seq: number; data: unknown }[] = [];
    for (let i = 0; i < 200 && !seen.some((e) => e.event === 'end'); i++) {
      const res = await s.http.get(`/api/v1/build/${jobId}/events?event_delivery=polling`).set(s.alice.auth).expect(200);
      expect(res.headers['content-type']).toContain('application/x-ndjson');
      seen.push(...res.text.split('\n').filter(Boolean).map((l) => JSON.parse(l)));
      if (!seen.some((e) => e.event === 'end')) await new Promise((r) => setTimeout(r, 10));
    }
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
    const names = seen.map((e) => e.event);
    expect(names[0]).toBe('job_queued');
    expect(names).toContain('job_started');
    expect(names.slice(-2)).toEqual(['job_completed', 'end']);
    expect(seen.find((e) => e.event === 'output')!.data).toEqual({ name: 'result', value: 'HELLO' });
    // since= replays from any point
    const replay = await s.http.get(`/api/v1/build/${jobId}/events?event_delivery=polling&since=0`).set(s.alice.auth).expect(200);
    expect(replay.text.split('\n').filter(Boolean)).toHaveLength(seen.length);
    // the job belongs to alice
    await s.http.get(`/api/v1/build/${jobId}/events?event_delivery=polling`).set(s.bob.auth).expect(404);
    await s.http.get(`/api/v1/build/${jobId}/events`).expect(401);
    await s.http.get('/api/v1/build/00000000-0000-4000-8000-000000000000/events').set(s.alice.auth).expect(404);
  });

  it('streams events as SSE and resumes after Last-Event-ID', async () => {
    const flow = await createFlow({ name: 'Build sse', data: chainFlow([{ type: 'stest.slow', config: { steps: 3, delayMs: 5 } }]) });
    const start = await s.http.post(`/api/v1/build/${flow.id}/flow`).set(s.alice.auth).send({ inputs: { input_value: '41', components: ['in'] } }).expect(200);
    const jobId = start.body.job_id;
    const full = await readStream(`/api/v1/build/${jobId}/events?event_delivery=streaming`, { headers: { Authorization: s.alice.auth.Authorization } });
    expect(full.headers['content-type']).toContain('text/event-stream');
    const events = sseEvents(full.text);
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
    expect(events.filter((e) => e.event === 'progress')).toHaveLength(3);
    expect(events.at(-1)!.event).toBe('end');
    expect(events.find((e) => e.event === 'output')!.data.data).toEqual({ name: 'result', value: 41 });
    const resumed = sseEvents((await readStream(`/api/v1/build/${jobId}/events?event_delivery=streaming`, { headers: { Authorization: s.alice.auth.Authorization, 'Last-Event-ID': '3' } })).text);
    expect(resumed[0].id).toBe('4');
    expect(resumed.map((e) => e.id)).toEqual(events.slice(3).map((e) => e.id));
  });

  it('direct delivery streams NDJSON in the POST answer; build accepts replacement data', async () => {
    const flow = await createFlow({ name: 'Build direct', data: upperFlow() });
    const data = upperFlow({ suffix: '!' });
    const res = await readStream(`/api/v1/build/${flow.id}/flow?event_delivery=direct`, { method: 'POST', headers: { Authorization: s.alice.auth.Authorization }, body: { data, inputs: { input_value: 'hey' } } });
    const lines = res.text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(lines[0].event).toBe('job_id');
    expect(lines.find((l) => l.event === 'output').data.value).toBe('HEY!');
    expect(lines.at(-1).event).toBe('end');
  });

  it('rejects bad bodies (422), invalid flows (422 with problems), unknown flows (404)', async () => {
    const flow = await createFlow({ name: 'Build bad', data: upperFlow() });
    const extra = await s.http.post(`/api/v1/build/${flow.id}/flow`).set(s.alice.auth).send({ inputs: { input_value: 'x', surprise: 1 } }).expect(422);
    expect(extra.body.detail[0].loc).toEqual(['body', 'inputs']);
    await s.http.post(`/api/v1/build/${flow.id}/flow`).set(s.alice.auth).send({ inputs: { type: 'voice' } }).expect(422);
    await s.http.post(`/api/v1/build/${flow.id}/flow`).set(s.alice.auth).send({ data: { nodes: [] } }).expect(422);
    const broken = upperFlow();
    broken.edges.pop();
    const draft = await createFlow({ name: 'Build draft', data: broken });
    const invalid = await s.http.post(`/api/v1/build/${draft.id}/flow`).set(s.alice.auth).send({}).expect(422);
    expect(invalid.body.code).toBe('WIFLOW_STUDIO_INVALID_FLOW');
    expect(invalid.body.details.problems.length).toBeGreaterThan(0);
    await s.http.post('/api/v1/build/00000000-0000-4000-8000-000000000000/flow').set(s.alice.auth).send({}).expect(404);
    await s.http.post(`/api/v1/build/${flow.id}/flow`).send({}).expect(401);
  });

  it('cancels a running build (CancelFlowResponse) and reports a finished one', async () => {
    const flow = await createFlow({ name: 'Build cancel', data: chainFlow([{ type: 'stest.slow', config: { steps: 100, delayMs: 50 } }]) });
    const start = await s.http.post(`/api/v1/build/${flow.id}/flow?event_delivery=polling`).set(s.alice.auth).send({ inputs: { input_value: '1' } }).expect(200);
    await s.http.post(`/api/v1/build/${start.body.job_id}/cancel`).set(s.bob.auth).expect(404);
    const cancel = await s.http.post(`/api/v1/build/${start.body.job_id}/cancel`).set(s.alice.auth).expect(200);
    expect(cancel.body).toEqual({ success: true, message: expect.any(String) });
    const again = await s.http.post(`/api/v1/build/${start.body.job_id}/cancel`).set(s.alice.auth).expect(200);
    expect(again.body.success).toBe(false);
    const events = await s.http.get(`/api/v1/build/${start.body.job_id}/events?event_delivery=polling&since=0`).set(s.alice.auth).expect(200);
    expect(events.text).toContain('"job_cancelled"');
    await s.http.post('/api/v1/build/00000000-0000-4000-8000-000000000000/cancel').set(s.alice.auth).expect(404);
  });

  it('build_public_tmp runs PUBLIC flows without credentials and refuses PRIVATE ones', async () => {
    const pub = await createFlow({ name: 'Public build', data: upperFlow(), access_type: 'PUBLIC' });
    const priv = await createFlow({ name: 'Private build', data: upperFlow() });
    const start = await s.http.post(`/api/v1/build_public_tmp/${pub.id}/flow`).send({ inputs: { input_value: 'pub' } }).expect(200);
    const events = await readStream(`/api/v1/build/${start.body.job_id}/events?event_delivery=streaming`);
    expect(events.text).toContain('"value":"PUB"');
    await s.http.post(`/api/v1/build_public_tmp/${priv.id}/flow`).send({}).expect(403);
    // strangers may only feed a public flow the files attached to it, not the owner's other files
    const fileFlow = await createFlow({ name: 'Public files', access_type: 'PUBLIC', data: chainFlow([{ type: 'stest.filesize', inPort: 'path', outPort: 'size' }], { name: 'f', valueType: 'file' }) });
    const own = await s.http.post('/api/v2/files').set(s.alice.auth).attach('file', Buffer.alloc(10), 'private.dat').expect(201);
    await s.http.post(`/api/v1/build_public_tmp/${fileFlow.id}/flow`).send({ files: [own.body.id] }).expect(422);
    await s.http.post(`/api/v1/files/upload/${fileFlow.id}`).set(s.alice.auth).attach('file', Buffer.alloc(12), 'attached.dat').expect(201);
    const okStart = await s.http.post(`/api/v1/build_public_tmp/${fileFlow.id}/flow`).send({ files: [`${fileFlow.id}/attached.dat`] }).expect(200);
    expect((await s.runtime.jobs.get(okStart.body.job_id)!.done).outputs.result).toBe(12);
    await s.http.post('/api/v1/build_public_tmp/00000000-0000-4000-8000-000000000000/flow').send({}).expect(404);
  });
});

describe('run', () => {
  it('simplified run by id, endpoint name and name returns RunOutputs with ChatOutputResponse', async () => {
    const flow = await createFlow({ name: 'Run simple', endpoint_name: 'run-simple', data: upperFlow() });
    for (const key of [flow.id, 'run-simple', 'Run simple']) {
      const res = await s.http.post(`/api/v1/run/${encodeURIComponent(key)}`).set('x-api-key', s.alice.apiKey).send({ input_value: 'abc', session_id: 'sess-1' }).expect(200);
      expect(res.body.session_id).toBe('sess-1');
      const result = res.body.outputs[0].outputs[0];
      expect(result).toMatchObject({ component_id: 'out', results: { result: 'ABC' } });
      expect(result.outputs.result).toEqual({ type: 'message', status: 'completed', content: 'ABC', metadata: { collect: 'last' }, message: 'ABC' });
      expect(result.messages[0]).toEqual({ message: 'ABC', type: 'text', component_id: 'out', session_id: 'sess-1', stream_url: null, files: [], sender: 'Machine', sender_name: 'AI' });
    }
    // Langflow's wrapped body {input_request, context}
    const wrapped = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_request: { input_value: 'wrapped' }, context: { a: 1 } }).expect(200);
    expect(wrapped.body.outputs[0].outputs[0].results.result).toBe('WRAPPED');
    await s.http.post('/api/v1/run/no-such-flow').set(s.alice.auth).send({}).expect(404);
    await s.http.post(`/api/v1/run/${flow.id}`).set(s.bob.auth).send({}).expect(404);
    await s.http.post(`/api/v1/run/${flow.id}`).send({}).expect(401);
  });

  it('stores messages queryable by flow and session, deletable by id and by session', async () => {
    const flow = await createFlow({ name: 'Run messages', data: upperFlow() });
    await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'one', session_id: 'm-1' }).expect(200);
    await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'two', session_id: 'm-2' }).expect(200);
    const all = await s.http.get(`/api/v1/monitor/messages?flow_id=${flow.id}`).set(s.alice.auth).expect(200);
    expect(all.body.map((m: { text: string }) => m.text)).toEqual(['one', 'ONE', 'two', 'TWO']);
    const m = all.body[1];
    expect(m).toMatchObject({ flow_id: flow.id, session_id: 'm-1', sender: 'Machine', sender_name: 'AI', category: 'message', edit: false, error: false, files: [], content_blocks: [] });
    const session = await s.http.get(`/api/v1/monitor/messages?flow_id=${flow.id}&session_id=m-2&order=desc`).set(s.alice.auth).expect(200);
    expect(session.body.map((x: { text: string }) => x.text)).toEqual(['TWO', 'two']);
    const sessions = await s.http.get(`/api/v1/monitor/messages/sessions?flow_id=${flow.id}`).set(s.alice.auth).expect(200);
    expect(sessions.body.sort()).toEqual(['m-1', 'm-2']);
    await s.http.get(`/api/v1/monitor/messages?flow_id=${flow.id}`).set(s.bob.auth).expect(404);
    const del = await s.http.delete('/api/v1/monitor/messages').set(s.alice.auth).send([all.body[0].id]).expect(200);
    expect(del.body.deleted).toBe(1);
    await s.http.delete('/api/v1/monitor/messages/session/m-2').set(s.bob.auth).expect(403);
    const delSession = await s.http.delete('/api/v1/monitor/messages/session/m-2').set(s.alice.auth).expect(200);
    expect(delSession.body.deleted).toBe(2);
    await s.http.delete('/api/v1/monitor/messages/session/none-such').set(s.alice.auth).expect(404);
  });

  it('tweaks override node config by id or title and are validated (422 naming the field)', async () => {
    const flow = await createFlow({ name: 'Run tweaks', data: upperFlow() });
    const byId = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'a', tweaks: { up: { suffix: '?' } } }).expect(200);
    expect(byId.body.outputs[0].outputs[0].results.result).toBe('A?');
    const byTitle = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'a', tweaks: { Shouter: { suffix: '#' } } }).expect(200);
    expect(byTitle.body.outputs[0].outputs[0].results.result).toBe('A#');
    const scalar = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'a', tweaks: { suffix: '%' } }).expect(200);
    expect(scalar.body.outputs[0].outputs[0].results.result).toBe('A%');
    const unknownField = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'a', tweaks: { up: { sufix: '!' } } }).expect(422);
    expect(unknownField.body.detail[0].loc).toEqual(['body', 'tweaks', 'up', 'sufix']);
    const badValue = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'a', tweaks: { up: { suffix: 'x'.repeat(50) } } }).expect(422);
    expect(badValue.body.detail[0].loc).toEqual(['body', 'tweaks', 'up', 'suffix']);
    const badType = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'a', tweaks: { up: { suffix: 5 } } }).expect(422);
    expect(badType.body.detail[0].loc).toEqual(['body', 'tweaks', 'up', 'suffix']);
    const unknownNode = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'a', tweaks: { ghost: { suffix: '!' } } }).expect(422);
    expect(unknownNode.body.detail[0].loc).toEqual(['body', 'tweaks', 'ghost']);
    const unknownScalar = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'a', tweaks: { nothing_has_this: 1 } }).expect(422);
    expect(unknownScalar.body.detail[0].loc).toEqual(['body', 'tweaks', 'nothing_has_this']);
    // the stored flow is untouched
    const stored = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ input_value: 'a' }).expect(200);
    expect(stored.body.outputs[0].outputs[0].results.result).toBe('A');
  });

  it('advanced run takes several inputs, output filters, session and tweaks', async () => {
    const flow = await createFlow({ name: 'Run advanced', data: upperFlow() });
    const res = await s.http
      .post(`/api/v1/run/advanced/${flow.id}`)
      .set(s.alice.auth)
      .send({ inputs: [{ input_value: 'x', components: ['in'] }, { input_value: 'y' }], outputs: ['out'], session_id: 'adv', tweaks: { up: { suffix: '.' } } })
      .expect(200);
    expect(res.body.session_id).toBe('adv');
    expect(res.body.outputs.map((o: { outputs: { results: { result: string } }[] }) => o.outputs[0].results.result)).toEqual(['X.', 'Y.']);
    const filtered = await s.http.post(`/api/v1/run/advanced/${flow.id}`).set(s.alice.auth).send({ inputs: [{ input_value: 'x' }], outputs: ['nothing'] }).expect(200);
    expect(filtered.body.outputs[0].outputs).toEqual([]);
    await s.http.post(`/api/v1/run/advanced/${flow.id}`).set(s.alice.auth).send({ inputs: [{ input_value: 'x', extra: true }] }).expect(422);
  });

  it('a failing flow answers 500 with the job id; a missing input fails the job', async () => {
    const failing = await createFlow({ name: 'Run fail', data: chainFlow([{ type: 'stest.fail', config: { message: 'kaput' } }]) });
    const res = await s.http.post(`/api/v1/run/${failing.id}`).set(s.alice.auth).send({ input_value: '1' }).expect(500);
    expect(res.body).toMatchObject({ status: 'failed', job_id: expect.any(String) });
    expect(res.body.detail).toContain('kaput');
    const ok = await createFlow({ name: 'Run needs input', data: upperFlow() });
    const missing = await s.http.post(`/api/v1/run/${ok.id}`).set(s.alice.auth).send({}).expect(500);
    expect(missing.body.detail).toContain('text');
    const typed = await createFlow({ name: 'Run number', data: chainFlow([{ type: 'stest.add', config: { amount: 2 } }]) });
    await s.http.post(`/api/v1/run/${typed.id}`).set(s.alice.auth).send({ input_value: 'not a number' }).expect(422);
    const named = await s.http.post(`/api/v1/run/${typed.id}`).set(s.alice.auth).send({ inputs: { value: 40 } }).expect(200);
    expect(named.body.outputs[0].outputs[0].results.result).toBe(42);
    await s.http.post(`/api/v1/run/${typed.id}`).set(s.alice.auth).send({ inputs: { nope: 1 } }).expect(422);
  });

  it('a per-run timeout ends the job as timed_out (504)', async () => {
    const slow = await createFlow({ name: 'Run slow', data: chainFlow([{ type: 'stest.slow', config: { steps: 100, delayMs: 20 } }]) });
    const res = await s.http.post(`/api/v1/run/${slow.id}`).set(s.alice.auth).send({ input_value: '1', timeout_ms: 150 }).expect(504);
    expect(res.body.status).toBe('timed_out');
  });

  it('stream=true speaks Langflow: one JSON object per event and a blank line; add_message for input and output, end with the non-streamed result', async () => {
    const flow = await createFlow({ name: 'Run stream langflow', data: upperFlow() });
    const res = await readStream(`/api/v1/run/${flow.id}?stream=true`, { method: 'POST', headers: { 'x-api-key': s.alice.apiKey }, body: { input_value: 'streamed', session_id: 'lf-1' } });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    const events = langflowEvents(res.text);
    expect(events.map((e) => e.event)).toEqual(['add_message', 'add_message', 'end']);
    const [input, output] = events.map((e) => e.data);
    expect(input).toMatchObject({ sender: 'User', sender_name: 'User', text: 'streamed', session_id: 'lf-1', flow_id: flow.id, category: 'message', error: false, edit: false, files: [] });
    expect(output).toMatchObject({ sender: 'Machine', sender_name: 'AI', text: 'STREAMED', session_id: 'lf-1', flow_id: flow.id });
    // The messages are the stored ones (MessageRead), with their ids.
    const stored = await s.http.get(`/api/v1/monitor/messages?flow_id=${flow.id}&session_id=lf-1`).set(s.alice.auth).expect(200);
    expect(stored.body).toEqual([input, output]);
    // end carries exactly what the same run answers without streaming (bar its job id).
    const plain = await s.http.post(`/api/v1/run/${flow.id}`).set('x-api-key', s.alice.apiKey).send({ input_value: 'streamed', session_id: 'lf-1' }).expect(200);
    const result = (events[2].data as { result: { outputs: { job_id: string }[] } }).result;
    expect(result.outputs[0].job_id).toBe(res.headers['x-job-id']);
    const withoutJob = (r: { outputs: { job_id: string }[] }) => ({ ...r, outputs: r.outputs.map(({ job_id: _job, ...rest }) => rest) });
    expect(withoutJob(result)).toEqual(withoutJob(plain.body));
  });

  it('streams a token per text value reaching a collect-all output, then the stored messages under the same ids', async () => {
    const data = upperFlow();
    data.nodes[1] = { id: 'up', position: { x: 200, y: 0 }, data: { nodeType: 'stest.words', config: {} } };
    data.nodes[2].data.config = { name: 'reply', collect: 'all' };
    const flow = await createFlow({ name: 'Run tokens', data });
    const res = await readStream(`/api/v1/run/${flow.id}?stream=true`, { method: 'POST', headers: { 'x-api-key': s.alice.apiKey }, body: { input_value: 'hello streaming world' } });
    const events = langflowEvents(res.text);
    expect(events.map((e) => e.event)).toEqual(['add_message', 'token', 'token', 'token', 'add_message', 'add_message', 'add_message', 'end']);
    const tokens = events.filter((e) => e.event === 'token').map((e) => e.data as { chunk: string; id: string; timestamp: string });
    expect(tokens.map((t) => t.chunk).join('')).toBe('hello streaming world');
    expect(tokens.every((t) => !Number.isNaN(Date.parse(t.timestamp)))).toBe(true);
    const messages = events.slice(4, 7).map((e) => e.data as { id: string; text: string });
    expect(messages.map((m) => m.id)).toEqual(tokens.map((t) => t.id));
    expect(messages.map((m) => m.text)).toEqual(tokens.map((t) => t.chunk));
  });

  it('a failing run streams error {error} and no end; a bad request is answered before the stream opens', async () => {
    const failing = await createFlow({ name: 'Run stream fail', data: chainFlow([{ type: 'stest.fail', config: { message: 'kaput' } }]) });
    const res = await readStream(`/api/v1/run/${failing.id}?stream=true`, { method: 'POST', headers: { 'x-api-key': s.alice.apiKey }, body: { input_value: '1' } });
    const events = langflowEvents(res.text);
    expect(events.map((e) => e.event)).toEqual(['add_message', 'error']);
    expect(events[1].data).toMatchObject({ error: expect.stringContaining('kaput'), status: 'failed', job_id: res.headers['x-job-id'] });
    const flow = await createFlow({ name: 'Run stream bad', data: upperFlow() });
    const badTweak = await s.http.post(`/api/v1/run/${flow.id}?stream=true`).set(s.alice.auth).send({ input_value: 'a', tweaks: { up: { sufix: '!' } } }).expect(422);
    expect(badTweak.body.detail[0].loc).toEqual(['body', 'tweaks', 'up', 'sufix']);
    const badFraming = await s.http.post(`/api/v1/run/${flow.id}?stream=true&framing=xml`).set(s.alice.auth).send({ input_value: 'a' }).expect(422);
    expect(badFraming.body.detail[0].loc).toEqual(['query', 'framing']);
  });

  it('the advanced run streams in the same framing when its body says stream: true', async () => {
    const flow = await createFlow({ name: 'Run advanced stream', data: upperFlow() });
    const res = await readStream(`/api/v1/run/advanced/${flow.id}`, { method: 'POST', headers: { 'x-api-key': s.alice.apiKey }, body: { inputs: [{ input_value: 'x' }, { input_value: 'y' }], stream: true, session_id: 'adv-stream' } });
    const events = langflowEvents(res.text);
    expect(events.map((e) => e.event)).toEqual(['add_message', 'add_message', 'add_message', 'add_message', 'end']);
    expect(events.slice(0, 4).map((e) => (e.data as { text: string }).text)).toEqual(['x', 'X', 'y', 'Y']);
    const result = (events[4].data as { result: { session_id: string; outputs: { outputs: { results: { result: string } }[] }[] } }).result;
    expect(result.session_id).toBe('adv-stream');
    expect(result.outputs.map((o) => o.outputs[0].results.result)).toEqual(['X', 'Y']);
  });

  it('framing=sse gives the studio SSE: add_message, then end carrying the result', async () => {
    const flow = await createFlow({ name: 'Run stream', data: upperFlow() });
    const res = await readStream(`/api/v1/run/${flow.id}?stream=true&framing=sse`, { method: 'POST', headers: { 'x-api-key': s.alice.apiKey }, body: { input_value: 'streamed' } });
    const events = sseEvents(res.text);
    expect(events.map((e) => e.event)).toEqual(['add_message', 'end']);
    expect((events[0].data.data as { text: string }).text).toBe('STREAMED');
    const end = events[1].data.data as { result: { outputs: { outputs: { results: { result: string } }[] }[] } };
    expect(end.result.outputs[0].outputs[0].results.result).toBe('STREAMED');
  });

  it('a client disconnecting from a streamed run cancels it', async () => {
    const flow = await createFlow({ name: 'Run stream cancel', data: chainFlow([{ type: 'stest.slow', config: { steps: 200, delayMs: 20 } }]) });
    let jobId = '';
    await readStream(`/api/v1/run/${flow.id}?stream=true&framing=sse`, {
      method: 'POST',
      headers: { 'x-api-key': s.alice.apiKey },
      body: { input_value: '1' },
      onChunk: (text, req, headers) => {
        if (!jobId && sseEvents(text).some((e) => e.event === 'progress')) {
          jobId = String(headers['x-job-id']);
          req.destroy();
        }
      },
    }).catch(() => undefined);
    const job = s.runtime.jobs.get(jobId)!;
    expect(job).toBeDefined();
    expect((await job.done).status).toBe('cancelled');
    expect(job.snapshot().error).toBe('client disconnected');
  });
});

describe('webhook', () => {
  it('runs webhook flows in the background (202) and refuses others', async () => {
    const flow = await createFlow({ name: 'Hooked', webhook: true, data: upperFlow() });
    const res = await s.http.post(`/api/v1/webhook/${flow.id}`).send({ text: 'from hook' }).expect(202);
    expect(res.body).toMatchObject({ message: 'Task started in the background', status: 'in progress' });
    const job = s.runtime.jobs.get(res.body.job_id)!;
    const done = await job.done;
    expect(done.outputs.result).toBe('FROM HOOK');
    const plain = await createFlow({ name: 'Not hooked', data: upperFlow() });
    await s.http.post(`/api/v1/webhook/${plain.id}`).send({ text: 'x' }).expect(403);
    await s.http.post('/api/v1/webhook/00000000-0000-4000-8000-000000000000').send({}).expect(404);
  });
});

describe('job limits', () => {
  it('queues runs over the per-user limit (4) across flows', async () => {
    const flows = [];
    for (let i = 0; i < 5; i++) flows.push(await createFlow({ name: `Per user ${i}`, data: chainFlow([{ type: 'stest.slow', config: { steps: 5, delayMs: 30 } }]) }, s.bob));
    const jobs = [];
    for (const flow of flows) jobs.push((await s.http.post(`/api/v1/build/${flow.id}/flow?event_delivery=polling`).set(s.bob.auth).send({ inputs: { input_value: '1' } }).expect(200)).body.job_id as string);
    const statuses = jobs.map((id) => s.runtime.jobs.get(id)!.status);
    expect(statuses.filter((x) => x === 'in_progress')).toHaveLength(4);
    expect(statuses[4]).toBe('queued');
    for (const id of jobs) expect((await s.runtime.jobs.get(id)!.done).status).toBe('completed');
  });

  it('queues runs over the per-flow limit with status queued', async () => {
    const flow = await createFlow({ name: 'Limited', data: chainFlow([{ type: 'stest.slow', config: { steps: 5, delayMs: 20 } }]) });
    const a = await s.http.post(`/api/v1/build/${flow.id}/flow?event_delivery=polling`).set(s.alice.auth).send({ inputs: { input_value: '1' } }).expect(200);
    const b = await s.http.post(`/api/v1/build/${flow.id}/flow?event_delivery=polling`).set(s.alice.auth).send({ inputs: { input_value: '2' } }).expect(200);
    const jobB = s.runtime.jobs.get(b.body.job_id)!;
    expect(s.runtime.jobs.get(a.body.job_id)!.status).toBe('in_progress');
    expect(jobB.status).toBe('queued');
    const events = await s.http.get(`/api/v1/build/${b.body.job_id}/events?event_delivery=polling`).set(s.alice.auth).expect(200);
    expect(events.text.split('\n').filter(Boolean).map((l) => JSON.parse(l).event)).toEqual(['job_queued']);
    expect((await jobB.done).status).toBe('completed');
  });
});
