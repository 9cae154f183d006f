import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { binaryParser, chainFlow, testStudioForFile } from '../testing/test-plugins.js';
import { sanitizeFileName } from '../index.js';

const s = await testStudioForFile({ studio: { maxFileSizeUploadMb: 0.05 } });

describe('file names', () => {
  it('sanitises names: no path traversal, no control characters, no hidden files', () => {
    expect(sanitizeFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFileName('..\\..\\windows\\win.ini')).toBe('win.ini');
    expect(sanitizeFileName('.bashrc')).toBe('bashrc');
    expect(sanitizeFileName('a\u0000b\nc.csv')).toBe('a_b_c.csv');
    expect(sanitizeFileName('...')).toBe('file');
    expect(sanitizeFileName(`${'x'.repeat(300)}.dat`)).toHaveLength(200);
    expect(sanitizeFileName(`${'x'.repeat(300)}.dat`).endsWith('.dat')).toBe(true);
  });
});

describe('files v1 (per flow)', () => {
  it('uploads (201), lists, downloads and deletes files of a flow; 404 for others', async () => {
    const flow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'With files' }).expect(201)).body;
    const up = await s.http.post(`/api/v1/files/upload/${flow.id}`).set(s.alice.auth).attach('file', Buffer.from('hello csi'), '../../evil name.csv').expect(201);
    expect(up.body).toMatchObject({ flow_id: flow.id, file_path: `${flow.id}/evil name.csv` });
    const stored = readdirSync(path.join(s.dataDir, 'studio-files', s.alice.id), { recursive: true }).map(String);
    expect(stored.some((p) => p.endsWith('evil name.csv'))).toBe(true);
    expect(existsSync(path.join(s.dataDir, '..', 'evil name.csv'))).toBe(false);
    const list = await s.http.get(`/api/v1/files/list/${flow.id}`).set(s.alice.auth).expect(200);
    expect(list.body).toEqual({ files: ['evil name.csv'] });
    const down = await s.http.get(`/api/v1/files/download/${flow.id}/${encodeURIComponent('evil name.csv')}`).set(s.alice.auth).buffer(true).parse(binaryParser).expect(200);
    expect((down.body as Buffer).toString()).toBe('hello csi');
    await s.http.get(`/api/v1/files/download/${flow.id}/${encodeURIComponent('../evil name.csv')}`).set(s.alice.auth).expect(200);
    await s.http.get(`/api/v1/files/download/${flow.id}/missing.csv`).set(s.alice.auth).expect(404);
    await s.http.get(`/api/v1/files/list/${flow.id}`).set(s.bob.auth).expect(404);
    await s.http.post(`/api/v1/files/upload/${flow.id}`).set(s.bob.auth).attach('file', Buffer.from('x'), 'x.csv').expect(404);
    await s.http.post(`/api/v1/files/upload/${flow.id}`).attach('file', Buffer.from('x'), 'x.csv').expect(401);
    await s.http.post(`/api/v1/files/upload/${flow.id}`).set(s.alice.auth).field('nofile', '1').expect(422);
    await s.http.delete(`/api/v1/files/delete/${flow.id}/${encodeURIComponent('evil name.csv')}`).set(s.alice.auth).expect(200);
    expect((await s.http.get(`/api/v1/files/list/${flow.id}`).set(s.alice.auth).expect(200)).body).toEqual({ files: [] });
  });

  it('enforces max_file_size_upload with 413', async () => {
    const flow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Big files' }).expect(201)).body;
    const big = Buffer.alloc(60 * 1024, 1);
    const res = await s.http.post(`/api/v1/files/upload/${flow.id}`).set(s.alice.auth).attach('file', big, 'big.bin').expect(413);
    expect(res.body.code).toBe('WIFLOW_STUDIO_FILE_TOO_LARGE');
    await s.http.post('/api/v2/files').set(s.alice.auth).attach('file', big, 'big.bin').expect(413);
    await s.http.post('/api/v1/flows/upload/').set(s.alice.auth).attach('file', big, 'big.json').expect(413);
    // nothing half-written is left behind
    const incoming = path.join(s.dataDir, 'studio-files', '.incoming');
    expect(existsSync(incoming) ? readdirSync(incoming) : []).toEqual([]);
  });
});

