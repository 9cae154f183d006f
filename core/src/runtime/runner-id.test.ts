// Who may use a data directory's stable runner id: one live runtime at a time. Real files, real
// child processes for "another live runtime" and "a process that died".
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimRunnerId, runnerIdOf } from './runner-id.js';

const lease = { leaseMs: 60_000 };
const dataDir = () => mkdtempSync(path.join(tmpdir(), 'wiflow-runner-'));
const lockOf = (dir: string) => path.join(dir, 'runtime.lock');
const writeLock = (dir: string, pid: number, host = hostname()) => writeFileSync(lockOf(dir), JSON.stringify({ pid, host, startedAt: new Date().toISOString() }));

async function otherProcess(): Promise<{ pid: number; stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('spawn', resolve));
  return {
    pid: child.pid!,
    stop: async () => {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
  };
}

describe('claimRunnerId', () => {
  it('gives the first runtime the stable id and names it in the lock; a second runtime meanwhile gets an id of its own; after release the next holds it again', () => {
    const dir = dataDir();
    const first = claimRunnerId(dir, lease);
    expect(first).toMatchObject({ runnerId: runnerIdOf(dir), holder: true, heldBy: null });
    expect(JSON.parse(readFileSync(lockOf(dir), 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    const second = claimRunnerId(dir, lease);
    expect(second.holder).toBe(false);
    expect(second.runnerId).not.toBe(first.runnerId);
    expect(second.runnerId.startsWith(`${first.runnerId}.${process.pid}.`)).toBe(true);
    second.release();
    expect(claimRunnerId(dir, lease).holder).toBe(false);
    first.release();
    expect(() => statSync(lockOf(dir))).toThrow(/ENOENT/);
    const third = claimRunnerId(dir, lease);
    expect(third).toMatchObject({ runnerId: first.runnerId, holder: true });
    third.release();
  });

  it('leaves the id to another live process of this host, and takes it once that process is gone', async () => {
    const dir = dataDir();
    const other = await otherProcess();
    try {
      writeLock(dir, other.pid);
      expect(claimRunnerId(dir, lease)).toMatchObject({ holder: false, heldBy: { pid: other.pid, host: hostname() } });
    } finally {
      await other.stop();
    }
    const after = claimRunnerId(dir, lease);
    expect(after).toMatchObject({ runnerId: runnerIdOf(dir), holder: true });
    expect(JSON.parse(readFileSync(lockOf(dir), 'utf8')).pid).toBe(process.pid);
    after.release();
  });

  it('takes a lock naming this very process that no runtime of it holds (a container restarted as the same pid)', () => {
    const dir = dataDir();
    writeLock(dir, process.pid);
    const claim = claimRunnerId(dir, lease);
    expect(claim.holder).toBe(true);
    claim.release();
  });

  it('leaves the id to a runtime of another host while its lock is refreshed, and takes it once a whole lease passes without', () => {
    const dir = dataDir();
    writeLock(dir, 4242, 'another-host');
    expect(claimRunnerId(dir, lease)).toMatchObject({ holder: false, heldBy: { pid: 4242, host: 'another-host' } });
    const old = new Date(Date.now() - 61_000);
    utimesSync(lockOf(dir), old, old);
    const claim = claimRunnerId(dir, lease);
    expect(claim.holder).toBe(true);
    claim.release();
  });

  it('takes an unreadable lock left long ago, and leaves one made a moment ago (being written)', () => {
    const dir = dataDir();
    writeFileSync(lockOf(dir), '{"pid": 12');
    expect(claimRunnerId(dir, lease).holder).toBe(false);
    const old = new Date(Date.now() - 5000);
    utimesSync(lockOf(dir), old, old);
    const claim = claimRunnerId(dir, lease);
    expect(claim.holder).toBe(true);
    claim.release();
  });

  it('refreshes its lock every quarter lease, so other hosts see it alive', async () => {
    const dir = dataDir();
    const claim = claimRunnerId(dir, { leaseMs: 200 });
    const old = new Date(Date.now() - 10_000);
    utimesSync(lockOf(dir), old, old);
    await expect.poll(() => Date.now() - statSync(lockOf(dir)).mtimeMs, { timeout: 2000, interval: 20 }).toBeLessThan(1000);
    claim.release();
  });
});
