import { existsSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Command } from 'commander';
import type { CliContext } from '@wiflow/core';
import { resolveDatabaseFile } from './storage-config.js';

/** Default backup name: wiflow-backup-<UTC timestamp>.db beside the database. */
function defaultTarget(file: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  return path.join(path.dirname(file), `wiflow-backup-${stamp}.db`);
}

/**
 * Copy a live SQLite database with SQLite's online backup API. It opens its own read-only
 * connection, so it works while `wiflow serve` keeps writing in another process; pages
 * written meanwhile are picked up by the backup's restart logic.
 */
export async function backupDatabase(source: string, target: string, onProgress?: (done: number, total: number) => void): Promise<{ file: string; totalPages: number; bytes: number }> {
  if (!existsSync(source)) throw new Error(`no database at ${source}`);
  const file = path.resolve(target);
  if (file === path.resolve(source)) throw new Error('the backup target is the database itself');
  const db = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
  try {
    let totalPages = 0;
    await db.backup(file, {
      progress: ({ totalPages: total, remainingPages }) => {
        totalPages = total;
        onProgress?.(total - remainingPages, total);
        return 256;
      },
    });
    const check = new BetterSqlite3(file, { readonly: true });
    try {
      const result = check.pragma('integrity_check', { simple: true });
      if (result !== 'ok') throw new Error(`the backup failed its integrity check: ${String(result)}`);
      const pageSize = check.pragma('page_size', { simple: true }) as number;
      const pageCount = check.pragma('page_count', { simple: true }) as number;
      // SQLite reports progress before each step; say so once the copy is whole.
      onProgress?.(pageCount, pageCount);
      return { file, totalPages: totalPages || pageCount, bytes: pageSize * pageCount };
    } finally {
      check.close();
    }
  } finally {
    db.close();
  }
}

/** Register `wiflow backup [--out file]`. */
export function registerBackupCommand(program: Command, cli: CliContext): void {
  program
    .command('backup')
    .description('copy the SQLite database online (safe while wiflow serve runs)')
    .option('-o, --out <file>', 'backup file (default: wiflow-backup-<time>.db beside the database)')
    .option('--db <file>', 'database to back up (default: from the runtime config)')
    .action(async (options: { out?: string; db?: string }) => {
      let source = options.db;
      if (!source) {
        const runtime = await cli.runtime();
        source = resolveDatabaseFile(runtime.dataDir, runtime.config.get('storage'));
      }
      const target = options.out ?? defaultTarget(source);
      let lastPercent = -1;
      const result = await backupDatabase(source, target, (done, total) => {
        const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
        if (percent !== lastPercent) {
          lastPercent = percent;
          process.stderr.write(`\rbacking up ${path.basename(source!)}: ${percent}% (${done}/${total} pages)`);
        }
      });
      process.stderr.write('\n');
      cli.print(`backup written to ${result.file} (${result.totalPages} pages, ${result.bytes} bytes, integrity ok)`);
    });
}
