import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiErrors, apiErrorCatalogue, errorEnvelope, SPEC_ERROR_CODES } from './index.js';

const docs = readFileSync(new URL('../../../docs/pose-api.md', import.meta.url), 'utf8');

describe('error catalogue', () => {
  it('documents every code with its envelope code and status, and never reuses a code', () => {
    const codes = apiErrorCatalogue.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const e of apiErrorCatalogue) expect(docs, e.code).toContain(`| ${e.code} | ${e.specCode} | ${e.status} |`);
    for (const code of SPEC_ERROR_CODES) expect(docs).toContain(code);
  });

  it('shapes field errors per convention', () => {
    const error = ApiErrors.validation([{ field: 'limit', message: 'Too big', received: '5000' }]);
    const a = errorEnvelope(error, 'A', 'r1', new Date(0)) as any;
    expect(a).toEqual({ error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: { field_errors: [{ field: 'limit', message: 'Too big', received_value: '5000' }] }, timestamp: '1970-01-01T00:00:00.000Z', request_id: 'r1' } });
    const b = errorEnvelope(error, 'B', 'r2', new Date(0)) as any;
    expect(b).toEqual({ success: false, error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: { field_errors: [{ field: 'limit', reason: 'Too big' }] } }, timestamp: '1970-01-01T00:00:00.000Z', request_id: 'r2' });
  });
});
