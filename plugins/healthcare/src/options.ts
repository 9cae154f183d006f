import { z } from 'zod';
import { parseAnalyticOptions, ZoneSchema } from '@wiflow/analytics-common';
import { HealthcareErrors } from './errors.js';

/** Healthcare analytics options (node config and `HealthcareMonitor`). */
export const HealthcareOptionsSchema = z.object({
  fall_detection_enabled: z.boolean().default(true),
  fall_drop_m: z.number().positive().default(0.3).describe('hip height must fall by at least this much (m) within fall_window_seconds'),
  fall_window_seconds: z.number().positive().default(2).describe('time within which the drop must happen'),
  fall_min_speed: z.number().positive().default(0.45).describe('peak downward hip speed during the drop (m/s)'),
  fall_impact_speed: z.number().min(0).default(0.38).describe('downward hip speed (m/s) just before landing; slower landings are controlled lowering, not falls'),
  fall_floor_height: z.number().positive().default(0.4).describe('hip height (m) at or below which a person is on the floor'),
  notification_delay_seconds: z.number().min(0).default(2).describe('the person must stay on the floor this long before the fall is confirmed'),
  long_lie_seconds: z.number().positive().default(60).describe('still on the floor this long after a fall: escalate to critical'),
  recovery_height: z.number().positive().default(0.7).describe('hip height (m) that counts as up again after a fall'),
  inactivity_enabled: z.boolean().default(true),
  threshold_minutes: z.number().positive().default(30).describe('no movement for this long raises an inactivity alert'),
  inactivity_movement_m: z.number().positive().default(0.5).describe('moving further than this from where the still period began ends it'),
  inactivity_exclude_zones: z.array(ZoneSchema).default([]).describe('zones (e.g. beds) where stillness is not reported'),
  walking_speed: z.number().positive().default(0.4).describe('speed (m/s) from which an upright person counts as walking'),
  sleep_min_minutes: z.number().positive().default(20).describe('a lying period this long or longer counts as a sleep period'),
  sleep_gap_minutes: z.number().min(0).default(5).describe('breaks in lying shorter than this do not end a sleep period'),
  restlessness_m: z.number().positive().default(0.1).describe('mean joint movement (m, body frame) between consecutive block averages that counts as restless while lying; restless moments less than 30 s apart are one event'),
  restlessness_block_seconds: z.number().positive().default(2).describe('length of the averaging blocks of the restlessness rule'),
  alert_cooldown_seconds: z.number().min(0).default(300).describe('a repeat alert of the same type about the same track is suppressed this long'),
  report_interval_seconds: z.number().positive().default(60).describe('how often (frame time) the node emits its metrics'),
  allow_ground_truth_poses: z.boolean().default(false).describe('accept pose frames of ground truth (model truth+noise) on the poses input, for evaluating the pose rules; their events say derived_from: ground_truth_poses. Off: such frames are refused (counted), so no alert comes from ground truth'),
  max_frame_gap_seconds: z.number().positive().default(2).describe('a longer gap between frames of a track is not counted as observed time'),
}).strict();

/** Validated healthcare options. */
export type HealthcareOptions = z.output<typeof HealthcareOptionsSchema>;
/** Healthcare options as given. */
export type HealthcareOptionsInput = z.input<typeof HealthcareOptionsSchema>;

/** Parse options with a clear error. */
export function parseHealthcareOptions(input: unknown): HealthcareOptions {
  return parseAnalyticOptions(HealthcareOptionsSchema, input ?? {}, HealthcareErrors.optionsInvalid);
}
