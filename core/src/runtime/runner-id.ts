import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * This runtime's id as a job runner, stable across restarts on one data directory
 * (`<dataDir>/runner-id`, made on first need): stored jobs carry it, so a runtime that starts
 * ends only its own unfinished jobs, not those of another instance sharing the database.
 */
export function runnerIdOf(dataDir: string): string {
  const file = path.join(dataDir, 'runner-id');
  try {
    const id = readFileSync(file, 'utf8').trim();
    if (id) return id;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const id = randomUUID();
  writeFileSync(file, `${id}\n`, { mode: 0o600 });
  return id;
}
