// Regenerating the card from the shipped weights' recorded reports gives the shipped card:
// the generated figures and the hand-written findings (FINDINGS.md) both survive `wiflow train`.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHIPPED_MODEL_DIR } from '../model/pose-model.js';
import type { ModelSpec } from '../model/contract.js';
import { FINDINGS_FILE, writeModelCard } from './model-card.js';
import type { EvaluationReport } from './metrics.js';

type Recorded = EvaluationReport & { modelHash: string; samples: number; rooms: number };
const read = <T>(file: string): T => JSON.parse(readFileSync(path.join(SHIPPED_MODEL_DIR, file), 'utf8')) as T;
const shipped = existsSync(path.join(SHIPPED_MODEL_DIR, 'eval-test.json'));

describe.skipIf(!shipped)('model card', () => {
  it('regenerated from the recorded reports equals the shipped card, findings included', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-card-'));
    copyFileSync(path.join(SHIPPED_MODEL_DIR, FINDINGS_FILE), path.join(dir, FINDINGS_FILE));
    const full = read<Recorded>('eval-test.json');
    const small = read<Recorded>('eval-test-small.json');
    const spec = read<ModelSpec>('wiflow-model.json');
    const bytes = statSync(path.join(SHIPPED_MODEL_DIR, 'weights.bin')).size;
    const file = writeModelCard(dir, spec, full.modelHash, full, small, { samples: full.samples, rooms: full.rooms }, { samples: small.samples, rooms: small.rooms }, bytes);
    const card = readFileSync(file, 'utf8');
    expect(card).toBe(readFileSync(path.join(SHIPPED_MODEL_DIR, 'MODEL_CARD.md'), 'utf8'));
    expect(readFileSync(path.join(SHIPPED_MODEL_DIR, '..', '..', 'MODEL_CARD.md'), 'utf8')).toBe(card);
    expect(card).toContain(readFileSync(path.join(dir, FINDINGS_FILE), 'utf8').trim());
    expect(card.indexOf('## Findings')).toBeLessThan(card.indexOf('## Metrics'));
  });
});
