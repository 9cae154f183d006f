import { toActivityEventRecord, toAlertRecord, type Alert, type AnalyticsEvent } from '@wiflow/core';

/**
 * The JSON body of a delivery (documented in docs/transports.md). `data` uses the pose
 * service's wire conventions: snake_case fields, ISO 8601 timestamps.
 */
export interface WebhookPayload {
  /** Delivery id, the same on every attempt (header X-Wiflow-Delivery). */
  id: string;
  webhook_id: string;
  /** `alert.<alert_type>`, `event.<type>` or `webhook.ping`. */
  type: string;
  /** When wiflow created the delivery. */
  created_at: string;
  environment_id: string | null;
  data: Record<string, unknown>;
}

/** A subscription pattern: `*`, `alert.*`, `event.*`, `alert.<type>` or `event.<type>`. */
export const EVENT_TYPE_PATTERN = /^(\*|(alert|event)\.(\*|[A-Za-z0-9_.-]{1,100}))$/;

/** Whether a registration's patterns select an event type (`webhook.ping` is always selected). */
export function matchesEventType(patterns: readonly string[], type: string): boolean {
  if (type === 'webhook.ping') return true;
  for (const pattern of patterns) {
    if (pattern === '*' || pattern === type) return true;
    if (pattern.endsWith('.*') && type.startsWith(pattern.slice(0, -1))) return true;
  }
  return false;
}

/** An analytics event (the pose spec's activity event) plus its source rule. */
export function eventData(event: AnalyticsEvent): Record<string, unknown> {
  return { ...toActivityEventRecord(event) };
}

/** An alert (the pose spec's alert message) plus environment, message, event and source. */
export function alertData(alert: Alert): Record<string, unknown> {
  return { ...toAlertRecord(alert) };
}

/** The shared checks of core's event and alert types. */
export { eventProblem, alertProblem } from '@wiflow/core';
