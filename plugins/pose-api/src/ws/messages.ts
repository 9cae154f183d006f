import { z } from 'zod';

/** Filters of the pose_updates channel (spec section 6, plus environment_id). */
export const PoseFilters = z
  .object({
    min_confidence: z.number().min(0).max(1).optional(),
    person_ids: z.array(z.number().int().min(0)).max(256).optional(),
    include_keypoints: z.boolean().default(true),
    include_dense_pose: z.boolean().default(false),
    environment_id: z.string().min(1).max(128).optional(),
  })
  .strict();

/** Filters of the alerts channel (spec section 6, plus environment_id). */
export const AlertFilters = z
  .object({
    alert_types: z.array(z.string().min(1).max(64)).max(64).optional(),
    severity: z.array(z.enum(['low', 'medium', 'high', 'critical'])).max(4).optional(),
    environment_id: z.string().min(1).max(128).optional(),
  })
  .strict();

/** Filters of the sensing_updates channel (an extension: CSI sensing frames, one per room or link per second). */
export const SensingFilters = z
  .object({
    environment_id: z.string().min(1).max(128).optional(),
    scope: z.enum(['room', 'link', 'any']).default('room').describe("room frames (default), a room's link frames, or both"),
  })
  .strict();

/** Messages a client may send. */
export const ClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('subscribe'), channel: z.enum(['pose_updates', 'alerts', 'sensing_updates']), filters: z.record(z.string(), z.unknown()).default({}), request_id: z.string().max(128).optional() }),
  z.object({ type: z.literal('unsubscribe'), subscription_id: z.string().min(1).max(128), request_id: z.string().max(128).optional() }),
  z.object({ type: z.literal('ping'), timestamp: z.union([z.string(), z.number()]).optional(), request_id: z.string().max(128).optional() }),
]);

/** A parsed client message. */
export type ClientMessage = z.output<typeof ClientMessage>;

/** Channels a client may subscribe to. */
export const CHANNELS = ['pose_updates', 'alerts', 'sensing_updates'] as const;
/** Protocols announced in connection_established. */
export const SUPPORTED_PROTOCOLS = ['pose_v1', 'alerts_v1', 'sensing_v1'] as const;
