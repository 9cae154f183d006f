// Public entry of @wiflow/plugin-retail.
import { definePlugin } from '@wiflow/core';
import { retailNode } from './node.js';

export { RetailAnalyzer, computeRetailMetrics, RETAIL_SOURCE, type RetailMetricsRecord } from './analyzer.js';
export { RetailOptionsSchema, parseRetailOptions, type RetailOptions, type RetailOptionsInput } from './options.js';
export { RetailErrors, retailErrorCatalogue } from './errors.js';
export { retailNode } from './node.js';

/** Plugin name, used to tap hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-retail';

/** The retail plugin: node `retail.analytics`. */
export default definePlugin({
  name: PLUGIN_NAME,
  setup(ctx) {
    ctx.registerNode(retailNode);
  },
});
