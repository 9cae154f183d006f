import { describe, expect, it } from 'vitest';
import { testStudioForFile } from '../testing/test-plugins.js';

const s = await testStudioForFile();

describe('GET /api/v1/openapi.json', () => {
  it('documents every declared flow service route, to anyone, with the service\'s {detail, code} errors', async () => {
    const response = await fetch(`${s.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, any>>; components: { schemas: { Error: { properties: Record<string, unknown> } } } };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.components.schemas.Error.properties).sort()).toEqual(['code', 'detail']);
    const paths = document.paths;
    expect(paths['/api/v1/studio/jobs'].get['x-wiflow-role']).toBe('viewer');
    expect(paths['/api/v1/flows/{id}'].patch['x-wiflow-role']).toBe('operator');
    expect(paths['/api/v1/flows/'].post.requestBody.content['application/json'].schema.properties).toHaveProperty('name');
    expect(paths['/api/v1/studio/deployments'].get.parameters).toEqual([expect.objectContaining({ name: 'flow_id', in: 'query', required: false })]);
    expect(paths['/api/v1/projects/{id}'].delete.responses).toHaveProperty('204');
    expect(paths['/api/v1/folders/'].get).toBeDefined();
    expect(paths['/health'].get.security).toEqual([]);
    expect(paths['/api/v1/openapi.json'].get).toBeDefined();
    expect(paths['/api/v1/studio/openapi.json'].get).toBeDefined();
    // Bare handlers (streams, uploads, downloads) are left out.
    expect(paths['/api/v1/studio/deployments/{id}/counters/stream']).toBeUndefined();
  });

  it('answers the same document at /api/v1/studio/openapi.json, where the pose API cannot shadow it', async () => {
    const [shared, own] = await Promise.all([fetch(`${s.url}/api/v1/openapi.json`), fetch(`${s.url}/api/v1/studio/openapi.json`)]);
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual(await shared.json());
  });
});
