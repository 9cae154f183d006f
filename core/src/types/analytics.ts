/** Severity of an analytics event or alert. */
export type Severity = 'low' | 'medium' | 'high' | 'critical';

/** An event detected by an analytic (pose spec: activity event). */
export interface AnalyticsEvent {
  eventId: string;
  /** e.g. 'fall_detection', 'inactivity', 'intrusion', 'perimeter_crossing', 'zone_entry'. */
  type: string;
  severity: Severity;
  /** Wall-clock ms. */
  timestamp: number;
  environmentId: string;
  personId: number | null;
  trackId: number | null;
  confidence: number;
  location: { x: number; y: number } | null;
  metadata: Record<string, unknown>;
  actionsTaken: string[];
  /** Which analytic and rule produced it, e.g. 'healthcare.fall/hip-drop-v1'. */
  source: string;
}

/** An alert raised to people (pose spec: alert message). */
export interface Alert {
  alertId: string;
  alertType: string;
  severity: Severity;
  timestamp: number;
  environmentId: string;
  message: string;
  data: Record<string, unknown>;
  actionsRequired: string[];
  /** The event that raised it. */
  eventId: string | null;
  source: string;
}
