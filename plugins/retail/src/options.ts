import { z } from 'zod';
import { parseAnalyticOptions, ZoneSchema } from '@wiflow/analytics-common';
import { RetailErrors } from './errors.js';

/** Retail analytics options (node config and `RetailAnalyzer`). */
export const RetailOptionsSchema = z.object({
  zones: z.array(ZoneSchema).default([]).describe('named floor polygons (m): aisles, displays, checkout...'),
  funnel: z.array(z.string().min(1)).default([]).describe('ordered zone ids of the conversion funnel, e.g. entrance → display → fitting → checkout'),
  zone_capacity: z.record(z.string(), z.number().int().positive()).default({}).describe('alert when more people than this are in a zone at once'),
  min_dwell_seconds: z.number().min(0).default(3).describe('a zone visit shorter than this is a pass-through and is not counted'),
  exit_grace_seconds: z.number().min(0).default(2).describe('leaving a zone for less than this does not end the visit'),
  revisit_gap_seconds: z.number().positive().default(300).describe('a track unseen for longer than this starts a new store visit when seen again'),
  min_visit_seconds: z.number().min(0).default(10).describe('a store visit counts (total and unique visitors, dwell) once it has lasted this long: a person shown for a moment is not a visitor'),
  visit_continuation_seconds: z.number().min(0).default(10).describe('a new track that appears within this long after a visitor\'s track was last seen, near where it was (visit_continuation_m), continues that visit: an estimator that loses a person for a moment does not make a new visitor (0: off)'),
  visit_continuation_m: z.number().positive().default(3).describe('how near (m) to where a visitor was last seen a new track must appear to continue the visit'),
  heat_map_cell_m: z.number().positive().default(0.5).describe('side of a heat-map cell (m)'),
  utc_offset_minutes: z.number().int().min(-840).max(840).default(0).describe('site time zone, for peak hour'),
  alert_cooldown_seconds: z.number().min(0).default(300),
  report_interval_seconds: z.number().positive().default(60).describe('how often (frame time) the node emits its metrics'),
  max_frame_gap_seconds: z.number().positive().default(2).describe('a longer gap between frames is not counted as observed time'),
}).strict();

/** Validated retail options. */
export type RetailOptions = z.output<typeof RetailOptionsSchema>;
/** Retail options as given. */
export type RetailOptionsInput = z.input<typeof RetailOptionsSchema>;

/** Parse options with clear errors: funnel and capacity must name declared zones, zone ids unique. */
export function parseRetailOptions(input: unknown): RetailOptions {
  const o = parseAnalyticOptions(RetailOptionsSchema, input ?? {}, RetailErrors.optionsInvalid);
  const ids = new Set<string>();
  for (const z of o.zones) {
    if (ids.has(z.id)) throw RetailErrors.optionsInvalid(`zone id ${JSON.stringify(z.id)} is used twice`);
    ids.add(z.id);
  }
  for (const id of o.funnel) if (!ids.has(id)) throw RetailErrors.optionsInvalid(`funnel stage ${JSON.stringify(id)} is not a declared zone`);
  if (new Set(o.funnel).size !== o.funnel.length) throw RetailErrors.optionsInvalid('a zone appears twice in the funnel');
  for (const id of Object.keys(o.zone_capacity)) if (!ids.has(id)) throw RetailErrors.optionsInvalid(`zone_capacity names ${JSON.stringify(id)}, which is not a declared zone`);
  return o;
}
