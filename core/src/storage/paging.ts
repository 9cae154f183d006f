/** Page/per_page paging (convention B of the pose API, the flow service lists). Pages start at 1. */
export interface PageRequest {
  /** 1-based page number. */
  page: number;
  /** Items per page, at least 1. Storage enforces no maximum; the API layer does. */
  perPage: number;
}

/** One page of a page/per_page query. */
export interface Page<T> {
  items: T[];
  page: number;
  perPage: number;
  /** Items matching the query across all pages. */
  total: number;
  totalPages: number;
  hasNext: boolean;
  hasPrev: boolean;
}

/** Cursor paging (convention A of the pose API): stable under concurrent inserts. */
export interface CursorRequest {
  /** Opaque cursor from a previous page's `nextCursor`; absent or null for the first page. */
  cursor?: string | null;
  /** Items wanted, at least 1. */
  limit: number;
}

/** One page of a cursor query. */
export interface CursorPage<T> {
  items: T[];
  /** Pass back to get the next page; null when this is the last one. */
  nextCursor: string | null;
  hasMore: boolean;
  /** Items matching the query in total (all pages, ignoring the cursor). */
  totalCount: number;
}

/** Sort direction by timestamp (ties broken by insertion order). */
export type SortOrder = 'asc' | 'desc';

/** An inclusive time range in wall-clock ms since the epoch; either end may be open. */
export interface TimeRange {
  /** Earliest timestamp included (ms). */
  start?: number;
  /** Latest timestamp included (ms). */
  end?: number;
}
