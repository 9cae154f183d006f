import { definePlugin } from '@wiflow/core';
import { confidenceFilterNode } from './confidence-filter.js';

export { confidenceFilterNode, ConfidenceFilterConfig } from './confidence-filter.js';

/** The plugin: the name must be the package name. */
export default definePlugin({
  name: 'wiflow-plugin-template',
  setup(ctx) {
    ctx.registerNode(confidenceFilterNode);
  },
});
