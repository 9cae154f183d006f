import type { Alert, AnalyticsEvent } from './analytics.js';

/** Why a value is not an AnalyticsEvent, or null (sinks check what they are handed). */
export function eventProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'expected an AnalyticsEvent object';
  const v = value as Partial<AnalyticsEvent>;
  if (typeof v.eventId !== 'string') return 'eventId must be a string';
  if (typeof v.type !== 'string' || v.type.length === 0) return 'type must be a non-empty string';
  if (typeof v.environmentId !== 'string') return 'environmentId must be a string';
  if (typeof v.timestamp !== 'number' || !Number.isFinite(v.timestamp)) return 'timestamp must be a finite number (ms)';
  return null;
}

/** Why a value is not an Alert, or null. */
export function alertProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'expected an Alert object';
  const v = value as Partial<Alert>;
  if (typeof v.alertId !== 'string') return 'alertId must be a string';
  if (typeof v.alertType !== 'string' || v.alertType.length === 0) return 'alertType must be a non-empty string';
  if (typeof v.environmentId !== 'string') return 'environmentId must be a string';
  if (typeof v.timestamp !== 'number' || !Number.isFinite(v.timestamp)) return 'timestamp must be a finite number (ms)';
  return null;
}
