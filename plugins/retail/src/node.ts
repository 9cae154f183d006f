import { defineAnalyzerNode } from '@wiflow/analytics-common';
import { RetailAnalyzer } from './analyzer.js';
import { RetailOptionsSchema } from './options.js';

/** `retail.analytics`: tracked pose frames in; zone events, capacity alerts and the retail metrics record out. */
export const retailNode = defineAnalyzerNode({
  type: 'retail.analytics',
  title: 'Retail analytics',
  description: 'Visitors (total, unique), peak hour, zone dwell, an ordered conversion funnel, a floor heat map and zone capacity alerts. Needs tracked poses (put tracker.track before it).',
  outputs: {
    events: 'zone_entry (after min_dwell_seconds), zone_exit (with dwell), zone_over_capacity',
    alerts: 'capacity alerts after de-duplication and cool-down',
    metrics: 'retail metrics record (pose spec), periodically and at the end',
  },
  config: RetailOptionsSchema,
  analyzer: (ctx) => new RetailAnalyzer(ctx.config),
});
