import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { testStudioForFile, upperFlow } from '../testing/test-plugins.js';

const s = await testStudioForFile();

/** JSON text of a value nested `depth` arrays deep (built as text: the value itself would be as deep). */
function deepJson(depth: number): string {
  return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
}

/** Send raw bytes as a request and read status and body (no client-side encoding in the way). */
function rawRequest(url: string, method: string, path: string, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function multipart(boundary: string, disposition: Buffer, content: string): Buffer {
  return Buffer.concat([
    Buffer.from(`--${boundary}\r\n`),
    disposition,
    Buffer.from(`\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${boundary}--\r\n`),
  ]);
}

describe('bad input gets 4xx in the flow service envelope, never 500', () => {
  it('a flow whose data is nested 5,000 deep is refused with 422 naming the depth limit', async () => {
    const body = `{"name":"deep","data":{"nodes":[],"edges":[],"extra":${deepJson(5000)}}}`;
    for (const [method, path] of [['POST', '/api/v1/flows/'], ['POST', '/api/v1/studio/validate']] as const) {
      const res = await rawRequest(s.url, method, path, { ...s.alice.auth, 'content-type': 'application/json' }, Buffer.from(path.endsWith('validate') ? `{"data":${deepJson(5000)}}` : body));
      expect(res.status, `${method} ${path}`).toBe(422);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'WIFLOW_STUDIO_VALIDATION' });
      expect(res.body).toMatch(/nested deeper than 64/);
    }
    const created = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'fine', data: upperFlow() }).expect(201);
    const patch = await rawRequest(s.url, 'PATCH', `/api/v1/flows/${created.body.id}`, { ...s.alice.auth, 'content-type': 'application/json' }, Buffer.from(`{"data":{"nodes":[],"edges":[],"x":${deepJson(5000)}}}`));
    expect(patch.status).toBe(422);
  });

  it('valid JSON that is not an object (null, a number, a string) is 422 "must be a JSON object", not a decode error', async () => {
    for (const body of ['null', '7', '"flow"']) {
      const res = await rawRequest(s.url, 'POST', '/api/v1/flows/', { ...s.alice.auth, 'content-type': 'application/json' }, Buffer.from(body));
      expect(res.status, body).toBe(422);
      expect(JSON.parse(res.body), body).toEqual({ detail: [{ loc: ['body'], msg: expect.stringContaining('the body must be a JSON object'), type: 'dict_type' }], code: 'WIFLOW_STUDIO_VALIDATION' });
    }
  });

  it('a JSON body over the size limit is 413 with the body-too-large code, not the file upload code', async () => {
    // The files API's batch route takes 1 MB of JSON (the flow routes 50 MB: the same handler answers both).
    const answer = await rawRequest(s.url, 'POST', '/api/v2/files/batch/', { ...s.alice.auth, 'content-type': 'application/json' }, Buffer.from(`{"ids":["${'x'.repeat(2 * 1024 * 1024)}"]}`));
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ detail: 'request body exceeds 1048576 bytes', code: 'WIFLOW_API_BODY_TOO_LARGE' });
  });

  it('a path parameter that is not valid percent-encoding is a 400 with a code', async () => {
    for (const path of ['/api/v1/flows/%ZZ', '/api/v2/files/%C0%AE%C0%AE', '/api/v1/mcp/project/%E0%A4%A/sse']) {
      const res = await s.http.get(path).set(s.alice.auth);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toEqual({ detail: expect.stringContaining('Failed to decode param'), code: 'WIFLOW_HTTP_INVALID_PATH' });
    }
  });

  it('a NUL in an upload file name is 400, a malformed multipart header is 400', async () => {
    const flow = await s.http.post('/api/v1/flows/').set(s.alice.auth).send({ name: 'files', data: upperFlow() }).expect(201);
    const boundary = 'wiflowBoundary';
    const nul = multipart(boundary, Buffer.from('Content-Disposition: form-data; name="file"; filename="a\u0000b.txt"'), 'hello');
    // RFC 5987 encoding gets the NUL past the header parser into the name itself.
    const encoded = multipart(boundary, Buffer.from("Content-Disposition: form-data; name=\"file\"; filename*=utf-8''a%00b.txt"), 'hello');
    for (const path of ['/api/v2/files/', `/api/v1/files/upload/${flow.body.id}`]) {
      const raw = await rawRequest(s.url, 'POST', path, { ...s.alice.auth, 'content-type': `multipart/form-data; boundary=${boundary}` }, nul);
      expect(raw.status, path).toBe(400);
      expect(JSON.parse(raw.body)).toMatchObject({ code: 'WIFLOW_STUDIO_INVALID_UPLOAD' });
      const res = await rawRequest(s.url, 'POST', path, { ...s.alice.auth, 'content-type': `multipart/form-data; boundary=${boundary}` }, encoded);
      expect(res.status, path).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({ code: 'WIFLOW_STUDIO_INVALID_UPLOAD' });
      expect(res.body).toMatch(/control character/);
    }
    expect((await s.http.get('/api/v2/files/').set(s.alice.auth).expect(200)).body).toEqual([]);
    const malformed = Buffer.from(`--${boundary}\r\nContent-Disposition form-data name=file\r\n\r\nhello\r\n--${boundary}--\r\n`);
    const bad = await rawRequest(s.url, 'POST', '/api/v2/files/', { ...s.alice.auth, 'content-type': `multipart/form-data; boundary=${boundary}` }, malformed);
    expect(bad.status).toBe(400);
    expect(JSON.parse(bad.body).code).toMatch(/^WIFLOW_STUDIO_/);
    const noBoundary = await rawRequest(s.url, 'POST', '/api/v2/files/', { ...s.alice.auth, 'content-type': 'multipart/form-data' }, Buffer.from('hello'));
    expect(noBoundary.status).toBe(400);
    expect(JSON.parse(noBoundary.body).code).toMatch(/^WIFLOW_STUDIO_/);
  });

  it('a UTF-8 upload file name is kept as written (not read as latin1)', async () => {
    const boundary = 'wiflowBoundary';
    const name = 'Küche – 客厅.csv';
    const body = multipart(boundary, Buffer.from(`Content-Disposition: form-data; name="file"; filename="${name}"`, 'utf8'), 'a,b\n1,2\n');
    const res = await rawRequest(s.url, 'POST', '/api/v2/files/', { ...s.alice.auth, 'content-type': `multipart/form-data; boundary=${boundary}` }, body);
    expect(res.status).toBe(201);
    expect(JSON.parse(res.body).name).toBe(name);
  });
});
