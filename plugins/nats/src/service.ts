import { serviceToken, type ServiceToken } from '@wiflow/core';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { DiscardPolicy, jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import type { Logger } from '@wiflow/core';
import type { NatsSettings } from './config.js';
import { streamKind, Streams } from './subjects.js';

/** Token of the NatsService (`services.get`). */
export const NATS_SERVICE: ServiceToken<NatsService> = serviceToken<NatsService>('wiflow.nats.NatsService');

/** The limits JetStream stores for a stream (nanoseconds, bytes; 0 / -1: none). */
export function streamLimits(stream: string, settings: NatsSettings): Pick<StreamConfig, 'max_age' | 'max_bytes' | 'duplicate_window' | 'discard'> {
  const { maxAgeMs, maxBytes } = settings.retention[streamKind(stream)];
  // JetStream refuses a duplicate window longer than the age limit.
  const duplicateMs = maxAgeMs > 0 ? Math.min(settings.duplicateWindowMs, maxAgeMs) : settings.duplicateWindowMs;
  return { max_age: nanos(maxAgeMs), max_bytes: maxBytes > 0 ? maxBytes : -1, duplicate_window: nanos(duplicateMs), discard: DiscardPolicy.Old };
}

/** A NATS URL (or comma-separated list) as it may be shown: user, password or token replaced by `***`. */
export function redactNatsUrl(url: string): string {
  return url.replace(/(^|,|\/\/)([^,@/\s]+)@/g, (_, before: string) => `${before}***@`);
}

/**
 * Connection options from a NATS URL (or comma-separated list): the servers without their user
 * info, and the credentials it held (`user:password@` or `token@`, percent-decoded). nats.js
 * ignores credentials written in a server URL, so without this a configured password would never
 * be sent and the server would answer "Authorization Violation".
 */
export function natsConnectOptions(url: string): { servers: string[]; user?: string; pass?: string; token?: string } {
  const servers: string[] = [];
  let credentials: { user?: string; pass?: string; token?: string } = {};
  for (const raw of url.split(',').map((s) => s.trim()).filter(Boolean)) {
    const match = /^([a-z]+:\/\/)?([^@/]*)@(.*)$/i.exec(raw);
    if (!match) {
      servers.push(raw);
      continue;
    }
    const [, scheme = '', info, rest] = match;
    servers.push(`${scheme}${rest}`);
    const colon = info.indexOf(':');
    const found = colon >= 0 ? { user: decodeURIComponent(info.slice(0, colon)), pass: decodeURIComponent(info.slice(colon + 1)) } : { token: decodeURIComponent(info) };
    if (!credentials.user && !credentials.token) credentials = found;
  }
  return { servers, ...credentials };
}

/**
 * One NATS connection per runtime and URL, with the wiflow JetStream streams created when
 * missing and their retention limits (config `nats.retention`) applied. Nodes share it; it
 * closes with the runtime.
 */
export class NatsService {
  readonly #connections = new Map<string, Promise<{ nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager }>>();

  constructor(private readonly settings: NatsSettings, private readonly logger: Logger) {}

  /** Connect (once per URL) and make sure the streams exist with the configured limits. */
  get(url = this.settings.url): Promise<{ nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager }> {
    let pending = this.#connections.get(url);
    if (!pending) {
      pending = (async () => {
        const nc = await connect({ ...natsConnectOptions(url), name: `wiflow-${process.pid}`, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
        const jsm = await jetstreamManager(nc);
        for (const [name, subjects] of Object.entries(Streams)) await this.#ensureStream(jsm, name, subjects);
        this.logger.info('connected to NATS', { url: redactNatsUrl(url) });
        return { nc, js: jetstream(nc), jsm };
      })();
      pending.catch(() => this.#connections.delete(url));
      this.#connections.set(url, pending);
    }
    return pending;
  }

  async #ensureStream(jsm: JetStreamManager, name: string, subjects: string[]): Promise<void> {
    const limits = streamLimits(name, this.settings);
    let existing: StreamConfig | undefined;
    try {
      existing = (await jsm.streams.info(name)).config;
    } catch {
      existing = undefined;
    }
    if (!existing) {
      try {
        await jsm.streams.add({ name, subjects, ...limits });
        return;
      } catch (error) {
        // Another runtime may have created it in between: compare with what it created.
        if (!/already in use|exists/i.test((error as Error).message)) throw error;
        existing = (await jsm.streams.info(name)).config;
      }
    }
    const differs = existing.max_age !== limits.max_age || existing.max_bytes !== limits.max_bytes || existing.duplicate_window !== limits.duplicate_window || existing.discard !== limits.discard;
    if (!differs) return;
    // The configuration of the runtime that connects last applies: an operator changes the
    // limits by changing the config and restarting a runtime.
    await jsm.streams.update(name, { ...existing, ...limits });
    this.logger.info('stream limits updated', { stream: name, maxAgeMs: limits.max_age / 1e6, maxBytes: limits.max_bytes });
  }

  /** The configured server (`nats.url`). */
  get url(): string {
    return this.settings.url;
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
