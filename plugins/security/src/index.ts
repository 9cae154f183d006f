// Public entry of @wiflow/plugin-security.
import { definePlugin } from '@wiflow/core';
import { PeriodReportTokens } from '@wiflow/analytics-common';
import { ACCESS_SERVICE, AccessService } from './access.js';
import { securityNode } from './node.js';
import { SecurityPeriodReport } from './period-report.js';

export { SecurityAnalyzer, computeSecurityMetrics, INTRUSION_RULE, PERIMETER_RULE, CROWD_RULE, type SecurityMetricsRecord } from './analyzer.js';
export { SecurityOptionsSchema, SecurityZoneSchema, PerimeterLineSchema, parseSecurityOptions, type SecurityOptions, type SecurityOptionsInput } from './options.js';
export { AccessService, ACCESS_SERVICE, type AccessGrant } from './access.js';
export { SecurityPeriodReport, type SecurityPeriodRecord } from './period-report.js';
export { SecurityErrors, securityErrorCatalogue } from './errors.js';
export { securityNode } from './node.js';

/** Plugin name, used to tap hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-security';

/** The security plugin: node `security.analytics`, services `security.access` (AccessService) and `PeriodReportTokens.security`. */
export default definePlugin({
  name: PLUGIN_NAME,
  setup(ctx) {
    ctx.registerNode(securityNode);
    ctx.services.provide(ACCESS_SERVICE, () => new AccessService());
    ctx.services.provide(PeriodReportTokens.security, () => new SecurityPeriodReport());
  },
});
