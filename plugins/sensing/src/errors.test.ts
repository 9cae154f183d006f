import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { senseErrorCatalogue } from './index.js';

describe('error catalogue', () => {
  it('has unique codes, each documented in docs/sensing.md', () => {
    const docs = readFileSync(new URL('../../../docs/sensing.md', import.meta.url), 'utf8');
    const codes = senseErrorCatalogue.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const { code, status } of senseErrorCatalogue) {
      expect(code).toMatch(/^WIFLOW_SENSE_[A-Z_]+$/);
      expect(docs).toContain(`| \`${code}\` | ${status} |`);
    }
  });
});
