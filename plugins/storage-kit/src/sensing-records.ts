import { StorageErrors, type SensingFrame, type SensingQuery } from '@wiflow/core';

// The sensing time series as every backend stores it: one row/document per frame, indexed by
// environment, scope, link and time, the frame itself kept whole (it is small: one second).

const STATES = new Set(['empty', 'still', 'moving']);

/** A link as the sensing series names it ('tx>rx'), or null for room frames. */
export function sensingLinkKey(frame: Pick<SensingFrame, 'link'>): string | null {
  return frame.link ? `${frame.link.tx}>${frame.link.rx}` : null;
}

/**
 * Check a frame before it is buffered, so a bad one is refused at `append` (naming the field)
 * rather than failing a background write later.
 */
export function checkSensingFrame(frame: SensingFrame, index = 0): void {
  const at = `sensing frame ${index}`;
  if (typeof frame !== 'object' || frame === null) throw StorageErrors.invalid(`${at} must be an object`);
  if (!Number.isFinite(frame.time)) throw StorageErrors.invalid(`${at}: time must be a finite number (ms)`);
  if (typeof frame.environmentId !== 'string' || frame.environmentId === '') throw StorageErrors.invalid(`${at}: environmentId must be a non-empty string`);
  if (frame.scope !== 'room' && frame.scope !== 'link') throw StorageErrors.invalid(`${at}: scope must be room or link, got ${String(frame.scope)}`);
  if (frame.scope === 'link' && (typeof frame.link !== 'object' || frame.link === null || typeof frame.link.tx !== 'string' || typeof frame.link.rx !== 'string')) throw StorageErrors.invalid(`${at}: a link frame needs link {tx, rx}`);
  if (!STATES.has(frame.state)) throw StorageErrors.invalid(`${at}: state must be empty, still or moving, got ${String(frame.state)}`);
  if (!Array.isArray(frame.falls)) throw StorageErrors.invalid(`${at}: falls must be an array`);
}

/** Check a sensing query's own fields (the time range is checked by `checkTimeRange`). */
export function checkSensingQuery(query: SensingQuery): void {
  if (query.scope !== undefined && query.scope !== 'room' && query.scope !== 'link') throw StorageErrors.invalid(`scope must be room or link, got ${String(query.scope)}`);
  if (query.order !== undefined && query.order !== 'asc' && query.order !== 'desc') throw StorageErrors.invalid(`order must be asc or desc, got ${String(query.order)}`);
}
