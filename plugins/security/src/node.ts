import { DataTypes, defineNode } from '@wiflow/core';
import { analyzerNode } from '@wiflow/analytics-common';
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
    return analyzerNode(ctx, new SecurityAnalyzer(ctx.config, access), ctx.config.report_interval_seconds);
  },
});
