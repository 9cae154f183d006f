import { readFileSync } from 'node:fs';
import { errorCatalogueProblems } from '@wiflow/core/testing';
import { describe, expect, it } from 'vitest';
import { senseErrorCatalogue } from './index.js';

describe('error catalogue', () => {
  it('has unique WIFLOW_SENSE_ codes, each in the table of docs/sensing.md with its status', () => {
    const docs = readFileSync(new URL('../../../docs/sensing.md', import.meta.url), 'utf8');
    expect(errorCatalogueProblems(senseErrorCatalogue, docs, { area: 'SENSE', row: ({ code, status }) => `| \`${code}\` | ${status} |` })).toEqual([]);
  });
});
