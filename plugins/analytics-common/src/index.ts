// Public entry of @wiflow/analytics-common: shared code of the tracker and domain analytics.
export { SeededRandom } from './random.js';
export { pointInPolygon, polygonArea, distance, signedDistanceToLine, projectionFraction, segmentsIntersect, type FloorPoint, type Polygon } from './geometry.js';
export { ZoneSchema, parseZones, zonesContaining, TimeWindowSchema, inTimeWindows, type Zone, type TimeWindow } from './zones.js';
export { AlertGate, SEVERITY_ORDER, severityRank, createEvent, alertFromEvent, type EventDraft } from './alert-gate.js';
export { bucketSizeMs, bucketStart, checkTimeRange, isoTime, type Granularity, type OccupancyInterval } from './time-buckets.js';
export { KEYPOINT_INDEX, keypoint3d, hipHeight, shoulderHeight, countedPersons, isHeldPerson, withoutHeldPersons, frameDurations, sortedFrames, type CountOptions } from './pose-frames.js';
export {
  computeSummary, filterEvents, eventCategory, inCategory, computeOccupancy,
  type SummaryInput, type SummaryRecord, type EventCategory, type EventFilter, type OccupancyInput, type OccupancyRecord,
} from './summary.js';
// The spec's event record lives in core (the transports carry it too); re-exported for the analytics' users.
export { toActivityEventRecord, type ActivityEventRecord } from '@wiflow/core';
export { PoseObserver, observeTruth, personFromTruth, projectFrontView, DEFAULT_OBSERVATION_NOISE, NO_OBSERVATION_NOISE, type ObservationNoise } from './observation.js';
export { sceneFrames, simulateScene, SCENE_FALL_TYPES, type SceneSpec, type ScenePerson, type SceneStep, type SceneFallType } from './kinematic-scene.js';
export {
  readFrames, readEvents, readAlerts, summaryFromStorage, occupancyFromStorage, eventsFromStorage, type AnalyticsStorage, type ReadLimits,
} from './storage-readers.js';
export { PeriodReportTokens, activityMinutes, storedFrames, type PeriodReportRequest, type PeriodReportService, type ReportStorage } from './period-report.js';
export { FrameClock, analyzerNode, type FrameAnalyzer } from './frame-clock.js';
export { defineAnalyzerNode, type AnalyzerNodeSpec } from './analyzer-node.js';
export { parseAnalyticOptions } from './analytic-options.js';
