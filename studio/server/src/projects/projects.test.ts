import { describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { testStudioForFile, upperFlow, binaryParser } from '../testing/test-plugins.js';

const s = await testStudioForFile({ studio: { defaultFolderName: 'My Flows' } });

const FOLDER_READ_KEYS = ['auth_settings', 'description', 'id', 'name', 'parent_id'];

describe('revisions', () => {
  it('every update makes a revision; a PATCH based on a stale revision gets 409', async () => {
    const created = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Rev', data: upperFlow() }).expect(201);
    const id = created.body.id;
    const get = await s.http.get(`/api/v1/flows/${id}`).set(s.alice.auth).expect(200);
    expect(get.headers.etag).toBe('"1"');
    // two editors start from revision 1
    const first = await s.http.patch(`/api/v1/flows/${id}`).set(s.alice.auth).set('If-Match', '"1"').send({ description: 'editor one' }).expect(200);
    expect(first.body.revision).toBe(2);
    const stale = await s.http.patch(`/api/v1/flows/${id}`).set(s.alice.auth).set('If-Match', '"1"').send({ description: 'editor two' }).expect(409);
    expect(stale.body).toMatchObject({ code: 'WIFLOW_STUDIO_STALE_REVISION', details: { current_revision: 2, based_on_revision: 1 } });
    // ?revision= works too
    await s.http.patch(`/api/v1/flows/${id}?revision=1`).set(s.alice.auth).send({ description: 'x' }).expect(409);
    await s.http.patch(`/api/v1/flows/${id}?revision=2`).set(s.alice.auth).send({ description: 'editor two, rebased' }).expect(200);
    await s.http.patch(`/api/v1/flows/${id}`).set(s.alice.auth).set('If-Match', 'banana').send({ description: 'x' }).expect(422);
  });

  it('lists revisions newest first and restores one (as a new revision)', async () => {
    const created = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Restore me', description: 'v1' }).expect(201);
    const id = created.body.id;
    await s.http.patch(`/api/v1/flows/${id}`).set(s.alice.auth).send({ description: 'v2' }).expect(200);
    await s.http.patch(`/api/v1/flows/${id}`).set(s.alice.auth).send({ description: 'v3', name: 'Restored?' }).expect(200);
    const list = await s.http.get(`/api/v1/flows/${id}/revisions`).set(s.alice.auth).expect(200);
    expect(list.body.total).toBe(3);
    expect(list.body.items.map((r: { revision: number }) => r.revision)).toEqual([3, 2, 1]);
    const one = await s.http.get(`/api/v1/flows/${id}/revisions/1`).set(s.alice.auth).expect(200);
    expect(one.body.flow).toMatchObject({ description: 'v1', name: 'Restore me' });
    const restored = await s.http.post(`/api/v1/flows/${id}/revisions/1/restore`).set(s.alice.auth).expect(200);
    expect(restored.body).toMatchObject({ description: 'v1', name: 'Restore me', revision: 4 });
    await s.http.get(`/api/v1/flows/${id}/revisions/99`).set(s.alice.auth).expect(404);
    await s.http.get(`/api/v1/flows/${id}/revisions`).set(s.bob.auth).expect(404);
    await s.http.post(`/api/v1/flows/${id}/revisions/2/restore`).set(s.alice.auth).set('If-Match', '"3"').expect(409);
  });
});

describe('projects (and the /folders alias)', () => {
  it('creates the default project named by default_folder_name and lists FolderRead', async () => {
    const list = await s.http.get('/api/v1/projects/').set(s.bob.auth).expect(200);
    expect(list.body.map((p: { name: string }) => p.name)).toContain('My Flows');
    for (const p of list.body) expect(Object.keys(p).sort()).toEqual(FOLDER_READ_KEYS);
    await s.http.get('/api/v1/projects/').expect(401);
  });

  it('CRUD with duplicate names suffixed, flows moved in, paginated flows, 404 for others', async () => {
    const flow = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'In project', data: upperFlow() }).expect(201);
    const p1 = await s.http.post('/api/v1/projects/').set(s.alice.auth).send({ name: 'Lab', description: 'd', flows_list: [flow.body.id] }).expect(201);
    expect(Object.keys(p1.body).sort()).toEqual(FOLDER_READ_KEYS);
    expect(p1.body).toMatchObject({ name: 'Lab', description: 'd', parent_id: null, auth_settings: null });
    const p2 = await s.http.post('/api/v1/folders/').set(s.alice.auth).send({ name: 'Lab' }).expect(201);
    expect(p2.body.name).toBe('Lab (1)');
    await s.http.post('/api/v1/projects/').set(s.alice.auth).send({ description: 'no name' }).expect(422);

    const withFlows = await s.http.get(`/api/v1/projects/${p1.body.id}`).set(s.alice.auth).expect(200);
    expect(withFlows.body.flows.map((f: { id: string }) => f.id)).toEqual([flow.body.id]);
    expect(withFlows.body.flows[0].folder_id).toBe(p1.body.id);
    const paged = await s.http.get(`/api/v1/folders/${p1.body.id}?page=1&size=10`).set(s.alice.auth).expect(200);
    expect(Object.keys(paged.body).sort()).toEqual(['flows', 'folder']);
    expect(paged.body.flows).toMatchObject({ total: 1, page: 1, size: 10, pages: 1 });

    const patched = await s.http.patch(`/api/v1/projects/${p1.body.id}`).set(s.alice.auth).send({ name: 'Lab 2', parent_id: p2.body.id }).expect(200);
    expect(patched.body).toMatchObject({ name: 'Lab 2', parent_id: p2.body.id });
    // PATCH flows: [] moves the flow out to the default project
    await s.http.patch(`/api/v1/projects/${p1.body.id}`).set(s.alice.auth).send({ flows: [] }).expect(200);
    const moved = await s.http.get(`/api/v1/flows/${flow.body.id}`).set(s.alice.auth).expect(200);
    expect(moved.body.folder_id).not.toBe(p1.body.id);

    await s.http.get(`/api/v1/projects/${p1.body.id}`).set(s.bob.auth).expect(404);
    await s.http.patch(`/api/v1/projects/${p1.body.id}`).set(s.bob.auth).send({ name: 'x' }).expect(404);
    await s.http.delete(`/api/v1/projects/${p1.body.id}`).set(s.bob.auth).expect(404);

    const doomed = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Doomed', folder_id: p2.body.id }).expect(201);
    await s.http.delete(`/api/v1/projects/${p2.body.id}`).set(s.alice.auth).expect(204);
    await s.http.get(`/api/v1/projects/${p2.body.id}`).set(s.alice.auth).expect(404);
    await s.http.get(`/api/v1/flows/${doomed.body.id}`).set(s.alice.auth).expect(404);
    // creating a flow in someone else's project is a 404
    const bobsProject = await s.http.post('/api/v1/projects/').set(s.bob.auth).send({ name: 'Bob only' }).expect(201);
    await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Sneaky', folder_id: bobsProject.body.id }).expect(404);
  });

  it('downloads a project as a zip and uploads it as a new project', async () => {
    const p = await s.http.post('/api/v1/projects/').set(s.alice.auth).send({ name: 'Exported', description: 'to zip' }).expect(201);
    await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'E1', data: upperFlow(), folder_id: p.body.id }).expect(201);
    await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'E2', folder_id: p.body.id }).expect(201);
    const zipRes = await s.http.get(`/api/v1/projects/download/${p.body.id}`).set(s.alice.auth).buffer(true).parse(binaryParser).expect(200);
    const zip = await JSZip.loadAsync(zipRes.body as Buffer);
    expect(Object.keys(zip.files).filter((n) => !zip.files[n].dir).sort()).toEqual(['flows/E1.json', 'flows/E2.json', 'project.json']);
    const up = await s.http.post('/api/v1/projects/upload/').set(s.bob.auth).attach('file', zipRes.body as Buffer, 'Exported.zip').expect(201);
    expect(up.body.map((f: { name: string }) => f.name).sort()).toEqual(['E1', 'E2']);
    const projects = await s.http.get('/api/v1/projects/').set(s.bob.auth).expect(200);
    const imported = projects.body.find((x: { name: string }) => x.name === 'Exported');
    expect(imported).toMatchObject({ description: 'to zip' });
    expect(up.body.every((f: { folder_id: string }) => f.folder_id === imported.id)).toBe(true);
    // JSON project import
    const json = Buffer.from(JSON.stringify({ folder_name: 'Exported', folder_description: 'json', flows: [{ name: 'J1' }] }));
    await s.http.post('/api/v1/projects/upload/').set(s.bob.auth).attach('file', json, 'p.json').expect(201);
    const again = await s.http.get('/api/v1/projects/').set(s.bob.auth).expect(200);
    expect(again.body.map((x: { name: string }) => x.name)).toContain('Exported (1)');
    await s.http.post('/api/v1/projects/upload/').set(s.bob.auth).expect(422);
  });
});

