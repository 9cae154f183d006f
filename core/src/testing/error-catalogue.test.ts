import { describe, expect, it } from 'vitest';
import { errorCatalogueProblems } from './index.js';

describe('errorCatalogueProblems', () => {
  const docs = '| `WIFLOW_LAMP_OFFLINE` | 503 |\nWIFLOW_LAMP_BAD_TOKEN is raised when...';

  it('finds nothing wrong with a documented catalogue of unique codes', () => {
    expect(errorCatalogueProblems([{ code: 'WIFLOW_LAMP_OFFLINE', status: 503 }, { code: 'WIFLOW_LAMP_BAD_TOKEN', status: 401 }], docs, { area: 'LAMP' })).toEqual([]);
  });

  it('names every problem: an empty catalogue, a code twice, a code of another area, a code or row the docs lack', () => {
    expect(errorCatalogueProblems([], docs)).toEqual(['the catalogue is empty']);
    const catalogue = [{ code: 'WIFLOW_LAMP_OFFLINE', status: 503 }, { code: 'WIFLOW_LAMP_OFFLINE', status: 503 }, { code: 'WIFLOW_HUE_DOWN', status: 502 }];
    expect(errorCatalogueProblems(catalogue, docs, { area: 'LAMP' })).toEqual([
      'WIFLOW_LAMP_OFFLINE is listed twice',
      'WIFLOW_HUE_DOWN is not a WIFLOW_LAMP_ code',
      'the docs do not show "WIFLOW_HUE_DOWN"',
    ]);
    const row = ({ code, status }: { code: string; status: number }) => `| \`${code}\` | ${status} |`;
    expect(errorCatalogueProblems([{ code: 'WIFLOW_LAMP_BAD_TOKEN', status: 401 }], docs, { row })).toEqual(['the docs do not show "| `WIFLOW_LAMP_BAD_TOKEN` | 401 |"']);
  });
});
