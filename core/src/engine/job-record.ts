import type { JobRecord, JsonValue, StoredJobEvent } from '../storage/records.js';
import type { JobEvent } from './job-log.js';

/**
 * How much of a job is stored. A job's log can be long (a node may emit thousands of progress
 * events) and an output can be large, so the stored copy is bounded: at most
 * `headEvents + tailEvents` events (the first and the last; the end, with the outputs, is what a
 * reader needs most), each event's data at most `maxEventBytes` of JSON and each output at most
 * `maxOutputBytes`; larger values are replaced by `{ omitted: true, bytes }`. With the defaults a
 * stored job is at most about 2 MiB plus its outputs.
 */
export interface JobRecordLimits {
  headEvents: number;
  tailEvents: number;
  maxEventBytes: number;
  maxOutputBytes: number;
}

/** The bounds documented in docs/flow-service.md ("Jobs after a restart"). */
export const JOB_RECORD_LIMITS: Readonly<JobRecordLimits> = Object.freeze({ headEvents: 50, tailEvents: 450, maxEventBytes: 4096, maxOutputBytes: 262_144 });

/**
 * What a stored job is built from: a job's snapshot fields (the record's, less its bounded parts)
 * and its log. `runnerId`: the runtime that runs it; `eventsOmitted`: events already left out
 * before (a job read back from storage and saved again).
 */
export type JobRecordSource = Omit<JobRecord, 'runnerId' | 'outputs' | 'events' | 'eventsOmitted' | 'heartbeatAt'> & {
  runnerId?: string | null;
  heartbeatAt?: number | null;
  outputs: Record<string, unknown>;
  eventsOmitted?: number;
};

/** A value as JSON within `maxBytes`, or the marker that replaces it (also for values JSON cannot hold). */
function boundedJson(value: unknown, maxBytes: number): JsonValue {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return { omitted: true, reason: 'not JSON' };
  }
  if (text === undefined) return null;
  const bytes = Buffer.byteLength(text);
  if (bytes > maxBytes) return { omitted: true, bytes };
  return JSON.parse(text) as JsonValue;
}

/** The stored form of a job: its fields, outputs and log cut to `limits`. */
export function toJobRecord(job: JobRecordSource, events: readonly JobEvent[], limits: JobRecordLimits = JOB_RECORD_LIMITS): JobRecord {
  const keep = limits.headEvents + limits.tailEvents;
  const kept = events.length <= keep ? events : [...events.slice(0, limits.headEvents), ...events.slice(events.length - limits.tailEvents)];
  const outputs: Record<string, JsonValue> = {};
  for (const [name, value] of Object.entries(job.outputs)) outputs[name] = boundedJson(value, limits.maxOutputBytes);
  return {
    id: job.id,
    flowId: job.flowId,
    flowName: job.flowName,
    userId: job.userId,
    runnerId: job.runnerId ?? null,
    status: job.status,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    error: job.error,
    errorCode: job.errorCode,
    labels: { ...job.labels },
    outputs,
    events: kept.map((e): StoredJobEvent => ({ seq: e.seq, event: e.event, data: boundedJson(e.data, limits.maxEventBytes), timestamp: e.timestamp })),
    eventsOmitted: (job.eventsOmitted ?? 0) + events.length - kept.length,
    heartbeatAt: job.heartbeatAt ?? null,
  };
}
