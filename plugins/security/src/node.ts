import { DataTypes, defineNode, type PoseFrame } from '@wiflow/core';
import { ACCESS_SERVICE, type AccessService } from './access.js';
import { SecurityAnalyzer } from './analyzer.js';
import { SecurityOptionsSchema } from './options.js';

/** `security.analytics`: tracked pose frames in; intrusion, perimeter and crowd events, alerts and the security metrics record out. */
export const securityNode = defineNode({
  type: 'security.analytics',
  title: 'Security analytics',
  category: 'analytics',
  description: 'Intrusion into armed zones (schedules), perimeter line crossings with direction and authorisation (authorised zones or the security.access service), occupancy and crowd formation. Needs tracked poses (put tracker.track before it).',
  inputs: { poses: { type: DataTypes.PoseFrame, required: true, description: 'tracked pose frames' } },
  outputs: {
    events: { type: DataTypes.AnalyticsEvent, description: 'intrusion, perimeter_crossing, crowd_formation' },
    alerts: { type: DataTypes.Alert, description: 'alerts after de-duplication and cool-down' },
    metrics: { type: DataTypes.Json, description: 'security metrics record (pose spec), periodically and at the end' },
  },
  config: SecurityOptionsSchema,
  create(ctx) {
    let access: AccessService | null = null;
    try {
      access = ctx.services.get(ACCESS_SERVICE);
    } catch {
      access = null; // no plugin service in this runtime: only authorised zones authorise
    }
    const analyzer = new SecurityAnalyzer(ctx.config, access);
    let lastReport: number | null = null;
    let frames = 0;
    return {
      receive(_port, value) {
        const frame = value as PoseFrame;
        const out = analyzer.update(frame);
        frames++;
        for (const e of out.events) ctx.emit('events', e);
        for (const a of out.alerts) ctx.emit('alerts', a);
        lastReport ??= frame.timestamp;
        if (frame.timestamp - lastReport >= ctx.config.report_interval_seconds * 1000) {
          lastReport = frame.timestamp;
          ctx.emit('metrics', analyzer.metrics());
        }
      },
      flush() {
        if (frames > 0) ctx.emit('metrics', analyzer.metrics());
      },
    };
  },
});
