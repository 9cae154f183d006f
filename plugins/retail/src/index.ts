// Public entry of @wiflow/plugin-retail.
import { definePlugin } from '@wiflow/core';
import { PeriodReportTokens } from '@wiflow/analytics-common';
import { retailNode } from './node.js';
import { RetailPeriodReport, RetailReportConfigSchema } from './period-report.js';
import type { RetailOptionsInput } from './options.js';

export { RetailAnalyzer, computeRetailMetrics, RETAIL_SOURCE, type RetailMetricsRecord } from './analyzer.js';
export { RetailOptionsSchema, parseRetailOptions, type RetailOptions, type RetailOptionsInput } from './options.js';
export { RetailPeriodReport, RetailReportConfigSchema } from './period-report.js';
export { RetailErrors, retailErrorCatalogue } from './errors.js';
export { retailNode } from './node.js';

/** Plugin name, used to tap hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-retail';

/** The retail plugin: node `retail.analytics`, config section `retail`, service `PeriodReportTokens.retail`. */
export default definePlugin({
  name: PLUGIN_NAME,
  config: { retail: RetailReportConfigSchema },
  setup(ctx) {
    ctx.registerNode(retailNode);
    ctx.services.provide(PeriodReportTokens.retail, () => new RetailPeriodReport(() => ctx.config.retail as RetailOptionsInput));
  },
});