describe('flow events', () => {
  it('records FlowEventCreate and answers FlowEventsResponse with settled', async () => {
    const flow = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Evented' }).expect(201);
    const url = `/api/v1/flows/${flow.body.id}/events`;
    const empty = await s.http.get(url).set(s.alice.auth).expect(200);
    expect(empty.body).toEqual({ events: [], settled: true });
    const before = Date.now() / 1000 - 1;
    const ev = await s.http.post(url).set(s.alice.auth).send({ type: 'component_added', summary: 'added Shouter' }).expect(201);
    expect(Object.keys(ev.body).sort()).toEqual(['summary', 'timestamp', 'type']);
    expect(typeof ev.body.timestamp).toBe('number');
    const noSummary = await s.http.post(url).set(s.alice.auth).send({ type: 'connection_added' }).expect(201);
    expect(noSummary.body.summary).toBe('');
    const busy = await s.http.get(`${url}?since=${before}`).set(s.alice.auth).expect(200);
    expect(busy.body.events).toHaveLength(2);
    expect(busy.body.settled).toBe(false);
    await s.http.post(url).set(s.alice.auth).send({ type: 'flow_settled' }).expect(201);
    const settled = await s.http.get(`${url}?since=${before}`).set(s.alice.auth).expect(200);
    expect(settled.body.settled).toBe(true);
    const later = await s.http.get(`${url}?since=${Date.now() / 1000 + 5}`).set(s.alice.auth).expect(200);
    expect(later.body.events).toEqual([]);
    await s.http.post(url).set(s.alice.auth).send({ type: 'component_added', summary: 'x'.repeat(501) }).expect(422);
    await s.http.post(url).set(s.alice.auth).send({ type: 'exploded' }).expect(422);
    await s.http.post(url).set(s.bob.auth).send({ type: 'flow_updated' }).expect(404);
    await s.http.get(url).expect(401);
  });
});

