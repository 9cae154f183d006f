// Public entry of @wiflow/plugin-pose-tfjs.
import path from 'node:path';
import { definePlugin } from '@wiflow/core';
import { registerPoseCommands } from './cli/commands.js';
import { poseEstimateNode } from './nodes/pose-estimate.js';
import { poseLocateNode } from './nodes/pose-locate.js';
import { poseRoomNode } from './room-pose/pose-room-node.js';
import { REFERENCE_DESK, ReferenceDesk } from './locate/reference-desk.js';

export { setupBackend, backendReport, type BackendReport, type BackendOptions, type PoseBackendName } from './backend/backend.js';
export { registerWasmConv2DBackpropFilter } from './backend/conv2d-backprop-filter.js';
export { fileIOHandler, hashModelWeights, MODEL_JSON, WEIGHTS_BIN } from './model/file-io-handler.js';
export { ModelSpecSchema, readModelSpec, frameFeatureSize, geometryFeatureSize, POSE_CONTRACT, MODEL_SPEC_JSON, SLOT_SIZE, type ModelSpec } from './model/contract.js';
export { EnvironmentGeometrySchema, VirtualCameraSchema, projectPoint, defaultCamera, type EnvironmentGeometry, type VirtualCamera, type ProjectedPoint } from './model/environment.js';
export { buildPoseNetwork, DEFAULT_ARCHITECTURE, type ArchitectureOptions } from './model/architecture.js';
export { validateWindow, writeLinkFeatures, writeGeometryFeatures, sampleSizes } from './model/features.js';
export { encodeTarget, decodeSlots, type DecodedPerson } from './model/targets.js';
export { PoseModel, SHIPPED_MODEL_DIR } from './model/pose-model.js';
export { loadModelCached } from './model/model-cache.js';
export { PoseEstimator, type AssembledSample, type PoseEstimatorOptions } from './model/pose-estimator.js';
export { toPersons, projectKeypoints, keypointBox, type DensePoseMode } from './model/persons.js';
export { deriveBodyParts, deriveIuv, DENSE_POSE_PARTS, type DerivedBodyParts, type DerivedIuv } from './dense/dense-pose.js';
export { setLoss, DEFAULT_LOSS_WEIGHTS, type LossWeights } from './training/loss.js';
export { DatasetPacker, inputStatistics, subsetDataset, saveDataset, loadDataset, type PoseSample, type PackedDataset } from './training/dataset.js';
export { trainPoseModel, type TrainOptions, type TrainProgress, type TrainResult } from './training/trainer.js';
export { evaluateSamples, matchPeople, meanPose, placePose, scoredHypotheses, scoredPairs, type EvaluationReport, type BucketMetrics, type BaselineMetrics, type EvaluatedSample, type PoseHypothesis } from './eval/metrics.js';
export { evaluateModel } from './eval/evaluate.js';
export { formatEvaluation } from './eval/format.js';
export { poissonUpper95, ratePerHour } from './eval/poisson-bound.js';
export { calibrateModel, scoreOnLabels, formatCalibration, type CalibrationOptions, type CalibrationResult, type CalibrationMetrics, type LabelledSample } from './calibrate/calibrate.js';
export { readCocoLabels, CocoLabelsSchema, type LabelledInstant } from './calibrate/coco-labels.js';
export { environmentFromScenario, environmentFromScenarioFile, type ScenarioGeometry } from './sim/environment-from-scenario.js';
export { DatasetRecipeSchema, type DatasetRecipe } from './sim/recipe.js';
export { simulatorFingerprint } from './sim/simulator-fingerprint.js';
export { splitSessions, SPLIT_NAMES, SECOND_VALIDATION_SEED_SUFFIX, type SplitName } from './sim/pose-dataset.js';
export { PoseErrors, poseErrorCatalogue } from './errors.js';
export { poseEstimateNode, PoseEstimateConfig } from './nodes/pose-estimate.js';
export { registerPoseCommands } from './cli/commands.js';
export { poseLocateNode, PoseLocateConfig } from './nodes/pose-locate.js';
export { PeopleTracker, PeopleTrackerSettingsSchema, type PeopleTrackerSettings } from './locate/people-tracker.js';
export { PoseLocator, hypothesesFromEvidence, type LocatedInstant, type PeakEvidence, type PoseLocatorOptions } from './locate/locator.js';
export { RoomImager, type ImagingSettings, type ImagePeak, type RoomImage } from './locate/imager.js';
export { antennaSpectrum, sourcesAboveNoise, type HeldChange } from './locate/change-rank.js';
export { alignPacket, chooseGainModel, GainModelSchema, type GainModel, type AlignOptions, type AlignedPacket, ReferenceRecorder, readReference, writeReference, EmptyRoomReferenceSchema, type EmptyRoomReference, type LinkReference } from './locate/reference.js';
export { checkReferenceFitsEnvironment, checkFrameFitsReference, referenceForEnvironment, linkKey } from './locate/reference-check.js';
export { EmptyRoomRecording, RecordingQualitySchema, type RecordingQuality, type RecordingReport, type LinkQuality } from './locate/reference-recording.js';
export { ReferenceStaleness, StalenessSettingsSchema, type StalenessSettings, type StalenessChainGain, type StalenessVerdict, type LinkStaleness, type StillSecond } from './locate/reference-staleness.js';
export { ReferenceRefresh, RefreshSettingsSchema, type RefreshSettings, type RefreshState, type ReferenceVersion, type EmptinessJudge } from './locate/reference-refresh.js';
export { ReferenceDesk, REFERENCE_DESK, DEFAULT_RECORDING_SECONDS, type RoomBinding, type RecordingView } from './locate/reference-desk.js';
export { calibrateLink, arrayElements, type LinkCalibration } from './locate/calibration.js';
export { loadLocatorModel, writeLocatorModel, LocatorModelSchema, SHIPPED_LOCATOR_DIR, LOCATOR_JSON, countFeatures, countProbabilities, trainCountHead, type LocatorModel, type LocatorModelSpec } from './locate/locator-model.js';
export { evaluateLocator, fitLocator, locateSplit, simulateReference, withRealism, DEFAULT_LOCATOR, REFERENCE_SECONDS, type RealismLevel } from './locate/simulated.js';
export { fitTwinCount, twinEvidence, fitCountBias, withCountBias, withBirthMargin, chooseBirthMargin, twinCountAccuracy, TWIN_COUNT, type TwinEstimate, type TwinCountRecord } from './locate/twin-count.js';
export { loadHardwareProfile, fittedProfileName, RECIPE_PROFILE, type HardwareProfile, type PlanScenario } from './locate/hardware-profile.js';
export { AntennaArraySchema } from './model/environment.js';
export { poseRoomNode, PoseRoomConfig } from './room-pose/pose-room-node.js';
export { PersonProbe, DEFAULT_PROBE, probeFeatureSize, type ProbeSettings } from './room-pose/person-probe.js';
export { loadRoomPoseModel, saveRoomPoseModel, fitRoomPose, predictSkeleton, RoomPoseSpecSchema, ROOM_POSE_MODEL_ID, ROOM_POSE_JSON, ROOM_POSE_WEIGHTS, type RoomPoseModel, type RoomPoseSpec, type RoomPoseRows, type FitOptions } from './room-pose/room-pose-model.js';
export { RoomPoseEstimator, trainingRows, locatedMeanPose, labelledPosition, productSkeleton, productHypotheses, roomModelProduct, roomModelEstimatorId, type RoomPoseInstant } from './room-pose/room-pose-estimator.js';
export { ROOM_POSE_PRODUCTS, MIN_HELD_OUT, HELD_OUT_FRACTION, RoomPoseChoiceSchema, chooseProduct, labelledMeanPosture, centreOnHips, splitByTime, splitAtEnd, type RoomPoseProduct, type RoomPoseChoice } from './room-pose/room-pose-choice.js';
export { chooseOnHeldOut3d, type HeldOutEstimate } from './room-pose/room-pose-candidates.js';
export { readLabelledRoomRecording, checkCameraFitsRoom, RECORDING_FILES, type LabelledRoomRecording } from './room-pose/labelled-room-recording.js';
export { calibrateRoom, formatRoomCalibration, roomModelDirectory, twinFromEnvironment, type CalibrateRoomOptions, type RoomCalibrationResult, type HeldOutFigures } from './room-pose/calibrate-room.js';
export { evaluateCalibrated, formatCalibratedReport, BUDGETS, ROOM_POSE_TRAINING, type CalibratedReport, type CalibratedFigures, type CalibratedChoice } from './room-pose/eval-calibrated.js';
export { roomCalibrationStatus, writeCalibrationRecord, calibrateCommand, CalibrationRecordSchema, CALIBRATION_RECORD, type CalibrationRecord } from './room-pose/calibration-record.js';
export { evaluateReprojection, formatReprojectionReport, type ReprojectionReport, type ReprojectionFigure } from './room-pose/eval-reprojection.js';
export { floorFromKeypoints2d, reprojectionRows, reprojectionErrorPx, packReprojectionRows, type ReprojectionRow } from './room-pose/reprojection.js';
export { drawRoomPair, sessionScenario, runSession, cameraLabel, writeLabelledSession, protocolSessions, FULL_PROTOCOL, SMALL_PROTOCOL, type RoomPair, type SessionPlan, type ProtocolSizes } from './room-pose/protocol.js';

/** Plugin name, the tap name of its hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-pose-tfjs';

/** The pose plugin: nodes `pose.estimate`, `pose.locate` and `pose.room`; commands `wiflow train`, `wiflow eval`, `wiflow calibrate`, `wiflow locate`. */
export default definePlugin({
  name: PLUGIN_NAME,
  setup(ctx) {
    ctx.registerNode(poseEstimateNode);
    ctx.registerNode(poseLocateNode);
    ctx.registerNode(poseRoomNode);
    // Where `wiflow calibrate` writes room models by default, so the Installer page sees them.
    ctx.services.provide(REFERENCE_DESK, () => new ReferenceDesk(path.join(ctx.dataDir, 'room-pose')));
    ctx.registerCommand((program, cli) => registerPoseCommands(program, cli));
  },
});
