import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { simErrorCatalogue } from './index.js';

describe('error catalogue', () => {
  it('has unique codes, each documented in docs/simulator.md', () => {
    const docs = readFileSync(new URL('../../../docs/simulator.md', import.meta.url), 'utf8');
    const codes = simErrorCatalogue.map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    for (const { code, status } of simErrorCatalogue) {
      expect(code).toMatch(/^WIFLOW_SIM_[A-Z_]+$/);
      expect(docs).toContain(`| \`${code}\` | ${status} |`);
    }
  });
});
