import { DataTypes, defineNode } from '@wiflow/core';
import { analyzerNode } from '@wiflow/analytics-common';
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
    return analyzerNode(ctx, new RetailAnalyzer(ctx.config), ctx.config.report_interval_seconds);
  },
});
