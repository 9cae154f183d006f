import type { Alert, AlertQuery, AnalyticsEvent, EventQuery, PoseFrame, PoseQuery, Storage } from '@wiflow/core';
import { computeOccupancy, computeSummary, filterEvents, type EventFilter, type OccupancyInput, type OccupancyRecord, type SummaryInput, type SummaryRecord } from './summary.js';

/** Storage parts the readers use (any Storage implementation has them). */
export type AnalyticsStorage = Pick<Storage, 'poses' | 'events' | 'alerts'>;

/** Limits of a read. */
export interface ReadLimits {
  /** Items per storage page (default 2000). */
  pageSize?: number;
  /** Refuse to load more than this many items into memory (default 500 000). */
  maxItems?: number;
}

async function readAll<T>(scan: (cursor: string | null, limit: number) => Promise<{ items: T[]; nextCursor: string | null; hasMore: boolean; totalCount: number }>, what: string, limits: ReadLimits): Promise<T[]> {
  const pageSize = limits.pageSize ?? 2000;
  const max = limits.maxItems ?? 500_000;
  const out: T[] = [];
  let cursor: string | null = null;
  for (;;) {
    const page = await scan(cursor, pageSize);
    if (out.length === 0 && page.totalCount > max) throw new Error(`${page.totalCount} ${what} in the range, more than the ${max} analytics load at once: ask for a shorter range`);
    out.push(...page.items);
    if (out.length > max) throw new Error(`more than ${max} ${what} in the range: ask for a shorter range`);
    if (!page.hasMore || !page.nextCursor) return out;
    cursor = page.nextCursor;
  }
}

/** Pose frames of a range from storage, oldest first (anonymised person ids become their index). */
export async function readFrames(storage: AnalyticsStorage, query: PoseQuery, limits: ReadLimits = {}): Promise<PoseFrame[]> {
  const frames = await readAll((cursor, limit) => storage.poses.scanFrames({ ...query, order: 'asc' }, { cursor, limit }), 'pose frames', limits);
  return frames.map((f) => ({ ...f, persons: f.persons.map((p, i) => ({ ...p, id: p.id ?? i })) }));
}

/** Analytics events of a range from storage, oldest first. */
export function readEvents(storage: AnalyticsStorage, query: EventQuery, limits: ReadLimits = {}): Promise<AnalyticsEvent[]> {
  return readAll((cursor, limit) => storage.events.scan({ ...query, order: 'asc' }, { cursor, limit }), 'events', limits);
}

/** Alerts of a range from storage, oldest first. */
export function readAlerts(storage: AnalyticsStorage, query: AlertQuery, limits: ReadLimits = {}): Promise<Alert[]> {
  return readAll((cursor, limit) => storage.alerts.scan({ ...query, order: 'asc' }, { cursor, limit }), 'alerts', limits);
}

/** GET /analytics/summary from storage: reads the range's frames, events and alerts, then `computeSummary`. */
export async function summaryFromStorage(storage: AnalyticsStorage, input: Omit<SummaryInput, 'frames' | 'events' | 'alerts'>, limits: ReadLimits = {}): Promise<SummaryRecord> {
  const range = { start: input.start, end: input.end, environmentId: input.environmentId };
  const [frames, events, alerts] = await Promise.all([readFrames(storage, range, limits), readEvents(storage, range, limits), readAlerts(storage, range, limits)]);
  return computeSummary({ ...input, frames, events, alerts });
}

/** GET /analytics/occupancy from storage. */
export async function occupancyFromStorage(storage: AnalyticsStorage, input: Omit<OccupancyInput, 'frames'>, limits: ReadLimits = {}): Promise<OccupancyRecord> {
  const frames = await readFrames(storage, { start: input.start, end: input.end, environmentId: input.environmentId }, limits);
  return computeOccupancy({ ...input, frames });
}

/** GET /analytics/events from storage: events of the range filtered as `filterEvents` does (alerts decide the 'alert' category). */
export async function eventsFromStorage(storage: AnalyticsStorage, filter: EventFilter & { start: number; end: number }, limits: ReadLimits = {}): Promise<AnalyticsEvent[]> {
  const range = { start: filter.start, end: filter.end, environmentId: filter.environmentId };
  const [events, alerts] = await Promise.all([readEvents(storage, { ...range, severities: filter.severities ? [...filter.severities] : undefined }, limits), filter.eventType === 'alert' ? readAlerts(storage, range, limits) : Promise.resolve(undefined)]);
  return filterEvents(events, filter, alerts);
}
