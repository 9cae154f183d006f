import { z } from 'zod';
import { parseAnalyticOptions, polygonArea, TimeWindowSchema } from '@wiflow/analytics-common';
import { SecurityErrors } from './errors.js';

const coordinate = z.number().finite();
const point = z.tuple([coordinate, coordinate]);

/** A security zone: a floor polygon, armed always or on a weekly schedule. */
export const SecurityZoneSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  polygon: z.array(point).min(3),
  armed: z.union([z.literal('always'), z.literal('never'), z.array(TimeWindowSchema)]).default('always').describe("'always', 'never', or weekly windows in site time"),
}).strict();

/** A perimeter line a → b; `inside` says which side (looking from a to b) is inside. */
export const PerimeterLineSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  a: point,
  b: point,
  inside: z.enum(['left', 'right']).default('left'),
}).strict();

/** Security analytics options (node config and `SecurityAnalyzer`). */
export const SecurityOptionsSchema = z.object({
  zones: z.array(SecurityZoneSchema).default([]),
  perimeter: z.array(PerimeterLineSchema).default([]),
  authorized_zones: z.array(z.string()).default([]).describe('zone ids (e.g. at a badge reader) where a person becomes authorised by standing authorize_seconds'),
  authorize_seconds: z.number().min(0).default(3),
  authorization_ttl_seconds: z.number().positive().default(600).describe('how long an authorisation from a zone lasts'),
  min_presence_seconds: z.number().min(0).default(2).describe('time inside an armed zone before it is an intrusion'),
  line_hysteresis_m: z.number().min(0).default(0.3).describe('a person must be this far past a line to count as on the other side'),
  utc_offset_minutes: z.number().int().min(-840).max(840).default(0).describe('site time zone, for armed schedules'),
  crowd_radius_m: z.number().positive().default(1.5),
  crowd_density: z.number().positive().default(0.5).describe('people per m² within crowd_radius_m of someone that counts as a crowd'),
  crowd_min_persons: z.number().int().min(2).default(3),
  crowd_min_seconds: z.number().min(0).default(10).describe('the density must hold this long to be a crowd formation'),
  alert_cooldown_seconds: z.number().min(0).default(120),
  report_interval_seconds: z.number().positive().default(60),
  max_frame_gap_seconds: z.number().positive().default(2),
}).strict();

/** Validated security options. */
export type SecurityOptions = z.output<typeof SecurityOptionsSchema>;
/** Security options as given. */
export type SecurityOptionsInput = z.input<typeof SecurityOptionsSchema>;

/** Parse options with clear errors (unique ids, real polygons and lines, authorised zones declared). */
export function parseSecurityOptions(input: unknown): SecurityOptions {
  const o = parseAnalyticOptions(SecurityOptionsSchema, input ?? {}, SecurityErrors.optionsInvalid);
  const ids = new Set<string>();
  for (const zone of o.zones) {
    if (ids.has(zone.id)) throw SecurityErrors.optionsInvalid(`zone id ${JSON.stringify(zone.id)} is used twice`);
    if (polygonArea(zone.polygon) < 1e-6) throw SecurityErrors.optionsInvalid(`zone ${JSON.stringify(zone.id)} has no area`);
    ids.add(zone.id);
  }
  for (const id of o.authorized_zones) if (!ids.has(id)) throw SecurityErrors.optionsInvalid(`authorized_zones names ${JSON.stringify(id)}, which is not a declared zone`);
  const lines = new Set<string>();
  for (const line of o.perimeter) {
    if (lines.has(line.id)) throw SecurityErrors.optionsInvalid(`perimeter line id ${JSON.stringify(line.id)} is used twice`);
    if (Math.hypot(line.b[0] - line.a[0], line.b[1] - line.a[1]) < 1e-6) throw SecurityErrors.optionsInvalid(`perimeter line ${JSON.stringify(line.id)} has zero length`);
    lines.add(line.id);
  }
  return o;
}
