import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import JSZip from 'jszip';
import { startChildStudio, type ChildStudio } from '../testing/child-studio.js';
import { zipBomb } from '../testing/zip-bomb.js';

/** POST a file as multipart field `file` with fetch (real HTTP). */
async function upload(s: ChildStudio, path: string, role: 'viewer' | 'operator' | 'admin', content: Buffer, name: string): Promise<Response> {
  const form = new FormData();
  form.append('file', new Blob([content]), name);
  return fetch(`${s.url}${path}`, { method: 'POST', headers: s.auth(role), body: form });
}

describe('archive imports are bounded (zip bombs)', () => {
  let s: ChildStudio;
  beforeAll(async () => {
    s = await startChildStudio({ studio: { imports: { maxEntries: 20, maxEntryMb: 20, maxTotalMb: 30 } } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('a 5 MB zip of 10 entries inflating to 500 MB each gets 413 on both import paths; the server stays up under 300 MB', async () => {
    const bomb = await zipBomb(10, 500 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(6 * 1024 * 1024);
    for (const path of ['/api/v1/flows/upload/', '/api/v1/projects/upload/']) {
      const res = await upload(s, path, 'operator', bomb, 'bomb.zip');
      expect(res.status).toBe(413);
      const body = (await res.json()) as { detail: string; code: string };
      expect(body.code).toBe('WIFLOW_STUDIO_ARCHIVE_TOO_LARGE');
      expect(body.detail).toMatch(/flow-0\.json inflates to more than 20 MB/);
    }
    expect(s.alive()).toBe(true);
    expect((await fetch(`${s.url}/health`)).status).toBe(200);
    expect(s.peakRssMb()).toBeLessThan(300);
  });

  it('limits the entry count and the total inflated size, and still imports a normal zip', async () => {
    const many = await zipBomb(21, 10);
    const tooMany = await upload(s, '/api/v1/flows/upload/', 'operator', many, 'many.zip');
    expect(tooMany.status).toBe(413);
    expect(((await tooMany.json()) as { detail: string }).detail).toMatch(/21 entries; imports accept at most 20/);

    const big = await zipBomb(2, 16 * 1024 * 1024);
    const tooBig = await upload(s, '/api/v1/flows/upload/', 'operator', big, 'big.zip');
    expect(tooBig.status).toBe(413);
    expect(((await tooBig.json()) as { detail: string }).detail).toMatch(/the archive inflates to more than 30 MB/);

    const zip = new JSZip();
    zip.file('a.json', JSON.stringify({ name: 'From zip A', data: { nodes: [], edges: [] } }));
    zip.file('dir/b.json', JSON.stringify([{ name: 'From zip B' }]));
    const ok = await upload(s, '/api/v1/flows/upload/', 'operator', await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }), 'flows.zip');
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { name: string }[]).map((f) => f.name).sort()).toEqual(['From zip A', 'From zip B']);
  });
});
