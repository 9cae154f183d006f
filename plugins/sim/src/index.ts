import { definePlugin } from '@wiflow/core';
import { registerDatasetCommand, registerRealismCommand, registerSimulateCommand } from './cli/commands.js';
import { truthPosesNode } from './nodes/truth-poses.js';
import { simSourceNode } from './nodes/sim-source.js';

/** This plugin's name, used when it taps hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-sim';

/** @wiflow/plugin-sim: the `sim.source` node and the `simulate` and `dataset` commands. */
const simPlugin = definePlugin({
  name: PLUGIN_NAME,
  setup(ctx) {
    ctx.registerNode(simSourceNode);
    ctx.registerNode(truthPosesNode);
    ctx.registerCommand((program, cli) => {
      registerSimulateCommand(program, cli);
      registerDatasetCommand(program, cli);
      registerRealismCommand(program, cli);
    });
  },
});

export default simPlugin;
export { simPlugin };

// Simulation engine
export { Simulator, DEFAULT_START_TIME_MS, pointInPolygon, roomGeometry, scenarioCamera, type SimulatorOptions, type SimTick, type SimLinkInfo } from './engine/simulator.js';
// Scenarios
export { ScenarioSchema, RoomSchema, RadioSchema, PersonSchema, StepSchema, ZoneSchema, ClutterSchema, CameraSchema, ImpairmentsSchema, ImpairmentOverridesSchema, DistractorSchema, DriftSchema, AntennaPatternSchema, type DistractorSpec, type DriftSpec, type AntennaPatternSpec, type Scenario, type ScenarioInput, type PersonSpec, type ScriptStep, type RadioSpec, type ImpairmentSpec, type ImpairmentOverrides, type CameraSpec, type ZoneSpec } from './scenario/schema.js';
export { loadScenario, parseScenario, validateScenario, resolveScenario } from './scenario/load.js';
export { stillPersonScenario, fallScenario, emptyRoomScenario, dayScenario, type DayKind, type SensingScenarioOptions } from './scenario/sensing-scenarios.js';
export { emptyRoomDistractors } from './scenario/empty-room-distractors.js';
export { hallScenario, type HallScenarioOptions } from './scenario/hall-scenario.js';
export { realismReport, realismFallCapture, type RealismRow, type CaptureReader, type RealismFallCapture } from './realism/realism-report.js';
export { stillSceneStatistics, dopplerStatistics, breathingDepth, fallStatistics, bandShapeMotion, amplitudeSpectrum, captureRateHz } from './realism/capture-stats.js';
export { drawRealism, REALISM_LEVELS, REALISM_EFFECTS, type RealismLevel, type RealismEffect } from './scenario/realism.js';
export { randomScenario, randomRoom, randomPeople, DEFAULT_RANDOM_RANGES, type RandomRanges, type RandomRoom, type RandomScenarioOptions, type Range } from './scenario/randomise.js';
// Datasets
export { planDataset, generateDataset, writeDataset, roomSignature, type DatasetOptions, type DatasetPlan, type DatasetSession, type DatasetSample, type DatasetSplit, type DatasetManifest, type DatasetProgress } from './dataset/dataset.js';
// Virtual camera
export { createVirtualCamera, defaultCamera, projectPoint, projectKeypoints, keypointBoundingBox, groundTruthPersons, type VirtualCamera } from './camera/virtual-camera.js';
// Physics and radios (for inspection, tests and custom tooling)
export { LinkChannel, bodyStateOf, segmentDistance, type LinkGeometry, type PathRecord, type BodyState, type Scatterer, type PointScatterer } from './physics/link-channel.js';
export { imagePaths, insideRoom, SURFACE_NAMES, type RoomGeometry, type ReflectionPath, type SurfaceName } from './physics/room.js';
export { MATERIALS, MATERIAL_NAMES, complexPermittivity, fresnelReflection, type MaterialModel, type MaterialName, type Polarisation } from './physics/materials.js';
export { ellipsoidRcs, ellipsoidBistatic, knifeEdgeLossDb } from './physics/scattering.js';
export { SPEED_OF_LIGHT, SUBCARRIER_SPACING_HZ, wavelength } from './physics/constants.js';
export { subcarrierGrid, DEVICE_KINDS, type DeviceKind, type SubcarrierGrid, type Esp32Field } from './radio/grids.js';
export { antennaPositions, type AntennaArraySpec } from './radio/antennas.js';
export { antennaPattern, type AntennaPattern } from './radio/patterns.js';
export { RadioRealism, radioRealismOn, cyclicShiftS, spatialMappingMatrix, type RadioRealismSettings } from './radio/radio-realism.js';
export { HARDWARE_PROFILES, HARDWARE_PROFILE_NAMES, applyProfile, type HardwareProfile } from './radio/profiles.js';
export { HARDWARE_CHOICES, PLACEMENTS, parseProfile, applyEvaluationProfile, type HardwareChoice, type EvaluationProfile } from './radio/hardware-choices.js';
export { DistractorScene, type CapturePhase } from './scene/distractors.js';
export { StaticDrift } from './scene/drift.js';
export { DEFAULT_IMPAIRMENTS, IMPAIRMENTS_OFF, applyImpairments, drawPacketImpairment, drawChainPhases, type ImpairmentSettings, type PacketImpairment } from './radio/impairments.js';
// People
export { bodyDimensions, forwardKinematics, bodySegments, standingPose, blendPose, K as COCO_INDEX, type BodySize, type BodyDimensions, type PoseParams, type Skeleton, type BodySegment } from './people/skeleton.js';
export { FALL_TYPES, ALL_FALL_TYPES, type FallType, type LyingSide } from './people/motions.js';
export { PersonTimeline, personBreathing, type Posture, type ScriptEvent, type PersonSample } from './people/timeline.js';
export { BreathingPattern, BreathingVariabilitySchema, type BreathingVariability } from './people/breathing.js';
export { PosturalSway, STANDING_SWAY, SITTING_SWAY, SWAY_BAND_HZ, SWAY_CORNER_HZ, type SwayOffsets } from './people/sway.js';
// Randomness, recordings, nodes, errors
export { Prng, hashString } from './random/prng.js';
export { openRecordingSink, parseJsonLinesRecording, type RecordingSink, type RecordingFormat } from './recording/recording-sink.js';
export { simSourceNode, SimSourceConfig, scenarioFromConfig } from './nodes/sim-source.js';
export { SimErrors, simErrorCatalogue } from './errors.js';

export { truthPosesNode, TruthPosesConfig, GROUND_TRUTH_MODEL_ID } from './nodes/truth-poses.js';
