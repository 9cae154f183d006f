import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluationErrorCatalogue } from './index.js';

describe('error catalogue', () => {
  it('documents every code in docs/model.md', () => {
    const docs = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs/model.md'), 'utf8');
    expect(evaluationErrorCatalogue.length).toBeGreaterThan(0);
    for (const { code } of evaluationErrorCatalogue) expect(docs, code).toContain(code);
  });
});
