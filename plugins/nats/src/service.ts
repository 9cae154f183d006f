import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import type { Logger } from '@wiflow/core';
import { Streams } from './subjects.js';

/** Token of the NatsService in the runtime container. */
export const NATS_SERVICE = Symbol.for('wiflow.nats.NatsService');

/** Connection settings (config section `nats`). */
export interface NatsSettings {
  url: string;
  /** How long JetStream remembers message ids to drop duplicate publishes (ms). */
  duplicateWindowMs: number;
  /** Redelivery delay for unacknowledged messages (ms). */
  ackWaitMs: number;
}

/**
 * One NATS connection per runtime and URL, with the wiflow JetStream streams created when
 * missing. Nodes share it; it closes with the runtime.
 */
export class NatsService {
  readonly #connections = new Map<string, Promise<{ nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager }>>();

  constructor(private readonly settings: NatsSettings, private readonly logger: Logger) {}

  /** Connect (once per URL) and make sure the streams exist. */
  get(url = this.settings.url): Promise<{ nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager }> {
    let pending = this.#connections.get(url);
    if (!pending) {
      pending = (async () => {
        const nc = await connect({ servers: url, name: `wiflow-${process.pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
        const jsm = await jetstreamManager(nc);
        for (const [name, subjects] of Object.entries(Streams)) {
          try {
            await jsm.streams.info(name);
          } catch {
            await jsm.streams.add({ name, subjects, duplicate_window: nanos(this.settings.duplicateWindowMs) }).catch((error: Error) => {
              // Another runtime may have created it in between.
              if (!/already in use|exists/i.test(error.message)) throw error;
            });
          }
        }
        this.logger.info('connected to NATS', { url });
        return { nc, js: jetstream(nc), jsm };
      })();
      pending.catch(() => this.#connections.delete(url));
      this.#connections.set(url, pending);
    }
    return pending;
  }

  get ackWaitMs(): number {
    return this.settings.ackWaitMs;
  }

  /** Drain and close every connection. */
  async close(): Promise<void> {
    const all = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(all.map(async (p) => {
      try {
        const { nc } = await p;
        await nc.drain();
      } catch {
        // a connection that never opened has nothing to drain
      }
    }));
  }
}
