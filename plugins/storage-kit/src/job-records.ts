import { StorageErrors, type JobQuery, type JobRecord, type StoredJobStatus } from '@wiflow/core';

/** The six JobStatus values of the flow service models. */
export const JOB_STATUSES: readonly StoredJobStatus[] = Object.freeze(['queued', 'in_progress', 'completed', 'failed', 'cancelled', 'timed_out']);

const nullableTime = (value: unknown) => value === null || Number.isFinite(value);
const nullableText = (value: unknown) => value === null || typeof value === 'string';

/**
 * A job record checked and copied as JSON (what every backend stores, so a read gives back an
 * equal plain object); StorageErrors.invalid names the first bad field.
 */
export function checkJobRecord(job: JobRecord): JobRecord {
  if (typeof job !== 'object' || job === null) throw StorageErrors.invalid('a job must be an object');
  if (typeof job.id !== 'string' || job.id === '') throw StorageErrors.invalid('a job id must be a non-empty string');
  if (!JOB_STATUSES.includes(job.status)) throw StorageErrors.invalid(`job status must be one of ${JOB_STATUSES.join(', ')}, got ${String(job.status)}`);
  if (!Number.isFinite(job.createdAt)) throw StorageErrors.invalid('job createdAt must be a time (ms)');
  for (const key of ['startedAt', 'finishedAt'] as const) if (!nullableTime(job[key])) throw StorageErrors.invalid(`job ${key} must be a time (ms) or null`);
  for (const key of ['flowId', 'flowName', 'userId', 'runnerId', 'error', 'errorCode'] as const) if (!nullableText(job[key])) throw StorageErrors.invalid(`job ${key} must be a string or null`);
  if (!Array.isArray(job.events)) throw StorageErrors.invalid('job events must be an array');
  if (!Number.isInteger(job.eventsOmitted) || job.eventsOmitted < 0) throw StorageErrors.invalid('job eventsOmitted must be an integer >= 0');
  return JSON.parse(JSON.stringify({ ...job, labels: job.labels ?? {}, outputs: job.outputs ?? {} })) as JobRecord;
}

/** Check a job list's filters. */
export function checkJobQuery(query: JobQuery): void {
  for (const status of query.statuses ?? []) if (!JOB_STATUSES.includes(status)) throw StorageErrors.invalid(`unknown job status ${String(status)}`);
}

/** Check `keepNewest`'s count. */
export function checkKeepCount(keep: number): void {
  if (!Number.isInteger(keep) || keep < 0) throw StorageErrors.invalid(`keep must be an integer >= 0, got ${keep}`);
}
