import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import type { PoseFrame } from '@wiflow/core';

/** The JetStream stream `nats.publish(pose.<environment>)` writes to (@wiflow/plugin-nats). */
export const POSE_STREAM = 'WIFLOW_POSE';

const TYPED: Record<string, new (buffer: ArrayBuffer, offset: number, length: number) => ArrayBufferView> = {
  Float32Array, Float64Array, Int16Array, Int32Array, Uint8Array, Int8Array, Uint16Array, Uint32Array,
} as never;

/**
 * Decode a message of @wiflow/plugin-nats's codec (JSON; typed arrays as `{ $typed, b64 }`).
 * Repeated here (10 lines) because plugin-nats's tests start `wiflow serve` with this plugin:
 * a package dependency the other way would make a build cycle.
 */
export function decodeNatsValue(bytes: Uint8Array): unknown {
  return JSON.parse(new TextDecoder().decode(bytes), (_key, v: unknown) => {
    if (v && typeof v === 'object' && '$typed' in (v as Record<string, unknown>)) {
      const { $typed: name, b64 } = v as { $typed: string; b64: string };
      const Ctor = TYPED[name] as unknown as { new (b: ArrayBuffer, o: number, l: number): ArrayBufferView; BYTES_PER_ELEMENT: number } | undefined;
      if (!Ctor) throw new Error(`unknown typed array ${name} in message`);
      const bytes = Buffer.from(b64, 'base64');
      const copy = new Uint8Array(bytes.byteLength);
      copy.set(bytes);
      return new Ctor(copy.buffer, 0, copy.byteLength / Ctor.BYTES_PER_ELEMENT);
    }
    return v;
  });
}

function isPoseFrame(value: unknown): value is PoseFrame {
  const v = value as PoseFrame;
  return !!v && typeof v === 'object' && typeof v.environmentId === 'string' && Array.isArray(v.persons);
}

/**
 * The pose frames of a cluster as one API instance sees them:
 * - `live(onFrame)`: this instance's own consumer of pose.> starting at new messages, so every
 *   instance sees every frame (latest per environment, WebSocket fan-out);
 * - `store(append)`: the one durable consumer shared by all instances, so each frame is
 *   written once whichever instance takes it; acknowledged only after the write succeeded.
 */
export class ClusterPoseFeed {
  readonly #running: ConsumerMessages[] = [];
  /** Frames received live, frames stored, messages that were not pose frames. */
  readonly counters = { live: 0, stored: 0, rejected: 0, storeErrors: 0 };

  constructor(private readonly nc: NatsConnection, private readonly options: { subject?: string; storeDurable?: string; batch?: number } = {}) {}

  async #stream(): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    try {
      await jsm.streams.info(POSE_STREAM);
    } catch {
      await jsm.streams.add({ name: POSE_STREAM, subjects: ['pose.>'] }).catch((error: Error) => {
        if (!/already in use|exists/i.test(error.message)) throw error;
      });
    }
  }

  /** Every new frame, to this instance. Resolves once the consumer is in place. */
  async live(onFrame: (frame: PoseFrame) => void): Promise<void> {
    await this.#stream();
    // The whole stream needs no filter (a filter list needs nats-server 2.10; Debian 12 has 2.9).
    const subject = this.options.subject ?? 'pose.>';
    const consumer = await jetstream(this.nc).consumers.get(POSE_STREAM, { ...(subject === 'pose.>' ? {} : { filter_subjects: subject }), deliver_policy: DeliverPolicy.New });
    const messages = await consumer.consume();
    this.#running.push(messages);
    void (async () => {
      for await (const m of messages) {
        let value: unknown;
        try {
          value = decodeNatsValue(m.data);
        } catch {
          this.counters.rejected++;
          continue;
        }
        if (!isPoseFrame(value)) {
          this.counters.rejected++;
          continue;
        }
        this.counters.live++;
        onFrame(value);
      }
    })();
  }

  /** Write frames once per cluster (shared durable consumer). */
  async store(append: (frames: PoseFrame[]) => Promise<void>): Promise<void> {
    await this.#stream();
    const jsm = await jetstreamManager(this.nc);
    const durable = this.options.storeDurable ?? 'wiflow-api-storage';
    await jsm.consumers
      .add(POSE_STREAM, { durable_name: durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, filter_subject: this.options.subject ?? 'pose.>' })
      .catch((error: Error) => {
        if (!/already in use|exists/i.test(error.message)) throw error;
      });
    const consumer = await jetstream(this.nc).consumers.get(POSE_STREAM, durable);
    const batchSize = this.options.batch ?? 50;
    const messages = await consumer.consume({ max_messages: batchSize * 2 });
    this.#running.push(messages);
    void (async () => {
      let batch: { m: JsMsg; frame: PoseFrame }[] = [];
      for await (const m of messages) {
        let value: unknown;
        try {
          value = decodeNatsValue(m.data);
        } catch {
          value = undefined;
        }
        if (!isPoseFrame(value)) {
          this.counters.rejected++;
          m.term();
          continue;
        }
        batch.push({ m, frame: value });
        if (batch.length < batchSize && messages.getPending() > 1) continue;
        const taken = batch;
        batch = [];
        try {
          await append(taken.map((t) => t.frame));
          for (const t of taken) t.m.ack();
          this.counters.stored += taken.length;
        } catch {
          // Not acknowledged: redelivered (to this or another instance) after the ack wait.
          this.counters.storeErrors++;
          for (const t of taken) t.m.nak(1000);
        }
      }
    })();
  }

  async stop(): Promise<void> {
    await Promise.all(this.#running.splice(0).map((m) => m.close().catch(() => undefined)));
  }
}
