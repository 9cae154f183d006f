import { randomUUID } from 'node:crypto';
import { closeSync, openSync, readFileSync, statSync, unlinkSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
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

/** Who holds a data directory's runner id (`<dataDir>/runtime.lock`). */
export interface RunnerLockHolder {
  pid: number;
  host: string;
  startedAt: string;
}

/** The runner id a starting runtime gets (`claimRunnerId`). */
export interface RunnerClaim {
  runnerId: string;
  /**
   * Whether this runtime holds the data directory's stable id: its stored unfinished jobs were
   * then left by a process that died. False when another live runtime holds it (a CLI command
   * run beside `wiflow serve` on one data directory): this one runs under an id of its own and
   * leaves the holder's jobs to it.
   */
  holder: boolean;
  /** The live runtime holding the stable id, when this one is not the holder. */
  heldBy: RunnerLockHolder | null;
  /** Give the stable id back (the runtime stops); a no-op for a runtime that does not hold it. */
  release(): void;
}

/** Data directories a runtime of this process holds (two runtimes in one process share a pid). */
const heldHere = new Set<string>();

/**
 * Claim the data directory's stable runner id for this runtime, or an id of its own when another
 * live runtime holds it. The holder is named in `<dataDir>/runtime.lock` (pid, host), whose time
 * it refreshes every quarter of `leaseMs`. A lock is stale, and taken over, when it names this
 * process without a runtime of it holding the directory (a container restarted as the same pid),
 * a process of this host that no longer runs, or when it was not refreshed for a whole `leaseMs`
 * (a holder on another host sharing the folder, or a reused pid).
 */
export function claimRunnerId(dataDir: string, options: { leaseMs: number; now?: () => number }): RunnerClaim {
  const now = options.now ?? Date.now;
  const stable = runnerIdOf(dataDir);
  const dir = path.resolve(dataDir);
  const file = path.join(dir, 'runtime.lock');
  const guest = (heldBy: RunnerLockHolder): RunnerClaim => ({ runnerId: `${stable}.${process.pid}.${randomUUID().slice(0, 8)}`, holder: false, heldBy, release: () => undefined });
  const self: RunnerLockHolder = { pid: process.pid, host: hostname(), startedAt: new Date(now()).toISOString() };
  if (heldHere.has(dir)) return guest(self);
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(file, 'wx', 0o600);
    } catch (error) {
      // A folder this runtime cannot write the lock in: run as a guest (its own id), so no live
      // runtime's jobs are ended; a dead one's are ended by the lease.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return guest({ pid: -1, host: 'unknown', startedAt: '' });
      const holder = liveHolder(file, options.leaseMs, now());
      if (holder) return guest(holder);
      try {
        unlinkSync(file);
      } catch (gone) {
        if ((gone as NodeJS.ErrnoException).code !== 'ENOENT') throw gone;
      }
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(self)}\n`);
    } finally {
      closeSync(fd);
    }
    heldHere.add(dir);
    const refresh = setInterval(() => {
      try {
        const t = new Date(now());
        utimesSync(file, t, t);
      } catch {
        // removed by hand: the next runtime to start takes the directory
      }
    }, Math.max(10, options.leaseMs / 4));
    refresh.unref();
    let released = false;
    return {
      runnerId: stable,
      holder: true,
      heldBy: null,
      release: () => {
        if (released) return;
        released = true;
        clearInterval(refresh);
        heldHere.delete(dir);
        const current = readHolder(file);
        if (current && current.pid === self.pid && current.host === self.host && current.startedAt === self.startedAt) {
          try {
            unlinkSync(file);
          } catch {
            // already gone
          }
        }
      },
    };
  }
  // Two runtimes took the directory in turn while this one looked: the last one holds it.
  return guest(readHolder(file) ?? self);
}

function readHolder(file: string): RunnerLockHolder | null {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as Partial<RunnerLockHolder>;
    if (typeof value.pid !== 'number' || typeof value.host !== 'string') return null;
    return { pid: value.pid, host: value.host, startedAt: String(value.startedAt ?? '') };
  } catch {
    return null;
  }
}

/** The lock's holder when it is alive, else null (stale or unreadable). */
function liveHolder(file: string, leaseMs: number, now: number): RunnerLockHolder | null {
  let refreshed: number;
  try {
    refreshed = statSync(file).mtimeMs;
  } catch {
    return null;
  }
  const holder = readHolder(file);
  // Unreadable: stale, unless it was made a moment ago (another runtime is writing it).
  if (!holder) return now - refreshed < 2000 ? { pid: -1, host: 'unknown', startedAt: '' } : null;
  if (now - refreshed >= leaseMs) return null;
  if (holder.host !== hostname()) return holder;
  if (holder.pid === process.pid) return null;
  try {
    process.kill(holder.pid, 0);
    return holder;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? holder : null;
  }
}
