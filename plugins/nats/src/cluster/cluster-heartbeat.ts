import type { NatsConnection, Subscription } from '@nats-io/transport-node';

/** Subject every cluster instance announces itself on (core NATS, not persisted). */
export const HEARTBEAT_SUBJECT = 'wiflow.cluster.heartbeat';

/** What one instance announces. */
export interface InstanceHeartbeat {
  instanceId: string;
  /** 'api', 'worker', 'ingest'... */
  role: string;
  pid: number;
  host: string;
  /** Component name → state ('running', 'stopped', 'error'...). */
  components: Record<string, string>;
  /** Counters the instance wants aggregated (frames/s, errors...). */
  counters: Record<string, number>;
  /** When it was sent (ms since the epoch). */
  at: number;
  /** Set on the last beat of an instance that stops gracefully: the others forget it. */
  leaving?: boolean;
}

/** An instance as the cluster view sees it. */
export interface ClusterMember extends Omit<InstanceHeartbeat, 'leaving'> {
  /** Down when no heartbeat came for `missedBeats` intervals. */
  status: 'up' | 'down';
  lastSeenMs: number;
}

/**
 * Announces this instance every `intervalMs` and keeps the last heartbeat of every other
 * one, so `/system/status` and `/health/detailed` of any API instance can report the whole
 * cluster. An instance silent for `missedBeats` intervals is reported down (kept, not
 * forgotten: a dead worker is what an operator needs to see).
 */
export class ClusterHeartbeat {
  readonly #members = new Map<string, InstanceHeartbeat>();
  readonly #listeners = new Set<() => void>();
  #timer: NodeJS.Timeout | undefined;
  #subscription: Subscription | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly self: () => Omit<InstanceHeartbeat, 'at'>,
    private readonly options: { intervalMs?: number; missedBeats?: number; now?: () => number; subject?: string } = {},
  ) {}

  /** Where the beats go: the cluster's subject, or a group's own (room shards of one durable). */
  get subject(): string {
    return this.options.subject ?? HEARTBEAT_SUBJECT;
  }

  get intervalMs(): number {
    return this.options.intervalMs ?? 5000;
  }

  /** Subscribe, then announce (resolves once the server has the subscription). */
  async start(): Promise<void> {
    this.#subscription = this.nc.subscribe(this.subject, {
      callback: (error, message) => {
        if (error) return;
        try {
          const beat = JSON.parse(new TextDecoder().decode(message.data)) as InstanceHeartbeat;
          if (typeof beat.instanceId !== 'string' || typeof beat.at !== 'number') return;
          const newcomer = !this.#members.has(beat.instanceId) && beat.instanceId !== this.self().instanceId;
          // A graceful stop is not a failure: only instances that went silent are reported down.
          if (beat.leaving) this.#members.delete(beat.instanceId);
          else this.#members.set(beat.instanceId, beat);
          // Answer a newcomer at once, so it learns the cluster without waiting an interval.
          if (newcomer && !beat.leaving) this.beat();
          for (const listener of this.#listeners) listener();
        } catch {
          // not a heartbeat: ignored
        }
      },
    });
    await this.nc.flush();
    this.beat();
    this.#timer = setInterval(() => this.beat(), this.intervalMs);
    this.#timer.unref();
  }

  /** Announce now. */
  beat(): void {
    const now = this.options.now?.() ?? Date.now();
    this.nc.publish(this.subject, JSON.stringify({ ...this.self(), at: now }));
  }

  /** Every instance heard from, with up/down status. */
  members(): ClusterMember[] {
    const now = this.options.now?.() ?? Date.now();
    const limit = this.intervalMs * (this.options.missedBeats ?? 3);
    return [...this.#members.values()]
      .map(({ leaving: _leaving, ...m }) => ({ ...m, lastSeenMs: now - m.at, status: now - m.at > limit ? ('down' as const) : ('up' as const) }))
      .sort((a, b) => a.instanceId.localeCompare(b.instanceId));
  }

  /** Called after every heartbeat received (tests, pushing status to clients). */
  onHeartbeat(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stop announcing. `leave` tells the others this instance stopped on purpose (they forget it instead of reporting it down). */
  stop(options: { leave?: boolean } = {}): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    if (options.leave && this.#subscription) {
      const now = this.options.now?.() ?? Date.now();
      this.nc.publish(this.subject, JSON.stringify({ ...this.self(), at: now, leaving: true }));
    }
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
  }
}
