// Public entry of @wiflow/plugin-evaluation.
import { definePlugin } from '@wiflow/core';
import { registerEvaluationCommands } from './commands.js';

export { describeEvaluationPlan, evaluateEndToEnd, evaluateEmptyRooms, EVALUATION_SIZES, EXAMPLE_SCENARIOS_DIR, type EndToEndOptions, type EndToEndReport, type EmptyRoomReport, type EmptyRoomsOnlyReport, type EvaluationSize, type EvaluationSizeName } from './evaluate-end-to-end.js';
export { EMPTY_ROOM_CONDITIONS, emptiedScenario, phantomsIn, parseEmptyConditions, EmptyRoomTally, type EmptyRoomCondition, type EmptyRoomRow, type Phantom, type PhantomDistractor } from './empty-rooms.js';
export { poissonUpper95, ratePerHour } from '@wiflow/plugin-pose-tfjs';
export { endToEndFlow, runEndToEnd, DEFAULT_ESTIMATOR, type EndToEndRun } from './end-to-end-flow.js';
export { HARDWARE_CHOICES, PLACEMENTS, parseProfile, applyEvaluationProfile, type HardwareChoice, type EvaluationProfile } from '@wiflow/plugin-sim';
export { PLANNER_PROFILES, planHardware, plannerTable, parsePlannerProfiles, describeProfile, type PlannerRow, type PlannerResult, type PlannerOptions } from './hardware-planner.js';
export { threePeopleCrossing } from './crossing-scenario.js';
export { RoomTwinLocators, type RoomTwinLocator } from './room-twin-locators.js';
export { BucketScorer, DETECTED_RADIUS_M, floorStatistics, trueVisits, confirmedTracks, reportedPeople, WARM_UP_SECONDS, type BucketFigures, type FloorErrorStats } from './scoring.js';
export { formatEndToEnd, formatEmptyRooms, mergePlannerFiles, registerEvaluationCommands } from './commands.js';
export { EvaluationErrors, evaluationErrorCatalogue } from './errors.js';

/** Plugin name, the tap name of its hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-evaluation';

/** The evaluation plugin: commands `wiflow eval-e2e` (end to end, per hardware profile) and `wiflow plan-hardware` (every profile, one table). */
export default definePlugin({
  name: PLUGIN_NAME,
  setup(ctx) {
    ctx.registerCommand((program, cli) => registerEvaluationCommands(program, cli));
  },
});
