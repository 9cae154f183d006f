/** Summary granularity of the pose spec (GET /analytics/summary). */
export type Granularity = 'hour' | 'day' | 'week';
/** Occupancy interval of the pose spec (GET /analytics/occupancy). */
export type OccupancyInterval = '5min' | '15min' | '1hour';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Length of a granularity or interval in ms. */
export function bucketSizeMs(size: Granularity | OccupancyInterval): number {
  switch (size) {
    case '5min':
      return 5 * MINUTE;
    case '15min':
      return 15 * MINUTE;
    case '1hour':
    case 'hour':
      return HOUR;
    case 'day':
      return DAY;
    case 'week':
      return 7 * DAY;
    default:
      throw new Error(`unknown bucket size ${JSON.stringify(size)}: use hour, day, week, 5min, 15min or 1hour`);
  }
}

/**
 * Start of the bucket holding `timestamp` (UTC). Weeks start on Monday 00:00 UTC; other
 * sizes are aligned to the epoch (so hours and days fall on UTC boundaries).
 */
export function bucketStart(timestamp: number, size: Granularity | OccupancyInterval): number {
  const ms = bucketSizeMs(size);
  if (size === 'week') {
    const monday = 4 * DAY; // 1970-01-05 was a Monday
    return Math.floor((timestamp - monday) / ms) * ms + monday;
  }
  return Math.floor(timestamp / ms) * ms;
}

/** Validate a time range: finite, start before end. */
export function checkTimeRange(start: number, end: number): void {
  if (!Number.isFinite(start) || !Number.isFinite(end)) throw new Error(`time range needs finite start and end, got ${start} and ${end}`);
  if (end <= start) throw new Error(`time range end (${new Date(end).toISOString()}) must be after start (${new Date(start).toISOString()})`);
}

/** ISO 8601 with milliseconds. */
export function isoTime(timestamp: number): string {
  return new Date(timestamp).toISOString();
}
