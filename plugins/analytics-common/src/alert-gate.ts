import { randomUUID } from 'node:crypto';
import type { Alert, AnalyticsEvent, Severity } from '@wiflow/core';

/** Order of severities, lowest first. */
export const SEVERITY_ORDER: readonly Severity[] = ['low', 'medium', 'high', 'critical'];

/** Numeric rank of a severity (low 0 … critical 3). */
export function severityRank(severity: Severity): number {
  return SEVERITY_ORDER.indexOf(severity);
}

/**
 * De-duplication and cool-down of alerts. An alert has a key (its type plus what it is
 * about: a track, a zone); while an alert with the same key was let through less than
 * `cooldownMs` ago, repeats are suppressed — unless the new one is more severe
 * (an escalation always gets through). Time is the alert's own timestamp, so replays and
 * simulations behave as live runs.
 */
export class AlertGate {
  readonly cooldownMs: number;
  readonly #last = new Map<string, { time: number; severity: Severity }>();
  #suppressed = 0;

  constructor(options: { cooldownSeconds: number }) {
    if (!Number.isFinite(options.cooldownSeconds) || options.cooldownSeconds < 0) throw new Error(`alert cool-down must be a non-negative number of seconds, got ${options.cooldownSeconds}`);
    this.cooldownMs = options.cooldownSeconds * 1000;
  }

  /** Whether to raise this alert now; records it when it passes. */
  admit(alert: Alert, key: string): boolean {
    const fullKey = `${alert.alertType}|${key}`;
    const last = this.#last.get(fullKey);
    if (last && alert.timestamp - last.time < this.cooldownMs && severityRank(alert.severity) <= severityRank(last.severity)) {
      this.#suppressed++;
      return false;
    }
    this.#last.set(fullKey, { time: alert.timestamp, severity: alert.severity });
    return true;
  }

  /** How many alerts were suppressed so far. */
  get suppressed(): number {
    return this.#suppressed;
  }

  /** Forget keys older than the cool-down (bounded memory in endless runs). */
  prune(now: number): void {
    for (const [key, last] of this.#last) if (now - last.time >= this.cooldownMs) this.#last.delete(key);
  }
}

/** Fields of a new analytics event; ids and defaults are filled by `createEvent`. */
export type EventDraft = Omit<AnalyticsEvent, 'eventId' | 'actionsTaken' | 'personId' | 'trackId' | 'location' | 'metadata'> &
  Partial<Pick<AnalyticsEvent, 'eventId' | 'actionsTaken' | 'personId' | 'trackId' | 'location' | 'metadata'>>;

/** A complete AnalyticsEvent with a fresh id. */
export function createEvent(draft: EventDraft): AnalyticsEvent {
  return {
    eventId: draft.eventId ?? randomUUID(),
    type: draft.type,
    severity: draft.severity,
    timestamp: draft.timestamp,
    environmentId: draft.environmentId,
    personId: draft.personId ?? null,
    trackId: draft.trackId ?? null,
    confidence: draft.confidence,
    location: draft.location ?? null,
    metadata: draft.metadata ?? {},
    actionsTaken: draft.actionsTaken ?? [],
    source: draft.source,
  };
}

/**
 * The alert an event raises (pose spec §6 alert message): data carries person/track,
 * location and confidence; `message` says it in words.
 */
export function alertFromEvent(event: AnalyticsEvent, options: { alertType?: string; message: string; actionsRequired: string[]; severity?: Severity; data?: Record<string, unknown> }): Alert {
  return {
    alertId: randomUUID(),
    alertType: options.alertType ?? event.type,
    severity: options.severity ?? event.severity,
    timestamp: event.timestamp,
    environmentId: event.environmentId,
    message: options.message,
    data: { person_id: event.personId, track_id: event.trackId, location: event.location, confidence: event.confidence, ...(options.data ?? {}) },
    actionsRequired: options.actionsRequired,
    eventId: event.eventId,
    source: event.source,
  };
}
