import { defineAnalyzerNode } from '@wiflow/analytics-common';
import { ACCESS_SERVICE, type AccessService } from './access.js';
import { SecurityAnalyzer } from './analyzer.js';
import { SecurityOptionsSchema } from './options.js';

/** `security.analytics`: tracked pose frames in; intrusion, perimeter and crowd events, alerts and the security metrics record out. */
export const securityNode = defineAnalyzerNode({
  type: 'security.analytics',
  title: 'Security analytics',
  description: 'Intrusion into armed zones (schedules), perimeter line crossings with direction and authorisation (authorised zones or the security.access service), occupancy and crowd formation. Needs tracked poses (put tracker.track before it).',
  outputs: {
    events: 'intrusion, perimeter_crossing, crowd_formation',
    alerts: 'alerts after de-duplication and cool-down',
    metrics: 'security metrics record (pose spec), periodically and at the end',
  },
  config: SecurityOptionsSchema,
  analyzer(ctx) {
    let access: AccessService | null = null;
    try {
      access = ctx.services.get(ACCESS_SERVICE);
    } catch {
      access = null; // no plugin service in this runtime: only authorised zones authorise
    }
    return new SecurityAnalyzer(ctx.config, access);
  },
});
