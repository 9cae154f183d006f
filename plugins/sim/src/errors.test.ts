import { readFileSync } from 'node:fs';
import { errorCatalogueProblems } from '@wiflow/core/testing';
import { describe, expect, it } from 'vitest';
import { simErrorCatalogue } from './index.js';

describe('error catalogue', () => {
  it('has unique WIFLOW_SIM_ codes, each in the table of docs/simulator.md with its status', () => {
    const docs = readFileSync(new URL('../../../docs/simulator.md', import.meta.url), 'utf8');
    expect(errorCatalogueProblems(simErrorCatalogue, docs, { area: 'SIM', row: ({ code, status }) => `| \`${code}\` | ${status} |` })).toEqual([]);
  });
});