describe('files v2 (per user)', () => {
  it('uploads with and without a trailing slash, lists, downloads, renames, deletes, batch', async () => {
    const a = await s.http.post('/api/v2/files').set(s.alice.auth).attach('file', Buffer.from('aaa'), 'capture.dat').expect(201);
    const b = await s.http.post('/api/v2/files/').set(s.alice.auth).attach('file', Buffer.from('bbbb'), 'capture.dat').expect(201);
    expect(a.body).toMatchObject({ name: 'capture.dat', size: 3, user_id: s.alice.id, provider: null });
    expect(b.body.name).toBe('capture (1).dat');
    expect(a.body.sha256).toMatch(/^[0-9a-f]{64}$/);
    const list = await s.http.get('/api/v2/files').set(s.alice.auth).expect(200);
    expect(list.body.map((f: { id: string }) => f.id).sort()).toEqual([a.body.id, b.body.id].sort());
    expect((await s.http.get('/api/v2/files').set(s.bob.auth).expect(200)).body).toEqual([]);
    const down = await s.http.get(`/api/v2/files/${b.body.id}`).set(s.alice.auth).buffer(true).parse(binaryParser).expect(200);
    expect((down.body as Buffer).toString()).toBe('bbbb');
    await s.http.get(`/api/v2/files/${b.body.id}`).set(s.bob.auth).expect(404);
    const renamed = await s.http.put(`/api/v2/files/${b.body.id}?name=second.dat`).set(s.alice.auth).expect(200);
    expect(renamed.body.name).toBe('second.dat');
    const zipRes = await s.http.post('/api/v2/files/batch/').set(s.alice.auth).send([a.body.id, b.body.id]).buffer(true).parse(binaryParser).expect(200);
    const zip = await JSZip.loadAsync(zipRes.body as Buffer);
    expect(Object.keys(zip.files).sort()).toEqual(['capture.dat', 'second.dat']);
    await s.http.delete(`/api/v2/files/${a.body.id}`).set(s.bob.auth).expect(404);
    await s.http.delete(`/api/v2/files/${a.body.id}`).set(s.alice.auth).expect(200);
    const batch = await s.http.delete('/api/v2/files/batch/').set(s.alice.auth).send([b.body.id]).expect(200);
    expect(batch.body.deleted).toBe(1);
    expect((await s.http.get('/api/v2/files').set(s.alice.auth).expect(200)).body).toEqual([]);
    await s.http.post('/api/v2/files').attach('file', Buffer.from('x'), 'x').expect(401);
  });

  it('an uploaded file feeds a flow: a file input resolves to a path a node reads', async () => {
    const data = chainFlow([{ type: 'stest.filesize', inPort: 'path', outPort: 'size' }], { name: 'capture', valueType: 'file' });
    const flow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Size of upload', data }).expect(201)).body;
    const file = await s.http.post('/api/v2/files').set(s.alice.auth).attach('file', Buffer.alloc(1234, 7), 'rec.dat').expect(201);
    const byId = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ inputs: { capture: file.body.id } }).expect(200);
    expect(byId.body.outputs[0].outputs[0].results.result).toBe(1234);
    // v1 flow file path, through the build body's files list
    await s.http.post(`/api/v1/files/upload/${flow.id}`).set(s.alice.auth).attach('file', Buffer.alloc(99, 1), 'v1.dat').expect(201);
    const start = await s.http.post(`/api/v1/build/${flow.id}/flow?event_delivery=polling`).set(s.alice.auth).send({ files: [`${flow.id}/v1.dat`] }).expect(200);
    expect((await s.runtime.jobs.get(start.body.job_id)!.done).outputs.result).toBe(99);
    // another user's file, or a raw path, is refused
    const bobs = await s.http.post('/api/v2/files').set(s.bob.auth).attach('file', Buffer.from('b'), 'b.dat').expect(201);
    await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ inputs: { capture: bobs.body.id } }).expect(422);
    await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ inputs: { capture: '/etc/passwd' } }).expect(422);
  });
  it('a file input bound to a config field (data.bind) feeds a config-driven source such as csi.file', async () => {
    const data = {
      nodes: [
        { id: 'in', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'capture', valueType: 'file', description: 'An uploaded capture' }, bind: [{ node: 'reader', field: 'path' }] } },
        { id: 'reader', position: { x: 200, y: 0 }, data: { nodeType: 'stest.filesource', config: { path: 'bound to the capture input' } } },
        { id: 'out', position: { x: 400, y: 0 }, data: { nodeType: 'io.output', config: { name: 'size', collect: 'last' } } },
      ],
      edges: [{ id: 'e', source: 'reader', sourceHandle: 'size', target: 'out', targetHandle: 'value' }],
    };
    const flow = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Bound source', data }).expect(201)).body;
    expect(flow.valid).toBe(true);
    const file = await s.http.post('/api/v2/files').set(s.alice.auth).attach('file', Buffer.alloc(321, 3), 'capture.dat').expect(201);
    const res = await s.http.post(`/api/v1/run/${flow.id}`).set(s.alice.auth).send({ inputs: { capture: file.body.id } }).expect(200);
    expect(res.body.outputs[0].outputs[0].results.size).toBe(321);
    // a binding to a field the node does not have marks the flow invalid
    const bad = structuredClone(data);
    (bad.nodes[0].data as { bind: unknown }).bind = [{ node: 'reader', field: 'nope' }];
    const draft = (await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'Bad binding', data: bad }).expect(201)).body;
    expect(draft.valid).toBe(false);
    expect(draft.problems[0]).toMatchObject({ code: 'invalid_config', field: 'nope' });
  });
});
