import { readFileSync, statfsSync } from 'node:fs';
import type { Server, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import os from 'node:os';

/** Figures of this process and its machine; null where the platform gives no source. */
export interface ResourceSnapshot {
  /** Process CPU time over the last interval / (interval × cores), 0..1. */
  cpuUsage: number;
  /** Resident set size / total memory, 0..1. */
  memoryUsage: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** Used fraction of the file system holding the data directory, or null. */
  diskUsage: number | null;
  /** Disk bytes read/written per second by this process (Linux /proc/self/io), or null. */
  diskReadBytesPerSec: number | null;
  diskWriteBytesPerSec: number | null;
  /** Bytes received/sent by this HTTP server since it started listening. */
  networkBytesIn: number;
  networkBytesOut: number;
  loadAverage1m: number;
  cpuCount: number;
}

function readProcIo(): { read: number; write: number } | null {
  try {
    const text = readFileSync('/proc/self/io', 'utf8');
    const read = /read_bytes:\s*(\d+)/.exec(text);
    const write = /write_bytes:\s*(\d+)/.exec(text);
    return read && write ? { read: Number(read[1]), write: Number(write[1]) } : null;
  } catch {
    return null;
  }
}

/** Samples process resources on a timer (unref'd) so requests read figures without waiting. */
export class ResourceMonitor {
  #timer: NodeJS.Timeout | undefined;
  #lastCpu = process.cpuUsage();
  #lastAt = process.hrtime.bigint();
  #lastIo = readProcIo();
  #snapshot: ResourceSnapshot;
  #bytesInClosed = 0;
  #bytesOutClosed = 0;
  readonly #open = new Set<Socket>();
  readonly #tickListeners = new Set<() => void>();

  constructor(private readonly dataDir: string, private readonly intervalMs = 2000) {
    this.#snapshot = this.#measure();
  }

  /** Begin sampling. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => {
      this.#snapshot = this.#measure();
      for (const listener of this.#tickListeners) listener();
    }, this.intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Run `listener` after every sample. */
  onTick(listener: () => void): () => void {
    this.#tickListeners.add(listener);
    return () => this.#tickListeners.delete(listener);
  }

  /** Count the bytes of every connection of `server`. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.#open.add(socket);
      socket.once('close', () => {
        this.#open.delete(socket);
        this.#bytesInClosed += socket.bytesRead;
        this.#bytesOutClosed += socket.bytesWritten;
      });
    });
    server.on('upgrade', (_request: IncomingMessage, socket: Socket) => this.#open.add(socket));
  }

  /** The latest sample (CPU over the last interval). */
  snapshot(): ResourceSnapshot {
    let bytesIn = this.#bytesInClosed;
    let bytesOut = this.#bytesOutClosed;
    for (const socket of this.#open) {
      bytesIn += socket.bytesRead;
      bytesOut += socket.bytesWritten;
    }
    return { ...this.#snapshot, networkBytesIn: bytesIn, networkBytesOut: bytesOut };
  }

  #measure(): ResourceSnapshot {
    const now = process.hrtime.bigint();
    const cpu = process.cpuUsage(this.#lastCpu);
    const elapsedUs = Number(now - this.#lastAt) / 1000;
    const cores = os.availableParallelism();
    const cpuUsage = elapsedUs > 0 ? Math.min(1, (cpu.user + cpu.system) / (elapsedUs * cores)) : 0;
    const io = readProcIo();
    const seconds = elapsedUs / 1e6;
    const diskRead = io && this.#lastIo && seconds > 0 ? (io.read - this.#lastIo.read) / seconds : null;
    const diskWrite = io && this.#lastIo && seconds > 0 ? (io.write - this.#lastIo.write) / seconds : null;
    this.#lastCpu = process.cpuUsage();
    this.#lastAt = now;
    this.#lastIo = io;
    const memory = process.memoryUsage();
    let diskUsage: number | null = null;
    try {
      const fs = statfsSync(this.dataDir);
      diskUsage = fs.blocks > 0 ? 1 - fs.bavail / fs.blocks : null;
    } catch {
      diskUsage = null;
    }
    return {
      cpuUsage,
      memoryUsage: memory.rss / os.totalmem(),
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      diskUsage,
      diskReadBytesPerSec: diskRead,
      diskWriteBytesPerSec: diskWrite,
      networkBytesIn: 0,
      networkBytesOut: 0,
      loadAverage1m: os.loadavg()[0],
      cpuCount: cores,
    };
  }
}
