import { DataTypes, defineNode, type PoseFrame } from '@wiflow/core';
import { HealthcareOptionsSchema } from './options.js';
import { HealthcareMonitor } from './monitor.js';
import { healthcareRecord } from './metrics.js';

/**
 * `healthcare.monitor`: tracked pose frames in; fall and inactivity events and alerts out,
 * and the healthcare metrics record every report_interval_seconds (frame time) and at the end.
 */
export const healthcareNode = defineNode({
  type: 'healthcare.monitor',
  title: 'Healthcare monitor',
  category: 'analytics',
  description: 'Fall detection (hip-drop rule) with severity, response time and recovery; inactivity alerts; activity minutes; mobility score; sleep quality. Needs tracked poses (put tracker.track before it).',
  inputs: { poses: { type: DataTypes.PoseFrame, required: true, description: 'tracked pose frames' } },
  outputs: {
    events: { type: DataTypes.AnalyticsEvent, description: 'fall_detection (re-sent with the same eventId on recovery or escalation) and inactivity events' },
    alerts: { type: DataTypes.Alert, description: 'alerts after de-duplication and cool-down' },
    metrics: { type: DataTypes.Json, description: 'healthcare metrics record (pose spec), periodically and at the end' },
  },
  config: HealthcareOptionsSchema,
  create(ctx) {
    const monitor = new HealthcareMonitor(ctx.config);
    let inactivity = 0;
    let lastReport: number | null = null;
    return {
      receive(_port, value) {
        const frame = value as PoseFrame;
        const out = monitor.update(frame);
        for (const e of out.events) {
          if (e.type === 'inactivity') inactivity++;
          ctx.emit('events', e);
        }
        for (const a of out.alerts) ctx.emit('alerts', a);
        lastReport ??= frame.timestamp;
        if (frame.timestamp - lastReport >= ctx.config.report_interval_seconds * 1000) {
          lastReport = frame.timestamp;
          ctx.emit('metrics', healthcareRecord(monitor, { inactivityAlerts: inactivity }));
        }
      },
      flush() {
        if (monitor.timeSpan) ctx.emit('metrics', healthcareRecord(monitor, { inactivityAlerts: inactivity }));
      },
      stats: () => ({ falls: monitor.falls().length, inactivity_events: inactivity, ignored_detections: monitor.ignoredDetections }),
    };
  },
});
