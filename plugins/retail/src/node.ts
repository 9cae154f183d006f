import { DataTypes, defineNode, type PoseFrame } from '@wiflow/core';
import { RetailAnalyzer } from './analyzer.js';
import { RetailOptionsSchema } from './options.js';

/** `retail.analytics`: tracked pose frames in; zone events, capacity alerts and the retail metrics record out. */
export const retailNode = defineNode({
  type: 'retail.analytics',
  title: 'Retail analytics',
  category: 'analytics',
  description: 'Visitors (total, unique), peak hour, zone dwell, an ordered conversion funnel, a floor heat map and zone capacity alerts. Needs tracked poses (put tracker.track before it).',
  inputs: { poses: { type: DataTypes.PoseFrame, required: true, description: 'tracked pose frames' } },
  outputs: {
    events: { type: DataTypes.AnalyticsEvent, description: 'zone_entry (after min_dwell_seconds), zone_exit (with dwell), zone_over_capacity' },
    alerts: { type: DataTypes.Alert, description: 'capacity alerts after de-duplication and cool-down' },
    metrics: { type: DataTypes.Json, description: 'retail metrics record (pose spec), periodically and at the end' },
  },
  config: RetailOptionsSchema,
  create(ctx) {
    const analyzer = new RetailAnalyzer(ctx.config);
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
