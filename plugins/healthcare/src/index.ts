// Public entry of @wiflow/plugin-healthcare.
import { definePlugin } from '@wiflow/core';
import { PeriodReportTokens } from '@wiflow/analytics-common';
import { registerHealthcareCli } from './cli.js';
import { healthcareNode } from './node.js';
import { HealthcarePeriodReport, HealthcareReportConfigSchema } from './period-report.js';

export { HealthcareMonitor, mobilityScore, landingSpeed, FALL_RULE, INACTIVITY_RULE, type HealthcareOutput, type FallRecord, type SleepFigures, type TrackHealthFigures } from './monitor.js';
export { HealthcareOptionsSchema, parseHealthcareOptions, type HealthcareOptions, type HealthcareOptionsInput } from './options.js';
export { classifyActivity, type CountedActivity } from './activity.js';
export { computeHealthcareMetrics, healthcareRecord, type HealthcareMetricsRecord } from './metrics.js';
export { evaluateFalls, BASELINE_FALL_OPTIONS, fallTrialScene, dailyActivityScene, type FallEvaluation, type FallEvaluationOptions } from './evaluation.js';
export { formatFallEvaluation } from './cli.js';
export { HealthcarePeriodReport, HealthcareReportConfigSchema, HEALTHCARE_REPORT_METRICS, type HealthcarePeriodRecord, type HealthcarePeriodRequest, type HealthcareReportMetric } from './period-report.js';
export { HealthcareErrors, healthcareErrorCatalogue } from './errors.js';
export { healthcareNode, GROUND_TRUTH_MODEL_IDS } from './node.js';
export { SensingHealthMonitor, sensingMobilityScore, SENSING_MOBILITY_RULE, SENSING_SLEEP_RULE, type HealthcareSensingRecord, type SensedFall } from './sensing.js';

/** Plugin name, used to tap hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-healthcare';

/** The healthcare plugin: node `healthcare.monitor`, command `wiflow eval-falls`, config section `healthcare`, service `PeriodReportTokens.healthcare`. */
export default definePlugin({
  name: PLUGIN_NAME,
  config: { healthcare: HealthcareReportConfigSchema },
  setup(ctx) {
    ctx.registerNode(healthcareNode);
    ctx.services.provide(PeriodReportTokens.healthcare, () => new HealthcarePeriodReport(() => ctx.config.healthcare));
    ctx.registerCommand((program, cli) => registerHealthcareCli(program, cli));
  },
});
