// Langflow's own JavaScript client (@datastax/langflow-client, pinned in devDependencies) drives
// the flow service on loopback with an API key, unchanged: what people already use with Langflow
// must work with wiflow.
import { LangflowClient } from '@datastax/langflow-client';
import { LangflowError } from '@datastax/langflow-client/errors';
import { FlowResponse } from '@datastax/langflow-client/flow_response';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainFlow, startTestStudio, upperFlow, type TestStudio } from './testing/test-plugins.js';

let s: TestStudio;
let client: LangflowClient;
let admin: { id: string; apiKey: string };

beforeAll(async () => {
  s = await startTestStudio();
  // Langflow serves its logs to superusers only; wiflow's equivalent is the admin role.
  const user = await s.runtime.storage.users.create({ username: 'root', password: 'root-password-123', roles: ['admin'] });
  admin = { id: user.id, apiKey: (await s.runtime.storage.apiKeys.create({ userId: user.id, name: 'langflow-client' })).key };
  client = new LangflowClient({ baseUrl: s.url, apiKey: admin.apiKey });
});
afterAll(async () => {
  await s?.close();
});

async function createFlow(body: Record<string, unknown>): Promise<{ id: string }> {
  return (await s.http.post('/api/v1/flows/').set('x-api-key', admin.apiKey).send(body).expect(201)).body as { id: string };
}

/** upperFlow with its output named `message`, where Langflow's chat output keeps its text. */
function chatFlow() {
  const data = upperFlow();
  data.nodes[2].data.config = { name: 'message', collect: 'last' };
  return data;
}

/** A flow whose io.output `message` collects each word as the words node emits it. */
function wordsFlow() {
  const data = chatFlow();
  data.nodes[1] = { id: 'up', position: { x: 200, y: 0 }, data: { nodeType: 'stest.words', config: {} } };
  data.nodes[2].data.config = { name: 'message', collect: 'all' };
  return data;
}

/** Every event of a client stream. */
async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const events: T[] = [];
  for await (const event of stream as unknown as AsyncIterable<T>) events.push(event);
  return events;
}

