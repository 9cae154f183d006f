import { serviceToken, type PoseAggregateBucket, type PoseFrame, type PoseQuery, type Storage } from '@wiflow/core';

/** What a period report is asked for: a range of stored data (ms since the epoch, inclusive). */
export interface PeriodReportRequest {
  start: number;
  end: number;
  /** One environment, or every environment when absent. */
  environmentId?: string;
}

/** Storage parts a period report reads (any Storage implementation has them). */
export type ReportStorage = Pick<Storage, 'poses' | 'events' | 'alerts' | 'sensing'>;

/**
 * A domain plugin's report of a period, computed from stored data with the plugin's own
 * definitions: the service each domain plugin registers under its `PeriodReportTokens` entry
 * and the pose API's `/analytics/<domain>` route shapes (it never recomputes a metric).
 */
export interface PeriodReportService<R, Q extends PeriodReportRequest = PeriodReportRequest> {
  report(storage: ReportStorage, request: Q): Promise<R>;
}

/** Service tokens of the domain plugins' period reports (resolved by the pose API). */
export const PeriodReportTokens = Object.freeze({
  // The report's shape is the domain plugin's; the pose API names it where it reads one.
  healthcare: serviceToken<PeriodReportService<unknown, any>>('wiflow.analytics.HealthcarePeriodReport'),
  retail: serviceToken<PeriodReportService<unknown, any>>('wiflow.analytics.RetailPeriodReport'),
  security: serviceToken<PeriodReportService<unknown, any>>('wiflow.analytics.SecurityPeriodReport'),
});

/**
 * Every stored pose frame of a query, oldest first, a page at a time: analysers replay them
 * one by one, so a long period costs time, not memory.
 */
export async function* storedFrames(storage: ReportStorage, query: PoseQuery, pageSize = 2000): AsyncGenerator<PoseFrame> {
  let cursor: string | null = null;
  do {
    const page = await storage.poses.scanFrames({ ...query, order: 'asc' }, { cursor, limit: pageSize });
    for (const frame of page.items) yield { ...frame, persons: frame.persons.map((p, i) => ({ ...p, id: p.id ?? i })) };
    cursor = page.hasMore ? page.nextCursor : null;
  } while (cursor);
}

/** Person-minutes per activity of minute buckets: each bucket's mean persons × activity share × 1 min. */
export function activityMinutes(buckets: readonly PoseAggregateBucket[]): Record<string, number> {
  const minutes: Record<string, number> = {};
  for (const b of buckets) for (const [activity, share] of Object.entries(b.activities)) minutes[activity] = (minutes[activity] ?? 0) + b.avgPersonCount * share;
  return minutes;
}
