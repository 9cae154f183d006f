import { StorageErrors, type CursorPage, type CursorRequest, type Page, type PageRequest, type SortOrder, type TimeRange } from '@wiflow/core';

/** Build a `Page` from items, the total and the request (shared by every storage implementation). */
export function makePage<T>(items: T[], total: number, request: PageRequest): Page<T> {
  const totalPages = total === 0 ? 0 : Math.ceil(total / request.perPage);
  return {
    items,
    page: request.page,
    perPage: request.perPage,
    total,
    totalPages,
    hasNext: request.page < totalPages,
    hasPrev: request.page > 1,
  };
}

/** Check a page request; throws StorageErrors.invalid. */
export function checkPageRequest(request: PageRequest): void {
  if (!Number.isInteger(request.page) || request.page < 1) throw StorageErrors.invalid(`page must be an integer >= 1, got ${request.page}`);
  if (!Number.isInteger(request.perPage) || request.perPage < 1) throw StorageErrors.invalid(`perPage must be an integer >= 1, got ${request.perPage}`);
}

/**
 * A cursor page from the rows a backend read with `limit + 1` (the extra row only says there is
 * more); the next cursor is the position (e.g. [timestamp, sequence]) of the last row kept. The
 * caller maps `items` to its records.
 */
export function makeCursorPage<R>(rows: R[], request: CursorRequest, total: number, position: (row: R) => (number | string)[]): CursorPage<R> {
  const hasMore = rows.length > request.limit;
  const items = rows.slice(0, request.limit);
  const last = items[items.length - 1];
  return { items, hasMore, nextCursor: hasMore && last !== undefined ? encodeCursor(position(last)) : null, totalCount: total };
}

/** Check a sort order, 'asc' when left out; throws StorageErrors.invalid. */
export function checkSortOrder(order: SortOrder | undefined): SortOrder {
  if (order === undefined) return 'asc';
  if (order !== 'asc' && order !== 'desc') throw StorageErrors.invalid(`order must be asc or desc, got ${String(order)}`);
  return order;
}

/** Check a cursor request's limit; throws StorageErrors.invalid. */
export function checkCursorRequest(request: CursorRequest): void {
  if (!Number.isInteger(request.limit) || request.limit < 1) throw StorageErrors.invalid(`limit must be an integer >= 1, got ${request.limit}`);
}

/** Check a time range: finite numbers, start <= end; throws StorageErrors.invalid. */
export function checkTimeRange(range: TimeRange): void {
  for (const key of ['start', 'end'] as const) {
    const value = range[key];
    if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) throw StorageErrors.invalid(`${key} must be a finite ms timestamp, got ${String(value)}`);
  }
  if (range.start !== undefined && range.end !== undefined && range.start > range.end) throw StorageErrors.invalid(`start (${range.start}) is after end (${range.end})`);
}

/** Encode a position (e.g. [timestamp, sequence]) as an opaque cursor. */
export function encodeCursor(position: (number | string)[]): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/** Decode a cursor made by `encodeCursor` with the given element kinds; throws StorageErrors.invalid on anything else. */
export function decodeCursor(cursor: string, kinds: ('number' | 'string')[]): (number | string)[] {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw StorageErrors.invalid('cursor is not one this storage made');
  }
  if (!Array.isArray(value) || value.length !== kinds.length || value.some((v, i) => typeof v !== kinds[i] || (typeof v === 'number' && !Number.isFinite(v)))) {
    throw StorageErrors.invalid('cursor is not one this storage made');
  }
  return value as (number | string)[];
}
