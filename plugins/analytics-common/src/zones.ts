import { z } from 'zod';
import { pointInPolygon, polygonArea, type FloorPoint } from './geometry.js';

const coordinate = z.number().finite();

/** A named floor zone: a polygon of at least three [x, y] vertices in metres. */
export const ZoneSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  polygon: z.array(z.tuple([coordinate, coordinate])).min(3).describe('vertices [x, y] in floor metres'),
}).strict().refine((zone) => polygonArea(zone.polygon) > 1e-6, { message: 'zone polygon has no area (collinear or repeated vertices)' });

/** A validated zone. */
export type Zone = z.output<typeof ZoneSchema>;

/** Parse a list of zones with clear errors, rejecting duplicate ids. */
export function parseZones(input: unknown, label = 'zones'): Zone[] {
  const zones = z.array(ZoneSchema).parse(input);
  const seen = new Set<string>();
  for (const zone of zones) {
    if (seen.has(zone.id)) throw new Error(`${label}: duplicate zone id ${JSON.stringify(zone.id)}`);
    seen.add(zone.id);
  }
  return zones;
}

/** Ids of the zones that contain a point, in list order. */
export function zonesContaining(point: FloorPoint, zones: readonly Zone[]): string[] {
  return zones.filter((zone) => pointInPolygon(point, zone.polygon)).map((zone) => zone.id);
}

const clock = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'time of day as HH:MM (24 h)');

/** A weekly time window: days of the week (0 = Sunday) and a start–end time of day. An end before the start runs past midnight. */
export const TimeWindowSchema = z.object({
  days: z.array(z.number().int().min(0).max(6)).min(1).default([0, 1, 2, 3, 4, 5, 6]),
  start: clock,
  end: clock,
}).strict();

/** A validated time window. */
export type TimeWindow = z.output<typeof TimeWindowSchema>;

function minutesOf(clockText: string): number {
  const [h, m] = clockText.split(':').map(Number);
  return h * 60 + m;
}

/**
 * Whether a wall-clock instant falls inside any of the windows. `utcOffsetMinutes` is the
 * site's offset from UTC (e.g. 60 for UTC+1), so windows are read in site-local time.
 */
export function inTimeWindows(timestamp: number, windows: readonly TimeWindow[], utcOffsetMinutes = 0): boolean {
  const local = new Date(timestamp + utcOffsetMinutes * 60_000);
  const day = local.getUTCDay();
  const minute = local.getUTCHours() * 60 + local.getUTCMinutes();
  for (const window of windows) {
    const start = minutesOf(window.start);
    const end = minutesOf(window.end);
    if (start === end) {
      if (window.days.includes(day)) return true;
    } else if (start < end) {
      if (window.days.includes(day) && minute >= start && minute < end) return true;
    } else {
      // Overnight: the part after start belongs to the listed day, the part before end to the next day.
      if (window.days.includes(day) && minute >= start) return true;
      if (window.days.includes((day + 6) % 7) && minute < end) return true;
    }
  }
  return false;
}
