import { defineError } from '../errors.js';

/**
 * Errors every storage implementation raises, so callers (pose API, flow service) can map
 * them to HTTP answers without knowing the backend. Codes are never reused.
 */
export const StorageErrors = {
  /** An optimistic-concurrency check failed: the record changed since the caller read it. */
  conflict: defineError('WIFLOW_STORAGE_CONFLICT', 409, (what: string, expected: number, actual: number) =>
    `${what} was changed meanwhile: expected revision ${expected}, it is at revision ${actual}`),
  /** A unique field (flow name per user, username, ...) is already taken. */
  duplicate: defineError('WIFLOW_STORAGE_DUPLICATE', 409, (what: string, field: string, value: string) =>
    `${what} with ${field} "${value}" already exists`),
  /** The record to update does not exist. */
  notFound: defineError('WIFLOW_STORAGE_NOT_FOUND', 404, (what: string, id: string) => `${what} ${id} not found`),
  /** A query or record is malformed (bad paging, bad cursor, bad time range, missing field). */
  invalid: defineError('WIFLOW_STORAGE_INVALID', 400, (reason: string) => `invalid storage request: ${reason}`),
  /** The storage is not open (before `open()` or after `close()`). */
  closed: defineError('WIFLOW_STORAGE_CLOSED', 503, (kind: string) => `${kind} storage is not open`),
  /** The backend failed (disk full, connection lost, corrupt file). */
  backend: defineError('WIFLOW_STORAGE_BACKEND', 503, (kind: string, reason: string) => `${kind} storage failed: ${reason}`),
} as const;

/** The documented storage error definitions, for docs and tests. */
export const storageErrorCatalogue: { code: string; status: number }[] = Object.values(StorageErrors).map((e) => ({ code: e.code, status: e.status }));
