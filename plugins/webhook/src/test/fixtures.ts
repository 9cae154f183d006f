// Test fixtures: events and alerts shaped like the core types.
import type { Alert, AnalyticsEvent } from '@wiflow/core';

/** An analytics event. */
export function analyticsEvent(type: string, environmentId = 'living-room', id = `evt-${type}`): AnalyticsEvent {
  return { eventId: id, type, severity: 'high', timestamp: Date.UTC(2026, 0, 1, 12, 0, 1), environmentId, personId: 0, trackId: 100, confidence: 0.93, location: { x: 1, y: 2 }, metadata: { fall_duration: 1.2 }, actionsTaken: [], source: 'healthcare.fall/hip-drop-v1' };
}

/** An alert. */
export function alert(alertType: string, environmentId = 'living-room', id = `alert-${alertType}`): Alert {
  return { alertId: id, alertType, severity: 'critical', timestamp: Date.UTC(2026, 0, 1, 12, 0, 2), environmentId, message: `${alertType} in ${environmentId}`, data: { person_id: 0, location: { x: 1, y: 2 }, confidence: 0.93 }, actionsRequired: ['check on person'], eventId: 'evt-fall_detection', source: 'healthcare.fall/hip-drop-v1' };
}

