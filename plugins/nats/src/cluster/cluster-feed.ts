import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import type { Alert, PoseFrame, SensingFrame } from '@wiflow/core';
import { decodeValue } from '../codec.js';

/** What a feed carries: its stream, the shared storage consumer's name, and how to tell a value from junk. */
export interface FeedKind<T> {
  stream: string;
  subject: string;
  /** Durable consumer every storage writer of the cluster shares. */
  storeDurable: string;
  accepts(value: unknown): value is T;
}

/** Pose frames on pose.<environment> (stream WIFLOW_POSE, created by NatsService). */
export const PoseFeedKind: FeedKind<PoseFrame> = {
  stream: 'WIFLOW_POSE',
  subject: 'pose.>',
  storeDurable: 'wiflow-api-storage',
  accepts: (v): v is PoseFrame => !!v && typeof v === 'object' && typeof (v as PoseFrame).environmentId === 'string' && Array.isArray((v as PoseFrame).persons),
};

/** Alerts on alerts.<environment> (stream WIFLOW_ALERTS). */
export const AlertFeedKind: FeedKind<Alert> = {
  stream: 'WIFLOW_ALERTS',
  subject: 'alerts.>',
  storeDurable: 'wiflow-api-alert-storage',
  accepts: (v): v is Alert =>
    !!v && typeof v === 'object' && typeof (v as Alert).alertId === 'string' && typeof (v as Alert).alertType === 'string' && typeof (v as Alert).environmentId === 'string' && typeof (v as Alert).timestamp === 'number',
};

/** Sensing frames on sensing.<environment> (stream WIFLOW_SENSING). */
export const SensingFeedKind: FeedKind<SensingFrame> = {
  stream: 'WIFLOW_SENSING',
  subject: 'sensing.>',
  storeDurable: 'wiflow-api-sensing-storage',
  accepts: (v): v is SensingFrame =>
    !!v && typeof v === 'object' && typeof (v as SensingFrame).environmentId === 'string' && typeof (v as SensingFrame).time === 'number' && ((v as SensingFrame).scope === 'room' || (v as SensingFrame).scope === 'link'),
};

/** Feed figures for status and tests. */
export interface FeedCounters {
  /** Values received live by this instance. */
  live: number;
  /** Values this instance stored through the shared consumer. */
  stored: number;
  /** Messages that were not values of the feed (malformed, wrong shape). */
  rejected: number;
  /** Storage writes that failed (their messages are redelivered). */
  storeErrors: number;
}

/**
 * One stream of a cluster as one API instance sees it (the pose API reaches it through
 * `PoseClusterLink`, never directly):
 * - `live(onValue)`: this instance's own (ordered, ephemeral) consumer starting at new
 *   messages, so every instance sees every value (latest per environment, WebSocket fan-out);
 * - `store(append)`: the one durable consumer shared by every storage writer, so each value is
 *   written once whichever writer takes it; acknowledged only after the write succeeded, a
 *   failed write redelivered.
 * The stream itself is created (with its retention limits) by NatsService.
 */
export class ClusterFeed<T> {
  readonly #running: ConsumerMessages[] = [];
  readonly counters: FeedCounters = { live: 0, stored: 0, rejected: 0, storeErrors: 0 };

  constructor(
    private readonly nc: NatsConnection,
    readonly kind: FeedKind<T>,
    private readonly options: { batch?: number; ackWaitMs?: number } = {},
  ) {}

  #decode(m: JsMsg): T | undefined {
    try {
      const value = decodeValue(m.data);
      return this.kind.accepts(value) ? value : undefined;
    } catch {
      return undefined;
    }
  }

  /** Every new value, to this instance. Resolves once the consumer is in place. */
  async live(onValue: (value: T) => void): Promise<void> {
    // The whole stream, unfiltered (a filter list needs nats-server 2.10; Debian 12 has 2.9).
    const consumer = await jetstream(this.nc).consumers.get(this.kind.stream, { deliver_policy: DeliverPolicy.New });
    const messages = await consumer.consume();
    this.#running.push(messages);
    void (async () => {
      for await (const m of messages) {
        const value = this.#decode(m);
        if (value === undefined) {
          this.counters.rejected++;
          continue;
        }
        this.counters.live++;
        onValue(value);
      }
    })();
  }

  /** Write values once per cluster (shared durable consumer). */
  async store(append: (values: T[]) => Promise<void>): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    const durable = this.kind.storeDurable;
    await jsm.consumers
      .add(this.kind.stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: this.kind.subject,
        ack_wait: nanos(this.options.ackWaitMs ?? 30_000),
        max_ack_pending: 20_000,
      })
      .catch((error: Error) => {
        if (!/already in use|exists/i.test(error.message)) throw error;
      });
    const consumer = await jetstream(this.nc).consumers.get(this.kind.stream, durable);
    const batchSize = this.options.batch ?? 50;
    const messages = await consumer.consume({ max_messages: batchSize * 2 });
    this.#running.push(messages);
    void (async () => {
      let batch: { m: JsMsg; value: T }[] = [];
      for await (const m of messages) {
        const value = this.#decode(m);
        if (value === undefined) {
          this.counters.rejected++;
          m.term();
          continue;
        }
        batch.push({ m, value });
        // Write when the batch is full or nothing more is buffered (low rates).
        if (batch.length < batchSize && messages.getPending() > 1) continue;
        const taken = batch;
        batch = [];
        try {
          await append(taken.map((t) => t.value));
          for (const t of taken) t.m.ack();
          this.counters.stored += taken.length;
        } catch {
          // Not acknowledged: redelivered (to this or another writer) a second later.
          this.counters.storeErrors++;
          for (const t of taken) t.m.nak(1000);
        }
      }
    })();
  }

  /** Close both consumers. */
  async stop(): Promise<void> {
    await Promise.all(this.#running.splice(0).map((m) => m.close().catch(() => undefined)));
  }
}
