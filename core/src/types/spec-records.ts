import type { Alert, AnalyticsEvent, Severity } from './analytics.js';
import type { SensingFrame } from './sensing.js';

// The pose spec's wire records of events and alerts (convention B: snake_case fields, ISO 8601
// timestamps), as the pose API, the MQTT topics and the webhook payloads carry them.

/** Activity event record of the pose spec (convention B field names). */
export interface ActivityEventRecord {
  event_id: string;
  type: string;
  severity: Severity;
  timestamp: string;
  environment_id: string;
  person_id: number | null;
  track_id: number | null;
  confidence: number;
  location: { x: number; y: number } | null;
  metadata: Record<string, unknown>;
  actions_taken: string[];
  source: string;
}

/** Alert message of the pose spec plus environment, message, event and source. */
export interface AlertRecord {
  alert_id: string;
  timestamp: string;
  alert_type: string;
  severity: Severity;
  environment_id: string;
  message: string;
  data: Record<string, unknown>;
  actions_required: string[];
  event_id: string | null;
  source: string;
}

/** An AnalyticsEvent as the spec's activity event record. */
export function toActivityEventRecord(event: AnalyticsEvent): ActivityEventRecord {
  return {
    event_id: event.eventId,
    type: event.type,
    severity: event.severity,
    timestamp: new Date(event.timestamp).toISOString(),
    environment_id: event.environmentId,
    person_id: event.personId,
    track_id: event.trackId,
    confidence: event.confidence,
    location: event.location,
    metadata: event.metadata,
    actions_taken: event.actionsTaken,
    source: event.source,
  };
}

/** An Alert as the spec's alert message record. */
export function toAlertRecord(alert: Alert): AlertRecord {
  return {
    alert_id: alert.alertId,
    timestamp: new Date(alert.timestamp).toISOString(),
    alert_type: alert.alertType,
    severity: alert.severity,
    environment_id: alert.environmentId,
    message: alert.message,
    data: alert.data,
    actions_required: alert.actionsRequired,
    event_id: alert.eventId,
    source: alert.source,
  };
}

/**
 * A CSI sensing frame (one second of a link or room) in the same conventions: what `/ws/pose`'s
 * `sensing_updates` channel and the MQTT sensing topics carry.
 */
export interface SensingRecord {
  timestamp: string;
  environment_id: string;
  scope: SensingFrame['scope'];
  link: SensingFrame['link'];
  presence: boolean;
  state: SensingFrame['state'];
  motion: number;
  breathing_bpm: number | null;
  breathing_reason: SensingFrame['breathingReason'];
  activity: SensingFrame['activity'];
  falls: { timestamp: string; confidence: number }[];
  lost_fraction: number;
  source: { estimator_id: string; config_hash: string; provenance: SensingFrame['provenance'] };
}

/** A SensingFrame as its wire record. */
export function toSensingRecord(frame: SensingFrame): SensingRecord {
  return {
    timestamp: new Date(frame.time).toISOString(),
    environment_id: frame.environmentId,
    scope: frame.scope,
    link: frame.link,
    presence: frame.presence,
    state: frame.state,
    motion: frame.motion,
    breathing_bpm: frame.breathingBpm,
    breathing_reason: frame.breathingReason,
    activity: frame.activity,
    falls: frame.falls.map((f) => ({ timestamp: new Date(f.time).toISOString(), confidence: f.confidence })),
    lost_fraction: frame.lostFraction,
    source: { estimator_id: frame.estimatorId, config_hash: frame.configHash, provenance: frame.provenance },
  };
}
