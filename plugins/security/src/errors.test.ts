import { readFileSync } from 'node:fs';
import { errorCatalogueProblems } from '@wiflow/core/testing';
import { describe, expect, it } from 'vitest';
import { securityErrorCatalogue } from './index.js';

describe('error catalogue', () => {
  it('documents every code in docs/analytics.md, each code once', () => {
    const docs = readFileSync(new URL('../../../docs/analytics.md', import.meta.url), 'utf8');
    expect(errorCatalogueProblems(securityErrorCatalogue, docs)).toEqual([]);
  });
});
