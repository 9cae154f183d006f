// Public entry of @wiflow/plugin-sensing: per-link sensing from CSI, the room combination, nodes and CLI commands.
import { definePlugin } from '@wiflow/core';
import { registerSenseCommand } from './cli/sense-command.js';
import { registerEvalRealCommand } from './cli/eval-real-command.js';
import { registerEvalSimCommand } from './cli/eval-sim-command.js';
import { sensingNodes } from './nodes/sensing-nodes.js';

export { SenseErrorCodes, senseErrorCatalogue } from './errors.js';
export { SensingConfigSchema, SENSING_ESTIMATOR_ID, sensingConfigHash, type SensingConfig, type SensingModels } from './config.js';
export { fitLogistic, predictLogistic, pickFeatures, type LogisticModel, type FitOptions } from './model/logistic.js';
export { DEFAULT_SENSING_MODELS } from './model/defaults.js';
export { LinkSensor, radioFamily, motionInputs, FALL_FEATURES, MOTION_FEATURES, MOTION_FLOOR_FEATURES, RECENT_SECONDS, RECENT_STATES, type LinkSensorOptions, type LinkSensorStats, type LinkSnapshot, type MotionFeatures, type FallCandidate } from './signal/link-sensor.js';
export { MotionFloor, belowFloor } from './signal/motion-floor.js';
export { linkReadiness, MIN_PACKETS_PER_SECOND, GRID_PACKETS_PER_SECOND, type LinkReadiness, type ReadinessCheck, type ReadinessVerdict, type SensingCapability } from './signal/readiness.js';
export { eventFeatures, PROFILE_FEATURES, PROFILE_RATE_HZ, type ProfileKind, type StreamWindow, type WindowEvent } from './falls/velocity-profile.js';
export { ProfileFallDetector, profileFallsApply, type ProfileEvent, type ProfileFallOptions } from './falls/profile-falls.js';
export { PROFILE_FALL_MODEL, PROFILE_FALL_MODEL_HASH } from './falls/profile-fall-model.js';
export { breathingSpectrumPeak, type BreathingEstimate } from './signal/breathing-spectrum.js';
export { periodicImpulses, type PeriodicImpulses, type PeriodicImpulseOptions } from './signal/periodic-impulses.js';
export { combineRoomSecond } from './room.js';
export { EmptyRoomReferenceRecorder, referenceLinkKey, type LinkReference } from './signal/empty-room-reference.js';
export { senseCapture, readEmptyRoomReference, type SenseCaptureOptions, type SenseCaptureResult } from './sense-capture.js';
export { summarize, secondLine, registerSenseCommand, type SenseSummary } from './cli/sense-command.js';
export { evaluateReal, formatEvaluation, defaultRealRoot, gyroRate, personOf, withoutCopies, type RealEvaluation, type RealEvalOptions, type ProtocolResult } from './eval/real-eval.js';
export { senseLinkNode, senseRoomNode, sensingNodes, SenseLinkConfig, SenseRoomConfig, type SenseLinkDetails } from './nodes/sensing-nodes.js';
export { senseAlertsNode, SenseAlertsConfig, SENSE_FALL_RULE, SENSE_INACTIVITY_RULE, SENSE_PRESENCE_RULE } from './nodes/sense-alerts.js';

/** The plugin's name, used when tapping hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-sensing';

/** The sensing plugin: `sense.link`, `sense.room` and `sense.alerts` nodes, `wiflow sense`, `wiflow eval-real` and `wiflow eval-sense-sim`. */
export default definePlugin({
  name: PLUGIN_NAME,
  setup(ctx) {
    for (const node of sensingNodes) ctx.registerNode(node);
    ctx.registerCommand((program, cli) => {
      registerSenseCommand(program, (line) => cli.print(line));
      registerEvalRealCommand(program, (line) => cli.print(line));
      registerEvalSimCommand(program, (line) => cli.print(line));
    });
  },
});
export { registerEvalSimCommand } from './cli/eval-sim-command.js';
export { evaluateSim, FallTruth, fitSimModels, runSimSession, scoreSimRuns, formatSimEvaluation, simulateSensingReference, SIM_REFERENCE_SECONDS, type SimEvaluation, type SimEvalOptions, type SimResult, type SimSessionRun, type SimSessionOptions } from './eval/sim-eval.js';
export { simSessions, SIM_SIZES, type SimSession, type SimSessionKind, type SimSplit, type SimSessionSizes } from './eval/sim-sessions.js';
