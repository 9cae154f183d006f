import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { describeStorageConformance } from '@wiflow/storage-conformance';
import { SqliteStorage } from './index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-sqlite-conformance-'));
let next = 0;

afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Real files in a temp directory, one database per storage the suite asks for.
describeStorageConformance('sqlite', async ({ privacy }) => new SqliteStorage({ file: path.join(dir, `db-${next++}.db`), privacy: () => privacy }));
