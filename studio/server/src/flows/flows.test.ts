import { describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { testStudioForFile, upperFlow, binaryParser } from '../testing/test-plugins.js';

const s = await testStudioForFile();

const FLOW_READ_KEYS = ['id', 'name', 'description', 'data', 'access_type', 'action_name', 'action_description', 'endpoint_name', 'folder_id', 'gradient', 'icon', 'icon_bg_color', 'is_component', 'locked', 'mcp_enabled', 'tags', 'updated_at', 'user_id', 'webhook'];
const FLOW_HEADER_KEYS = ['id', 'name', 'folder_id', 'is_component', 'endpoint_name', 'description', 'data', 'access_type', 'mcp_enabled', 'action_name', 'action_description', 'tags'].sort();

describe('flows CRUD', () => {
  it('rejects requests without credentials (401) and bad credentials (401)', async () => {
    await s.http.get('/api/v1/flows/').expect(401);
    await s.http.get('/api/v1/flows/').set('x-api-key', 'wf_not-a-key').expect(401);
    await s.http.get('/api/v1/flows/').set('Authorization', 'Bearer nope').expect(401);
  });

  it('creates a flow with FlowCreate defaults and returns FlowRead (201)', async () => {
    const res = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Shout', data: upperFlow() }).expect(201);
    for (const key of FLOW_READ_KEYS) expect(res.body).toHaveProperty(key);
    expect(res.body).toMatchObject({ name: 'Shout', access_type: 'PRIVATE', is_component: false, locked: false, mcp_enabled: false, webhook: false, user_id: s.alice.id, revision: 1, valid: true, problems: [] });
    expect(res.body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.body.folder_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(res.body.updated_at).toString()).not.toBe('Invalid Date');
    // the default project is the one named by default_folder_name
    const folder = await s.http.get(`/api/v1/projects/${res.body.folder_id}`).set(s.alice.auth).expect(200);
    const config = await s.http.get('/api/v1/studio/config').expect(200);
    expect(folder.body.name).toBe(config.body.default_folder_name);
  });

  it('validates FlowCreate fields (422 with locations)', async () => {
    const missing = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ description: 'no name' }).expect(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'name']);
    const badAccess = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'x', access_type: 'SECRET' }).expect(422);
    expect(badAccess.body.detail[0].loc).toEqual(['body', 'access_type']);
    const badEndpoint = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'x', endpoint_name: 'has space' }).expect(422);
    expect(badEndpoint.body.detail[0].loc).toEqual(['body', 'endpoint_name']);
    const badFolder = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'x', folder_id: 'not-a-uuid' }).expect(422);
    expect(badFolder.body.detail[0].loc).toEqual(['body', 'folder_id']);
    await s.http.post('/api/v1/flows/').set(s.alice.auth).set('content-type', 'application/json').send('{"name": ').expect(422);
  });

  it('stores invalid flows as drafts marked invalid with every compiler problem', async () => {
    const data = upperFlow();
    data.nodes[1].data.nodeType = 'stest.nope';
    data.nodes[2].data.config = { name: '1bad' };
    const res = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Draft', data }).expect(201);
    expect(res.body.valid).toBe(false);
    const codes = res.body.problems.map((p: { code: string }) => p.code);
    expect(codes).toContain('unknown_node_type');
    expect(codes).toContain('invalid_config');
    const again = await s.http.get(`/api/v1/flows/${res.body.id}`).set(s.alice.auth).expect(200);
    expect(again.body.valid).toBe(false);
  });

  it('makes names and endpoint names unique per user, not across users', async () => {
    const a = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Same', endpoint_name: 'same-ep' }).expect(201);
    const b = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Same', endpoint_name: 'same-ep' }).expect(201);
    expect(a.body.name).toBe('Same');
    expect(b.body.name).toBe('Same (1)');
    expect(b.body.endpoint_name).toBe('same-ep-1');
    const other = await s.http.post('/api/v1/flows/').set(s.bob.auth).send({ name: 'Same', endpoint_name: 'same-ep' }).expect(201);
    expect(other.body.name).toBe('Same');
    expect(other.body.endpoint_name).toBe('same-ep');
    // renaming onto a taken name is a conflict
    const clash = await s.http.patch(`/api/v1/flows/${b.body.id}`).set(s.alice.auth).send({ name: 'Same' }).expect(409);
    expect(clash.body.code).toBe('WIFLOW_STUDIO_NAME_TAKEN');
    await s.http.patch(`/api/v1/flows/${b.body.id}`).set(s.alice.auth).send({ endpoint_name: 'same-ep' }).expect(409);
  });

  it('hides flows of other users (404) and unknown ids (404)', async () => {
    const a = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Private one' }).expect(201);
    await s.http.get(`/api/v1/flows/${a.body.id}`).set(s.bob.auth).expect(404);
    await s.http.patch(`/api/v1/flows/${a.body.id}`).set(s.bob.auth).send({ name: 'mine' }).expect(404);
    await s.http.delete(`/api/v1/flows/${a.body.id}`).set(s.bob.auth).expect(404);
    await s.http.get('/api/v1/flows/00000000-0000-4000-8000-00000000abcd').set(s.alice.auth).expect(404);
    await s.http.get('/api/v1/flows/not-a-uuid').set(s.alice.auth).expect(404);
  });

  it('lists flows, headers and pages', async () => {
    const all = await s.http.get('/api/v1/flows/').set(s.alice.auth).expect(200);
    expect(Array.isArray(all.body)).toBe(true);
    expect(all.body.every((f: { user_id: string }) => f.user_id === s.alice.id)).toBe(true);
    const headers = await s.http.get('/api/v1/flows/?header_flows=true').set(s.alice.auth).expect(200);
    expect(headers.body.length).toBe(all.body.length);
    for (const h of headers.body) expect(Object.keys(h).sort()).toEqual(FLOW_HEADER_KEYS);
    expect(headers.body.every((h: { data: unknown }) => h.data === null)).toBe(true);
    const page = await s.http.get('/api/v1/flows/?get_all=false&page=1&size=2').set(s.alice.auth).expect(200);
    expect(page.body).toMatchObject({ page: 1, size: 2, total: all.body.length });
    expect(page.body.items).toHaveLength(2);
    expect(page.body.pages).toBe(Math.ceil(all.body.length / 2));
    await s.http.get('/api/v1/flows/?get_all=false&size=0').set(s.alice.auth).expect(422);
  });

  it('PATCH applies FlowUpdate fields only, masks secrets and keeps them on update', async () => {
    const data = upperFlow();
    data.nodes.splice(1, 0, { id: 'sec', position: { x: 0, y: 100 }, data: { nodeType: 'stest.secret', config: { apiKey: 'sk-very-secret', label: 'k' } } });
    const created = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'With secret', data }).expect(201);
    const node = created.body.data.nodes.find((n: { id: string }) => n.id === 'sec');
    expect(node.data.config.apiKey).toBe('********');
    expect(JSON.stringify(created.body)).not.toContain('sk-very-secret');
    // PATCH with the masked data keeps the stored secret; fields absent from FlowUpdate are ignored
    const patched = await s.http
      .patch(`/api/v1/flows/${created.body.id}`)
      .set(s.alice.auth)
      .send({ description: 'd', data: created.body.data, webhook: true, tags: ['x'], mcp_enabled: true })
      .expect(200);
    expect(patched.body).toMatchObject({ description: 'd', webhook: false, tags: [], mcp_enabled: true, revision: 2 });
    const stored = await s.runtime.storage.flows.get(created.body.id);
    const storedNode = (stored!.data!.nodes as { id: string; data: { config: { apiKey: string } } }[]).find((n) => n.id === 'sec');
    expect(storedNode!.data.config.apiKey).toBe('sk-very-secret');
    // null name keeps the name; bad types are 422
    const kept = await s.http.patch(`/api/v1/flows/${created.body.id}`).set(s.alice.auth).send({ name: null }).expect(200);
    expect(kept.body.name).toBe('With secret');
    await s.http.patch(`/api/v1/flows/${created.body.id}`).set(s.alice.auth).send({ locked: 'yes' }).expect(422);
  });

  it('PUT upserts: 201 when created, 200 when updated', async () => {
    const id = '3f0c3a1e-6a55-4a8e-9d3c-2b1f7e0c9a11';
    const created = await s.http.put(`/api/v1/flows/${id}`).set(s.alice.auth).send({ name: 'Upserted', tags: ['a'] }).expect(201);
    expect(created.body.id).toBe(id);
    const updated = await s.http.put(`/api/v1/flows/${id}`).set(s.alice.auth).send({ name: 'Upserted 2', tags: ['b'], webhook: true }).expect(200);
    expect(updated.body).toMatchObject({ name: 'Upserted 2', tags: ['b'], webhook: true });
    await s.http.put(`/api/v1/flows/${id}`).set(s.bob.auth).send({ name: 'steal' }).expect(404);
  });

  it('batch-creates flows and rejects duplicate ids (422)', async () => {
    const id = 'a7b7a4c2-6f7e-4a0b-8a52-1d6a1c1f0b22';
    const dup = await s.http.post('/api/v1/flows/batch/').set(s.alice.auth).send({ flows: [{ id, name: 'b1' }, { id, name: 'b2' }] }).expect(422);
    expect(dup.body.code).toBe('WIFLOW_STUDIO_DUPLICATE_IDS');
    const ok = await s.http.post('/api/v1/flows/batch/').set(s.alice.auth).send({ flows: [{ name: 'b1' }, { name: 'b2', data: upperFlow() }] }).expect(201);
    expect(ok.body.map((f: { name: string }) => f.name)).toEqual(['b1', 'b2']);
    await s.http.post('/api/v1/flows/batch/').set(s.alice.auth).send({ nope: [] }).expect(422);
  });

  it('downloads flows as a zip without secrets and uploads them back (JSON and zip)', async () => {
    const data = upperFlow();
    data.nodes.push({ id: 'sec', position: { x: 0, y: 100 }, data: { nodeType: 'stest.secret', config: { apiKey: 'sk-export-me-not' } } });
    const f1 = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Export A', data }).expect(201);
    const f2 = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Export B', data: upperFlow() }).expect(201);
    const zipRes = await s.http.post('/api/v1/flows/download/').set(s.alice.auth).send([f1.body.id, f2.body.id]).buffer(true).parse(binaryParser).expect(200);
    expect(zipRes.headers['content-type']).toContain('application/zip');
    const zip = await JSZip.loadAsync(zipRes.body as Buffer);
    const names = Object.keys(zip.files).sort();
    expect(names).toEqual(['Export A.json', 'Export B.json']);
    const text = await zip.file('Export A.json')!.async('string');
    expect(text).not.toContain('sk-export-me-not');
    expect(text).not.toContain('********');
    // bob cannot download alice's flows
    await s.http.post('/api/v1/flows/download/').set(s.bob.auth).send([f1.body.id]).expect(404);

    const up = await s.http.post('/api/v1/flows/upload/').set(s.bob.auth).attach('file', zipRes.body as Buffer, 'flows.zip').expect(201);
    expect(up.body.map((f: { name: string }) => f.name).sort()).toEqual(['Export A', 'Export B']);
    expect(up.body.every((f: { user_id: string; id: string }) => f.user_id === s.bob.id && f.id !== f1.body.id)).toBe(true);

    const json = Buffer.from(JSON.stringify({ flows: [{ name: 'From JSON', data: upperFlow() }] }));
    const up2 = await s.http.post('/api/v1/flows/upload/').set(s.bob.auth).attach('file', json, 'flows.json').expect(201);
    expect(up2.body[0]).toMatchObject({ name: 'From JSON', valid: true });
    await s.http.post('/api/v1/flows/upload/').set(s.bob.auth).attach('file', Buffer.from('{nope'), 'x.json').expect(400);
    await s.http.post('/api/v1/flows/upload/').set(s.bob.auth).field('other', 'x').expect(422);
  });

  it('deletes one flow and many flows', async () => {
    const a = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'del-a' }).expect(201);
    const b = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'del-b' }).expect(201);
    const c = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'del-c' }).expect(201);
    const bobs = await s.http.post('/api/v1/flows/').set(s.bob.auth).send({ name: 'del-bob' }).expect(201);
    await s.http.delete(`/api/v1/flows/${a.body.id}`).set(s.alice.auth).expect(200);
    await s.http.get(`/api/v1/flows/${a.body.id}`).set(s.alice.auth).expect(404);
    const many = await s.http.delete('/api/v1/flows/').set(s.alice.auth).send([b.body.id, c.body.id, bobs.body.id]).expect(200);
    expect(many.body).toEqual({ deleted: 2 });
    await s.http.get(`/api/v1/flows/${bobs.body.id}`).set(s.bob.auth).expect(200);
    await s.http.delete('/api/v1/flows/').set(s.alice.auth).send(['x']).expect(422);
  });

  it('serves PUBLIC flows without credentials and hides PRIVATE ones', async () => {
    const pub = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Pub', access_type: 'PUBLIC', data: upperFlow() }).expect(201);
    const priv = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Priv' }).expect(201);
    await s.http.get(`/api/v1/flows/public_flow/${pub.body.id}`).expect(200);
    await s.http.get(`/api/v1/flows/public_flow/${priv.body.id}`).expect(404);
  });
});
