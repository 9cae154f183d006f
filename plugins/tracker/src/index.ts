// Public entry of @wiflow/plugin-tracker.
import { definePlugin } from '@wiflow/core';
import { registerTrackerCli } from './cli.js';
import { trackNode } from './node.js';
import { TRACKER_SERVICE, TrackerService } from './service.js';

export { MultiPersonTracker, type TrackStatus, type TrackTransition, type TrackStatistics, type TrackerCounters } from './tracker.js';
export { TrackerOptionsSchema, type TrackerOptions, type TrackerOptionsInput } from './options.js';
export { FloorKalman } from './kalman.js';
export { NearestNeighbourTracker } from './baseline.js';
export { assignGated } from './assignment.js';
export { toTrackRecord, type TrackRecord } from './track-records.js';
export { scoreTracking, combineScores, type TrackingScore, type TrackingEvalOptions } from './metrics.js';
export { evaluateTracking, trackObserved, TRACKING_SCENES, type TrackingScene, type TrackingEvaluation, type TrackingEvaluationOptions } from './evaluation.js';
export { TrackerErrors, trackerErrorCatalogue } from './errors.js';
export { trackNode } from './node.js';
export { TRACKER_SERVICE, TrackerService } from './service.js';
export { formatTrackingEvaluation } from './cli.js';

/** Plugin name, used to tap hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-tracker';

/** The tracker plugin: node `tracker.track`, service `tracker.tracks`, command `wiflow eval-tracking`. */
export default definePlugin({
  name: PLUGIN_NAME,
  setup(ctx) {
    ctx.registerNode(trackNode);
    ctx.services.provide(TRACKER_SERVICE, () => new TrackerService());
    ctx.registerCommand((program, cli) => registerTrackerCli(program, cli));
  },
});
