import { configSection } from '@wiflow/core';
import { z } from 'zod';
import { AuthConfigSchema } from '@wiflow/plugin-identity';

/** The two response conventions of the pose service spec. */
export type Convention = 'A' | 'B';

const limit = (count: number, windowSeconds: number) =>
  z.object({ limit: z.number().int().positive(), windowSeconds: z.number().int().positive() }).default({ limit: count, windowSeconds });

/** Rate-limit categories (spec section 8, convention B's table; used in both conventions). */
export const RATE_LIMIT_CATEGORIES = ['auth', 'pose_read', 'pose_process', 'config', 'analytics', 'health'] as const;
/** One rate-limit category. */
export type RateLimitCategory = (typeof RATE_LIMIT_CATEGORIES)[number];

/** The `api` config section: how the pose service itself behaves (not the spec's Configuration object). */
export const ApiConfigSchema = z
  .object({
    convention: z.enum(['A', 'B']).default('A').describe('Response convention; WIFLOW_API_CONVENTION overrides it'),
    auth: AuthConfigSchema,
    rateLimits: z
      .object({
        enabled: z.boolean().default(true),
        auth: limit(10, 60),
        pose_read: limit(1000, 3600),
        pose_process: limit(100, 3600),
        config: limit(50, 3600),
        analytics: limit(500, 3600),
        health: limit(10_000, 3600),
      })
      .prefault({})
      .describe('Requests per window per caller (the user, whatever token or API key it uses; the client address when anonymous)'),
    websocket: z
      .object({
        enabled: z.boolean().default(true),
        maxConnectionsPerIp: z.number().int().positive().default(100),
        maxSubscriptionsPerClient: z.number().int().positive().default(10),
        systemStatusIntervalMs: z.number().int().min(100).default(5000).describe('Period of system_status messages'),
        maxBufferedBytes: z.number().int().positive().default(1 << 20).describe('Per-client send buffer before frames are skipped'),
        maxSkippedFrames: z.number().int().positive().default(200).describe('Consecutive skipped frames before a slow client is closed'),
        closeGraceMs: z
          .number()
          .int()
          .min(1000)
          .max(3_600_000)
          .default(300_000)
          .describe('Longest a closed slow client is kept so its close frame (4008 and the reason) still reaches it when it reads again; then the socket is destroyed'),
      })
      .prefault({}),
    pipeline: z
      .object({
        flow: z.string().nullable().default(null).describe('Path of the pipeline flow JSON (relative to the working directory)'),
        flowId: z.string().nullable().default(null).describe('Id of a stored flow to run instead of a file'),
        autoStart: z.boolean().default(false).describe('Start the pipeline when the server is ready'),
      })
      .prefault({}),
    hub: z
      .object({
        batchSize: z.number().int().positive().default(50).describe('Pose frames per storage write'),
        flushIntervalMs: z.number().int().positive().default(1000).describe('Longest a frame waits before it is written'),
      })
      .prefault({}),
    processing: z
      .object({
        // The default estimator (docs/model.md): raw CSI against each link's empty-room reference. A
        // bring-your-own pose model runs as ['csi.signal-chain', 'pose.estimate'] with its nodeConfig.
        chain: z.array(z.string()).min(1).default(['pose.locate']).describe('Node types POST /pose/process runs, in order, CsiFrame in, PoseFrame out'),
        tracker: z.string().default('tracker.track').describe('Node type added after the chain when enable_tracking is true'),
        nodeConfig: z.record(z.string(), z.record(z.string(), z.unknown())).default({}).describe('Config per node type of the chain, e.g. { "pose.locate": { "environments": [...], "references": ["ref.json"] } } or { "pose.locate": { "scenario": "room.yaml" } }'),
        timeoutMs: z.number().int().positive().default(30_000),
      })
      .prefault({}),
  })
  .prefault({});

/** Parsed `api` section. */
export type ApiConfig = z.output<typeof ApiConfigSchema>;

/**
 * The spec's Configuration object (section 2), stored once in canonical form (config
 * section `pose`) and shown in the shape of the convention in force. Privacy lives in the
 * runtime's `privacy` section that storage honours.
 */
export const PoseConfigSchema = z
  .object({
    domain: z.enum(['healthcare', 'retail', 'security', 'general']).default('general').describe('Analytics domain the deployment serves'),
    environment: z
      .object({
        id: z.string().min(1).max(128).default('default').describe('Environment id (environment_id)'),
        name: z.string().max(256).default('Default environment'),
        calibration_timestamp: z.iso.datetime({ offset: true }).nullable().default(null).describe('When the environment was last calibrated'),
      })
      .prefault({}),
    detection: z
      .object({
        confidence_threshold: z.number().min(0).max(1).default(0.5).describe('Persons below this confidence are dropped'),
        max_persons: z.number().int().positive().max(64).default(10),
        tracking_enabled: z.boolean().default(true),
        tracking_max_age: z.number().int().positive().default(30).describe('Frames a lost track is kept'),
        tracking_min_hits: z.number().int().positive().default(3).describe('Frames before a track is confirmed'),
      })
      .prefault({}),
    alerts: z
      .object({
        fall_detection: z
          .object({
            enabled: z.boolean().default(true),
            sensitivity: z.number().min(0).max(1).default(0.8),
            notification_delay_seconds: z.number().min(0).max(3600).default(0),
          })
          .prefault({}),
        inactivity_detection: z
          .object({ enabled: z.boolean().default(false), threshold_minutes: z.number().positive().max(1440).default(30) })
          .prefault({}),
        fall_confidence: z.number().min(0).max(1).default(0.8).describe('Minimum confidence of a fall event that raises an alert'),
      })
      .prefault({}),
    streaming: z
      .object({
        restream_enabled: z.boolean().default(false).describe('Stored for the spec; no restream transport exists yet'),
        websocket_enabled: z.boolean().default(true).describe('Accept /ws/pose connections'),
        mqtt_enabled: z.boolean().default(true).describe('Whether mqtt.publish nodes publish (read by @wiflow/plugin-mqtt)'),
      })
      .prefault({}),
    neural_network: z
      .object({
        model_version: z.string().default('latest'),
        batch_size: z.number().int().positive().max(1024).default(8),
        enable_gpu: z.boolean().default(false),
        inference_timeout: z.number().int().positive().default(1000).describe('Milliseconds'),
      })
      .prefault({}),
    hardware: z
      .object({
        csi_sampling_rate: z.number().int().positive().max(10_000).default(100),
        buffer_size: z.number().int().positive().max(1_000_000).default(1024),
        antenna_count: z.number().int().positive().max(16).default(3),
        subcarrier_count: z.number().int().positive().max(2048).default(30),
      })
      .prefault({}),
    analytics: z
      .object({ enable_fall_detection: z.boolean().default(true), enable_activity_recognition: z.boolean().default(true) })
      .prefault({}),
  })
  .prefault({});

/** Parsed `pose` section. */
export type PoseConfig = z.output<typeof PoseConfigSchema>;

/** The `api` section this plugin declares (`config.read(ApiSection)` is typed). */
export const ApiSection = configSection('api', ApiConfigSchema);

/** The `pose` section this plugin declares. */
export const PoseSection = configSection('pose', PoseConfigSchema);

/** The runtime `privacy` section storage honours: one schema, in core (declared here when no storage plugin declared it). */
export { PrivacyConfigSchema } from '@wiflow/storage-kit';

/** Config paths whose change only takes effect after a restart of the pipeline. */
export const RESTART_PREFIXES = ['neural_network', 'hardware', 'environment.id', 'detection.tracking_max_age', 'detection.tracking_min_hits', 'api.pipeline'];
