// Public entry of @wiflow/plugin-healthcare.
import { definePlugin } from '@wiflow/core';
import { registerHealthcareCli } from './cli.js';
import { healthcareNode } from './node.js';

export { HealthcareMonitor, mobilityScore, landingSpeed, FALL_RULE, INACTIVITY_RULE, type HealthcareOutput, type FallRecord, type SleepFigures, type TrackHealthFigures } from './monitor.js';
export { HealthcareOptionsSchema, parseHealthcareOptions, type HealthcareOptions, type HealthcareOptionsInput } from './options.js';
export { classifyActivity, type CountedActivity } from './activity.js';
export { computeHealthcareMetrics, healthcareRecord, type HealthcareMetricsRecord } from './metrics.js';
export { evaluateFalls, BASELINE_FALL_OPTIONS, fallTrialScene, dailyActivityScene, type FallEvaluation, type FallEvaluationOptions } from './evaluation.js';
export { formatFallEvaluation } from './cli.js';
export { HealthcareErrors, healthcareErrorCatalogue } from './errors.js';
export { healthcareNode } from './node.js';

/** Plugin name, used to tap hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-healthcare';

/** The healthcare plugin: node `healthcare.monitor`, command `wiflow eval-falls`. */
export default definePlugin({
  name: PLUGIN_NAME,
  setup(ctx) {
    ctx.registerNode(healthcareNode);
    ctx.registerCommand((program, cli) => registerHealthcareCli(program, cli));
  },
});
