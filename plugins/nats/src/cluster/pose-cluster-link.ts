import { hostname } from 'node:os';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Alert, PoseFrame, SensingFrame } from '@wiflow/core';
import { encodeValue } from '../codec.js';
import { PUBLISHER_HEADER } from '../nodes/publish.js';
import { Subjects, fillMessageId } from '../subjects.js';
import { AlertFeedKind, ClusterFeed, PoseFeedKind, SensingFeedKind } from './cluster-feed.js';
import { NatsRateLimitStore } from './nats-rate-limit-store.js';

/** How a pose API instance wants its link to the cluster. */
export interface PoseClusterLinkOptions {
  /** Values written per storage call by the shared storage consumers (default 50). */
  batch?: number;
  /** Minimum redelivery wait of an unacknowledged storage batch (the larger of this and 30 s). */
  ackWaitMs?: number;
  /** How long a rate-limit window's counter is kept (at least the longest configured window). */
  rateLimitTtlMs?: number;
}

/**
 * Everything a pose API instance exchanges with the cluster, with the NATS wire format
 * (subjects, codec, message ids, publisher header, JetStream consumers, KV) kept here:
 * - `poses` / `alerts` / `sensing`: the live feeds (every instance sees every value) and shared
 *   storage consumers (each value written once) of pose.>, alerts.> and sensing.>;
 * - `outlet`: where the local pipeline's output goes (pose.<environment>, alerts.<environment>,
 *   sensing.<environment>; same message ids as nats.publish, so a redelivered result is dropped
 *   by JetStream);
 * - `rateLimits`: fixed-window counters shared by every API instance (NATS KV).
 * The pose API plugs these into its hub and rate limiter; it never touches NATS itself.
 */
export class PoseClusterLink {
  readonly poses: ClusterFeed<PoseFrame>;
  readonly alerts: ClusterFeed<Alert>;
  readonly sensing: ClusterFeed<SensingFrame>;
  readonly rateLimits: NatsRateLimitStore;
  /** Publishes the local pipeline's frames and alerts to the cluster. */
  readonly outlet: { frame(frame: PoseFrame): Promise<void>; alert(alert: Alert): Promise<void>; sensing(frame: SensingFrame): Promise<void> };

  constructor(connection: { nc: NatsConnection; js: JetStreamClient }, options: PoseClusterLinkOptions = {}) {
    const { nc, js } = connection;
    const feedOptions = { batch: options.batch, ackWaitMs: Math.max(30_000, options.ackWaitMs ?? 0) };
    this.poses = new ClusterFeed(nc, PoseFeedKind, feedOptions);
    this.alerts = new ClusterFeed(nc, AlertFeedKind, feedOptions);
    this.sensing = new ClusterFeed(nc, SensingFeedKind, feedOptions);
    this.rateLimits = new NatsRateLimitStore(nc, { ttlMs: options.rateLimitTtlMs });
    const headers = natsHeaders();
    headers.set(PUBLISHER_HEADER, `${hostname()}:${process.pid}`);
    const publish = async (subject: string, messageId: string, value: unknown) => {
      await js.publish(subject, encodeValue(value), { headers, msgID: `${subject}:${messageId}` });
    };
    this.outlet = {
      frame: (frame) => publish(Subjects.pose(frame.environmentId), fillMessageId('{environment}.{timestamp}', frame), frame),
      alert: (alert) => publish(Subjects.alerts(alert.environmentId), fillMessageId('{alertId}', alert), alert),
      // One frame per second, scope and link of a room (`{link}` is 'link' for room frames).
      sensing: (frame) => publish(Subjects.sensing(frame.environmentId), fillMessageId('{environment}.{scope}.{link}.{time}', frame), frame),
    };
  }

  /** Close the feeds' consumers (before the NATS connection closes). */
  async stop(): Promise<void> {
    await Promise.all([this.poses.stop(), this.alerts.stop(), this.sensing.stop()]);
  }
}
