import { readFileSync } from 'node:fs';
import { errorCatalogueProblems } from '@wiflow/core/testing';
import { describe, expect, it } from 'vitest';
import { evaluationErrorCatalogue } from './index.js';

describe('error catalogue', () => {
  it('documents every code in docs/model.md, each code once', () => {
    const docs = readFileSync(new URL('../../../docs/model.md', import.meta.url), 'utf8');
    expect(errorCatalogueProblems(evaluationErrorCatalogue, docs)).toEqual([]);
  });
});
