import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStorage } from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const child = path.resolve(here, '../dist/tools/ingest-child.js');
const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-sqlite-durability-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Run the ingesting child until it has acknowledged `minAcks` flushes, then SIGKILL it; returns the highest acknowledged frame id. */
function ingestAndKill(file: string, firstFrameId: number, start: number, minAcks: number, extraMs: number): Promise<{ acked: number; acks: number }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, file, String(firstFrameId), String(start)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acked = -1;
    let acks = 0;
    let buffer = '';
    let stderr = '';
    let killTimer: NodeJS.Timeout | null = null;
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    proc.stdout.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) {
        const match = /^ACK (\d+)$/.exec(line);
        if (!match) continue;
        acked = Number(match[1]);
        acks++;
        // Kill at an arbitrary moment after enough acknowledgements, while ingest goes on.
        if (acks === minAcks && !killTimer) killTimer = setTimeout(() => proc.kill('SIGKILL'), extraMs);
      }
    });
    proc.on('error', reject);
    proc.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`ingest child exited by itself (code ${code}): ${stderr}`));
      // Lines the child printed before it died count only if the parent read them; anything unread is not "acknowledged to us".
      else resolve({ acked, acks });
    });
  });
}

describe('durability: SIGKILL during sustained ingest', () => {
  it('reopens cleanly and keeps every acknowledged frame, over three crash cycles', async () => {
    expect(existsSync(child), `build the package first (npm run build): ${child} is missing`).toBe(true);
    const file = path.join(dir, 'crash.db');
    const start = Date.now() - 3_600_000;
    let firstFrameId = 0;
    let totalAcked = 0;
    for (const [cycle, extraMs] of [[0, 7], [1, 33], [2, 61]] as const) {
      const { acked, acks } = await ingestAndKill(file, firstFrameId, start, 6 + cycle * 3, extraMs);
      expect(acks).toBeGreaterThan(0);
      const db = new BetterSqlite3(file);
      try {
        // Opening replays or discards the WAL; the file must check clean.
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const ids = (db.prepare('SELECT frame_id FROM pose_frames WHERE frame_id >= ? ORDER BY frame_id').pluck().all(firstFrameId) as number[]);
        // Everything acknowledged is there, contiguous from the cycle's first id.
        const wanted = acked - firstFrameId + 1;
        expect(ids.length).toBeGreaterThanOrEqual(wanted);
        expect(ids.slice(0, wanted)).toEqual(Array.from({ length: wanted }, (_, i) => firstFrameId + i));
        // And no frame is half written: every stored frame has both its persons.
        const broken = db.prepare('SELECT COUNT(*) FROM pose_frames f WHERE f.frame_id >= ? AND (SELECT COUNT(*) FROM pose_persons p WHERE p.seq >= f.person_seq AND p.seq < f.person_seq + f.person_count) != 2').pluck().get(firstFrameId);
        expect(broken).toBe(0);
        console.log(`cycle ${cycle}: ${acks} acks, acked up to ${acked}, ${ids.length - wanted} unacknowledged frames also survived`);
        firstFrameId = (ids[ids.length - 1] ?? acked) + 1;
        totalAcked += wanted;
      } finally {
        db.close();
      }
      expect(cycle).toBeGreaterThanOrEqual(0);
    }
    // The storage itself opens the crashed file (migrations already applied) and reads it.
    const storage = new SqliteStorage({ file, retentionIntervalMs: 0 });
    await storage.open();
    const range = await storage.poses.availableRange('durability');
    expect(range!.frameCount).toBeGreaterThanOrEqual(totalAcked);
    const records = await storage.poses.findRecords({ environmentId: 'durability' }, { page: 1, perPage: 10 });
    expect(records.total).toBe(range!.frameCount * 2);
    await storage.close();
  }, 60_000);
});
