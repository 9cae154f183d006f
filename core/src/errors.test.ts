import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { coreErrorCatalogue } from './index.js';
import { errorCatalogueProblems } from './testing/index.js';

describe("core's error catalogue", () => {
  it('documents every code once, with its status, in docs/architecture.md', () => {
    const docs = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const row = ({ code, status }: { code: string; status: number }) => `| \`${code}\` | ${status} |`;
    expect(errorCatalogueProblems(coreErrorCatalogue, docs, { row })).toEqual([]);
  });
});
