import { hostname } from 'node:os';
import type { NatsConnection } from '@nats-io/transport-node';
import { ClusterHeartbeat } from './cluster-heartbeat.js';
import { assignRooms } from './room-assignment.js';

/** Subject the workers of one shard group announce themselves on (core NATS, not persisted). */
export function shardSubject(group: string): string {
  return `wiflow.shard.${group}`;
}

/** Settings of a `RoomShards`. */
export interface RoomShardsOptions {
  /** Name of the group (the workers that share these rooms). */
  group: string;
  /** This worker's stable name. */
  instanceId: string;
  rooms: readonly string[];
  heartbeatIntervalMs: number;
  missedBeats: number;
  /** How long a newcomer listens for the group before it claims rooms (the others answer a newcomer at once). */
  joinDelayMs?: number;
}

/**
 * This worker's share of a group's rooms. The workers of a group announce themselves on
 * their own heartbeat subject; each room belongs to exactly one live worker (rendezvous
 * assignment over the members that are up), so every packet of one room reaches the same
 * worker and its per-room state holds. A worker that leaves gracefully hands its rooms over
 * at once; one that dies, after `missedBeats` silent intervals. `onChange` fires with the new
 * set of owned rooms whenever it changes.
 */
export class RoomShards {
  readonly #listeners = new Set<(owned: ReadonlySet<string>) => void>();
  #heartbeat: ClusterHeartbeat | undefined;
  #owned: ReadonlySet<string> = new Set();
  #joined = false;
  #timer: NodeJS.Timeout | undefined;
  #joinTimer: NodeJS.Timeout | undefined;
  #joinDone: (() => void) | undefined;

  constructor(private readonly nc: NatsConnection, readonly options: RoomShardsOptions) {}

  /** Rooms this worker consumes now. */
  owned(): ReadonlySet<string> {
    return this.#owned;
  }

  /** The live workers of the group (this one included) and the room each owns. */
  assignment(): Map<string, string> {
    const up = (this.#heartbeat?.members() ?? []).filter((m) => m.status === 'up').map((m) => m.instanceId);
    if (!up.includes(this.options.instanceId)) up.push(this.options.instanceId);
    return assignRooms(this.options.rooms, up);
  }

  /** Called with the owned rooms after every change. */
  onChange(listener: (owned: ReadonlySet<string>) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Join the group; rooms are claimed after `joinDelayMs`, once the others have answered. */
  async start(): Promise<void> {
    const heartbeat = new ClusterHeartbeat(
      this.nc,
      () => ({ instanceId: this.options.instanceId, role: 'worker', pid: process.pid, host: hostname(), components: Object.fromEntries([...this.#owned].map((r) => [`room:${r}`, 'owned'])), counters: { rooms: this.#owned.size } }),
      { intervalMs: this.options.heartbeatIntervalMs, missedBeats: this.options.missedBeats, subject: shardSubject(this.options.group) },
    );
    heartbeat.onHeartbeat(() => this.#update());
    await heartbeat.start();
    this.#heartbeat = heartbeat;
    // A dead worker sends nothing: look again every interval so its rooms move once it is down.
    this.#timer = setInterval(() => this.#update(), this.options.heartbeatIntervalMs);
    this.#timer.unref();
    await new Promise<void>((resolve) => {
      this.#joinDone = resolve;
      this.#joinTimer = setTimeout(resolve, this.options.joinDelayMs ?? Math.min(this.options.heartbeatIntervalMs, 1000));
    });
    if (!this.#heartbeat) return;
    this.#joined = true;
    this.#update();
  }

  #update(): void {
    if (!this.#joined || !this.#heartbeat) return;
    const owners = this.assignment();
    const owned = new Set(this.options.rooms.filter((room) => owners.get(room) === this.options.instanceId));
    if (owned.size === this.#owned.size && [...owned].every((r) => this.#owned.has(r))) return;
    this.#owned = owned;
    // Tell the group at once: the status of who holds what should not lag an interval.
    this.#heartbeat.beat();
    for (const listener of this.#listeners) listener(owned);
  }

  /** Leave the group: the others take this worker's rooms at once (`leave: false`: go silent, as a dead worker does; they take them after `missedBeats` intervals). */
  stop(options: { leave?: boolean } = {}): void {
    if (this.#timer) clearInterval(this.#timer);
    if (this.#joinTimer) clearTimeout(this.#joinTimer);
    this.#joinDone?.();
    this.#joined = false;
    this.#owned = new Set();
    this.#heartbeat?.stop({ leave: options.leave ?? true });
    this.#heartbeat = undefined;
  }
}