describe('@datastax/langflow-client against the flow service', () => {
  it('runs a flow by id and by endpoint name; chatOutputText() finds the answer', async () => {
    const flow = await createFlow({ name: 'Client chat', endpoint_name: 'client-chat', data: chatFlow() });
    const byId = await client.flow(flow.id).run('hello', { session_id: 'client-session' });
    expect(byId).toBeInstanceOf(FlowResponse);
    expect(byId.sessionId).toBe('client-session');
    expect(byId.chatOutputText()).toBe('HELLO');
    const byName = await client.flow('client-chat').run('by name');
    expect(byName.chatOutputText()).toBe('BY NAME');
    expect(byName.sessionId).toBe(flow.id);
  });

  it('applies tweaks set on the flow or per run, and a bad tweak fails with the 422 Langflow gives', async () => {
    const flow = await createFlow({ name: 'Client tweaks', data: chatFlow() });
    expect((await client.flow(flow.id).tweak('up', { suffix: '!' }).run('a')).chatOutputText()).toBe('A!');
    expect((await client.flow(flow.id, { Shouter: { suffix: '?' } }).run('b')).chatOutputText()).toBe('B?');
    expect((await client.flow(flow.id).run('c', { tweaks: { suffix: '#' } })).chatOutputText()).toBe('C#');
    const error = await client.flow(flow.id).run('d', { tweaks: { up: { sufix: '!' } } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LangflowError);
    expect((error as LangflowError).cause.status).toBe(422);
    expect(((await (error as LangflowError).cause.json()) as { detail: { loc: string[] }[] }).detail[0].loc).toEqual(['body', 'tweaks', 'up', 'sufix']);
  });

  it('streams add_message for the input and the answer, then end with the result a plain run returns', async () => {
    const flow = await createFlow({ name: 'Client stream', data: chatFlow() });
    const events = await collect(await client.flow(flow.id).tweak('up', { suffix: '.' }).stream('stream me', { session_id: 'stream-session' }));
    expect(events.map((e) => e.event)).toEqual(['add_message', 'add_message', 'end']);
    const [input, answer, end] = events;
    expect(input.data).toMatchObject({ sender: 'User', text: 'stream me', session_id: 'stream-session', flow_id: flow.id });
    expect(answer.data).toMatchObject({ sender: 'Machine', sender_name: 'AI', text: 'STREAM ME.', session_id: 'stream-session' });
    if (end.event !== 'end') throw new Error('the stream did not end with end');
    const result = new FlowResponse(end.data.result);
    expect(result.chatOutputText()).toBe('STREAM ME.');
    expect(result.sessionId).toBe('stream-session');
  });

  it('streams a token per chunk a node produces, each naming the message it ends up in', async () => {
    const flow = await createFlow({ name: 'Client tokens', data: wordsFlow() });
    const events = await collect(await client.flow(flow.id).stream('tokens arrive one by one'));
    const tokens = events.flatMap((e) => (e.event === 'token' ? [e.data] : []));
    expect(tokens.map((t) => t.chunk)).toEqual(['tokens ', 'arrive ', 'one ', 'by ', 'one']);
    const answers = events.flatMap((e) => (e.event === 'add_message' && e.data.sender === 'Machine' ? [e.data] : []));
    expect(answers.map((m) => m.id)).toEqual(tokens.map((t) => t.id));
    expect(events.findIndex((e) => e.event === 'token')).toBeLessThan(events.findIndex((e) => e.event === 'add_message' && e.data.sender === 'Machine'));
    expect(events.at(-1)!.event).toBe('end');
  });

  it('a failing flow streams an error event and no end', async () => {
    const flow = await createFlow({ name: 'Client stream fail', data: chainFlow([{ type: 'stest.fail', config: { message: 'kaput' } }]) });
    const events = (await collect(await client.flow(flow.id).stream('1'))) as { event: string; data: { error?: string } }[];
    expect(events.map((e) => e.event)).toEqual(['add_message', 'error']);
    expect(events[1].data.error).toContain('kaput');
  });

  it('uploads files for a flow (v1) and for the user (v2), and lists them', async () => {
    const flow = await createFlow({ name: 'Client files', data: chatFlow() });
    const v1 = await client.flow(flow.id).uploadFile(new Blob(['a,b\n1,2\n'], { type: 'text/csv' }) as never);
    expect(v1.flowId).toBe(flow.id);
    expect(v1.filePath).toMatch(new RegExp(`^${flow.id}/`));
    const listed = await s.http.get(`/api/v1/files/list/${flow.id}`).set('x-api-key', admin.apiKey).expect(200);
    expect(listed.body.files).toEqual([v1.filePath.slice(flow.id.length + 1)]);

    const form = new File(['0123456789'], 'capture.dat', { type: 'application/octet-stream' });
    const v2 = await client.files.upload(form as never);
    expect(v2).toMatchObject({ name: 'capture.dat', size: 10, user_id: admin.id });
    expect(v2.created_at).toBeInstanceOf(Date);
    const files = await client.files.list();
    expect(files.map((f) => f.id)).toContain(v2.id);
    expect(files.find((f) => f.id === v2.id)).toMatchObject({ name: 'capture.dat', path: v2.path, size: 10 });
  });

});

// The client's logs module (0.4.1) builds its headers with Node's global Headers class, which its
// request() does not recognise, so the API key lands on a discarded copy and no credentials are sent.
// Against Langflow it works through AUTO_LOGIN; wiflow's equivalent is studio.autoLogin.
describe('@datastax/langflow-client logs against a single-user (autoLogin) server', () => {
  let local: TestStudio;
  let localClient: LangflowClient;
  let failing: string;
  beforeAll(async () => {
    local = await startTestStudio({ studio: { autoLogin: true } });
    localClient = new LangflowClient({ baseUrl: local.url });
    failing = ((await local.http.post('/api/v1/flows/').send({ name: 'Logged failure', data: chainFlow([{ type: 'stest.fail', config: { message: 'logged-kaput' } }]) }).expect(201)).body as { id: string }).id;
  });
  afterAll(async () => {
    await local?.close();
  });

  it('fetches the server log (logs.fetch), by default and around a timestamp', async () => {
    // A run that fails is logged by the server; the log is the runtime's own.
    const failed = await localClient.flow(failing).run('1').catch((e: unknown) => e);
    expect((failed as LangflowError).cause.status).toBe(500);
    const logs = await localClient.logs.fetch();
    const entry = logs.find((l) => l.message.includes('logged-kaput'));
    expect(entry?.message).toMatch(/^WARN \[studio\.runs\] run failed /);
    expect(entry!.message).toContain(failing);
    expect(Math.abs(entry!.timestamp.getTime() - Date.now())).toBeLessThan(60_000);
    const after = await localClient.logs.fetch({ timestamp: entry!.timestamp.getTime(), lines_after: 1 });
    expect(after).toHaveLength(1);
    expect(after[0].message).toContain('logged-kaput');
    const before = await localClient.logs.fetch({ timestamp: entry!.timestamp.getTime() + 1, lines_before: 1 });
    expect(before.map((l) => l.message).join('\n')).toContain('logged-kaput');
  });

  it('streams entries logged after it opened (logs.stream)', async () => {
    const abort = new AbortController();
    const reader = (await localClient.logs.stream({ signal: abort.signal })).getReader();
    const next = reader.read();
    await localClient.flow(failing).run('2').catch(() => undefined);
    const { value } = await next;
    expect(value!.message).toMatch(/^WARN \[studio\.runs\] run failed .*logged-kaput/);
    expect(Math.abs(value!.timestamp.getTime() - Date.now())).toBeLessThan(60_000);
    abort.abort();
    await reader.cancel().catch(() => undefined);
  });
});

describe('GET /logs with credentials (what the client would send if it sent its key)', () => {
  it("answers admins with Langflow's {epoch ms: message} object, refuses others (403) and strangers (401)", async () => {
    const flow = await createFlow({ name: 'Keyed log', data: chainFlow([{ type: 'stest.fail', config: { message: 'keyed-kaput' } }]) });
    await client.flow(flow.id).run('1').catch(() => undefined);
    const res = await fetch(`${s.url}/logs?lines_before=5`, { headers: { 'x-api-key': admin.apiKey, accept: 'application/json' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, string>;
    expect(Object.keys(body).every((k) => /^\d{13}$/.test(k))).toBe(true);
    expect(Object.values(body).join('\n')).toContain('keyed-kaput');
    expect(JSON.stringify(body)).not.toContain(admin.apiKey);
    expect((await fetch(`${s.url}/logs`, { headers: { 'x-api-key': s.alice.apiKey } })).status).toBe(403);
    const anonymous = await fetch(`${s.url}/logs-stream`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ detail: 'Could not validate credentials' });
  });
});