describe('config and health', () => {
  it('serves ConfigResponse with every required field', async () => {
    const res = await s.http.get('/api/v1/studio/config').expect(200);
    const required = ['feature_flags', 'max_file_size_upload', 'event_delivery', 'voice_mode_available', 'frontend_timeout', 'mcp_base_url', 'serialization_max_items_length', 'serialization_max_text_length', 'auto_saving', 'auto_saving_interval', 'health_check_max_retries', 'webhook_polling_interval', 'public_flow_cleanup_interval', 'public_flow_expiration', 'webhook_auth_enable', 'default_folder_name', 'hide_getting_started_progress', 'allow_custom_components'];
    for (const key of required) expect(res.body).toHaveProperty(key);
    expect(Object.keys(res.body).sort()).toEqual([...required, 'type'].sort());
    expect(res.body.type).toBe('full');
    expect(Object.keys(res.body.feature_flags).sort()).toEqual(['ext_deployments', 'mvp_components']);
    expect(['polling', 'streaming', 'direct']).toContain(res.body.event_delivery);
    expect(Number.isInteger(res.body.max_file_size_upload)).toBe(true);
    expect(res.body.default_folder_name).toBe('My Flows');
    expect(res.body.mcp_base_url).toBe(`${s.url}/api/v1/mcp`);
  });

  it('answers /health and /health_check with real db and engine checks', async () => {
    expect((await s.http.get('/health').expect(200)).body).toEqual({ status: 'ok' });
    const check = await s.http.get('/health_check').expect(200);
    expect(check.body).toEqual({ status: 'ok', db: 'ok', chat: 'ok' });
  });
});
