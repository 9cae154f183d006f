import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { retailErrorCatalogue } from './index.js';

describe('error catalogue', () => {
  it('documents every code in docs/analytics.md', () => {
    const docs = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/analytics.md'), 'utf8');
    expect(retailErrorCatalogue.length).toBeGreaterThan(0);
    for (const { code } of retailErrorCatalogue) expect(docs, code).toContain(code);
  });
});
