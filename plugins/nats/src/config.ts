import { z } from 'zod';

const MiB = 1024 * 1024;

const limits = (maxAgeMs: number, maxBytes: number) =>
  z
    .object({
      maxAgeMs: z.number().int().min(0).default(maxAgeMs).describe('Messages older than this are removed (ms; 0: no age limit). Must be at least duplicateWindowMs, else the duplicate window is shortened to it'),
      maxBytes: z.number().int().min(0).default(maxBytes).describe('Oldest messages are removed beyond this size (bytes; 0: no size limit)'),
    })
    .default({ maxAgeMs, maxBytes });

/** Retention of the streams wiflow creates (JetStream max_age / max_bytes, discard old). */
export const StreamRetentionConfig = z
  .object({
    csi: limits(10 * 60_000, 1024 * MiB).describe('WIFLOW_CSI (csi.>): work items for the pose workers, not history'),
    pose: limits(24 * 3_600_000, 1024 * MiB).describe('WIFLOW_POSE (pose.>): the live feed of the API instances and the queue of the storage writer'),
    alerts: limits(7 * 24 * 3_600_000, 256 * MiB).describe('WIFLOW_ALERTS (alerts.>)'),
    sensing: limits(24 * 3_600_000, 256 * MiB).describe('WIFLOW_SENSING (sensing.>): sensing frames (sense.link / sense.room via pose.publish), the live feed of the API instances and the queue of the storage writer'),
  })
  .prefault({});

/** Retention limits of one stream. */
export interface StreamLimits {
  maxAgeMs: number;
  maxBytes: number;
}

/** Config section `nats`. */
export const NatsConfig = z
  .object({
    url: z.string().default(process.env.WIFLOW_NATS_URL ?? 'nats://127.0.0.1:4222').describe('NATS server URL, or several separated by commas (also WIFLOW_NATS_URL); credentials as nats://user:password@host:4222 or nats://token@host:4222 (percent-encoded), never shown in logs or errors'),
    duplicateWindowMs: z.number().int().positive().default(120_000).describe('JetStream duplicate window for message ids'),
    ackWaitMs: z.number().int().min(200).default(5_000).describe('Redelivery delay for unacknowledged messages'),
    retention: StreamRetentionConfig.describe('Limits of the streams NatsService creates; applied to existing streams when they differ'),
  })
  .prefault({});

/** Parsed `nats` section. */
export type NatsSettings = z.output<typeof NatsConfig>;
