import { z } from 'zod';
import { BreathingVariabilitySchema } from '../people/breathing.js';
import { MATERIAL_NAMES } from '../physics/materials.js';
import { DEVICE_KINDS } from '../radio/grids.js';
import { ALL_FALL_TYPES } from '../people/motions.js';

const finite = () => z.number().finite();
const positive = () => z.number().finite().positive();
const nonNegative = () => z.number().finite().nonnegative();

/** [x, y] on the floor, metres. */
export const Point2Schema = z.tuple([finite(), finite()]);
/** [x, y, z], metres. */
export const Point3Schema = z.tuple([finite(), finite(), finite()]);

const MaterialSchema = z.enum(MATERIAL_NAMES as [string, ...string[]]);

/** Room geometry and materials. */
export const RoomSchema = z.object({
  width: positive().max(100).describe('extent along x (m)'),
  depth: positive().max(100).describe('extent along y (m)'),
  height: positive().max(20).default(2.7).describe('floor to ceiling (m)'),
  materials: z
    .object({
      walls: MaterialSchema.default('plasterboard').describe('material of every wall not named below'),
      west: MaterialSchema.optional(),
      east: MaterialSchema.optional(),
      south: MaterialSchema.optional(),
      north: MaterialSchema.optional(),
      floor: MaterialSchema.default('concrete'),
      ceiling: MaterialSchema.default('plasterboard'),
    })
    .strict()
    .default({ walls: 'plasterboard', floor: 'concrete', ceiling: 'plasterboard' }),
}).strict();

/** A furniture or clutter scatterer: a point with a radar cross-section. */
export const ClutterSchema = z.object({
  label: z.string().optional(),
  position: Point3Schema,
  rcs: positive().max(50).default(0.5).describe('radar cross-section (m²)'),
}).strict();

/** A floor zone (polygon) whose entries and exits become ground-truth events. */
export const ZoneSchema = z.object({
  id: z.string().min(1),
  name: z.string().optional(),
  polygon: z.array(Point2Schema).min(3),
}).strict();

/** The environment's virtual camera (pinhole). */
export const CameraSchema = z.object({
  position: Point3Schema,
  lookAt: Point3Schema,
  width: z.number().int().positive().default(640),
  height: z.number().int().positive().default(480),
  horizontalFovDeg: z.number().gt(1).lt(179).default(90),
}).strict();

/** Hardware impairments (any subset; unspecified fields keep their defaults). */
export const ImpairmentsSchema = z.object({
  snrDb: z.number().nullable().default(25).describe('CSI SNR in dB; null for no noise'),
  timingOffsetNs: nonNegative().default(40),
  randomPhase: z.boolean().default(true),
  chainPhase: z.boolean().default(true),
  agcJitterDb: nonNegative().default(0.5),
  quantisation: z.enum(['device', 'none']).default('device'),
  packetLoss: z.number().min(0).max(1).default(0.01),
  timingJitterUs: nonNegative().default(200),
  // Realism options (issue 20): all optional without defaults, so a scenario that names none of
  // them validates to exactly the object it did before and simulates to the same bytes.
  timingOffsetMeanNs: finite().min(-2000).max(2000).optional().describe('mean of the per-packet timing offset (real chips detect packets late by a roughly constant delay), ns'),
  csd: z.boolean().optional().describe('802.11n cyclic shift per transmit stream (0, −400, −200, −600 ns): each tx row of the CSI gets its own phase slope'),
  spatialMapping: z.enum(['direct', 'hadamard', 'fourier']).optional().describe('how streams map to transmit antennas: the reported rows are Q·H'),
  rippleDb: nonNegative().max(6).optional().describe('baseband filter ripple across subcarriers per receive chain (amplitude σ, dB; the phase ripple follows)'),
  glitchChance: z.number().min(0).max(0.2).optional().describe('per packet: the receive chains are reported in the wrong order (antenna-switching glitch)'),
  agcStepChance: z.number().min(0).max(0.1).optional().describe('per packet: the gain level steps and stays there'),
  agcStepDb: nonNegative().max(12).optional().describe('size of an AGC step (dB, either sign)'),
  agcOffsetDb: finite().min(-20).max(20).optional().describe('constant gain offset of this capture (a reference recorded with another AGC state)'),
  lossBurstPackets: z.number().min(1).max(100).optional().describe('mean length of a loss burst (Gilbert–Elliott); packetLoss stays the long-run loss rate'),
  chainPhaseStepDeg: z.number().min(0).max(180).optional().describe('per packet: each receive chain\'s phase takes a fresh random multiple of this angle (Intel 5300 at 40 MHz: 90)'),
  chainGainJitterDb: nonNegative().max(6).optional().describe('per packet: each receive chain\'s own gain error (σ, dB), beside agcJitterDb'),
  rssiNoiseDb: nonNegative().max(6).optional().describe('per packet: each receive chain\'s reported RSSI gets its own measurement error (σ, dB); the CSI is not touched'),
  rssiStepDb: z.number().min(0.01).max(6).optional().describe('the reported RSSI is rounded to multiples of this step (dB; real cards report whole dB); default 0.01'),
}).strict();

/**
 * Overrides of some impairments (a receiver's own, or the reference capture's): the same fields
 * with no defaults. `ImpairmentsSchema.partial()` would keep each field's `.default()` (zod 4), so
 * `{ agcOffsetDb: 2 }` would parse to a full set with snrDb 25, packetLoss 0.01, … and those
 * defaults would be laid over the scenario's own values. Only the fields named are overridden.
 */
export const ImpairmentOverridesSchema = z.object(
  Object.fromEntries(Object.entries(ImpairmentsSchema.shape).map(([key, field]) => {
    const inner = field instanceof z.ZodDefault ? field.unwrap() : field;
    return [key, (field.description === undefined ? inner : inner.describe(field.description)).optional()];
  })) as { [K in keyof typeof ImpairmentsSchema.shape]: z.ZodOptional<typeof ImpairmentsSchema.shape[K] extends z.ZodDefault<infer T> ? T : typeof ImpairmentsSchema.shape[K]> },
).strict();

/** A radio's antenna pattern (amplitude gain by direction); isotropic when omitted. */
export const AntennaPatternSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('isotropic') }).strict(),
  z.object({ kind: z.literal('dipole') }).strict().describe('vertical half-wave dipole: gain ∝ cos(π/2·cos θ)/sin θ, nulls straight up and down'),
  z.object({
    kind: z.literal('patch'),
    beamwidthDeg: z.number().min(30).max(180).default(90).describe('half-power beamwidth around the facing direction'),
    frontToBackDb: nonNegative().max(40).default(15),
  }).strict(),
]);

/** A transmitter or receiver with its antenna array. */
export const RadioSchema = z.object({
  id: z.string().min(1),
  role: z.enum(['tx', 'rx']),
  device: z.enum(DEVICE_KINDS as unknown as [string, ...string[]]).default('intel5300').describe('chip whose grid and quantisation a receiver imitates'),
  position: Point3Schema,
  yawDeg: finite().default(0).describe('direction the array faces, degrees from +x toward +y'),
  antennas: z.number().int().min(1).max(8).default(3),
  spacing: positive().max(1).optional().describe('element spacing (m), default half a wavelength'),
  esp32Field: z.enum(['lltf', 'htltf']).default('htltf'),
  pattern: AntennaPatternSchema.optional().describe('antenna pattern of every element (default isotropic)'),
  impairments: ImpairmentOverridesSchema.optional().describe('overrides of the scenario impairments for this receiver'),
}).strict();

/** Mean seconds between small fidgets (an arm, the head, a shift of the trunk) during a still period; omitted: none. */
const fidget = () => positive().max(3600).optional();

/** A scripted action of a person. */
export const StepSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('stand'), duration: positive(), fidgetEveryS: fidget() }).strict(),
  z.object({ action: z.literal('walk'), path: z.array(Point2Schema).min(1), speed: positive().max(3).default(1.1) }).strict(),
  z.object({ action: z.literal('sit'), duration: positive(), fidgetEveryS: fidget() }).strict(),
  z.object({
    action: z.literal('lie'),
    duration: positive(),
    surfaceHeight: nonNegative().max(1.2).default(0),
    side: z.enum(['back', 'front', 'left', 'right']).default('back'),
    fidgetEveryS: fidget(),
  }).strict(),
  z.object({
    action: z.literal('fall-like'),
    kind: z.enum(['sit-hard', 'lie-down', 'into-bed']).describe('sitting down hard (0.5 s drop), lying down on the floor on purpose, getting into bed'),
    duration: positive().describe('seconds in the posture afterwards'),
    surfaceHeight: nonNegative().max(1.2).default(0.5).describe('bed height for into-bed'),
    fidgetEveryS: fidget(),
  }).strict(),
  z.object({
    action: z.literal('fall'),
    type: z.enum(ALL_FALL_TYPES as unknown as [string, ...string[]]),
    lieDuration: nonNegative().default(20).describe('seconds on the floor after the fall'),
    getUp: z.boolean().default(true),
  }).strict(),
  z.object({ action: z.literal('turn'), yawDeg: finite(), duration: positive().default(1) }).strict(),
  z.object({ action: z.literal('enter'), at: Point2Schema, yawDeg: finite().optional() }).strict(),
  z.object({ action: z.literal('leave'), path: z.array(Point2Schema).default([]), speed: positive().max(3).default(1.1) }).strict(),
  z.object({ action: z.literal('absent'), duration: positive() }).strict(),
]);

/** One simulated person. */
export const PersonSchema = z.object({
  id: z.number().int().nonnegative(),
  name: z.string().optional(),
  height: z.number().min(0.9).max(2.3).default(1.72).describe('stature (m)'),
  girth: z.number().min(0.6).max(1.8).default(1).describe('build: scales segment radii'),
  breathingRateBpm: z.number().min(4).max(60).default(15),
  breathingDepthM: nonNegative().max(0.03).default(0.005).describe('chest wall excursion (m): half the peak-to-trough of an average breath'),
  breathing: BreathingVariabilitySchema.optional().describe('breath-to-breath variability, waveform and sighs (omitted: the documented defaults)'),
  start: z.object({ x: finite(), y: finite(), yawDeg: finite().default(0) }).strict().optional().describe('where the person stands at t = 0; omit to start absent'),
  loop: z.boolean().default(false).describe('repeat the script forever'),
  script: z.array(StepSchema).default([]),
}).strict();

/** A ceiling or standing fan: point scatterers on rotating blades. */
const FanSchema = z.object({
  kind: z.literal('fan'),
  id: z.string().min(1).optional(),
  mount: z.enum(['ceiling', 'standing']).default('ceiling').describe('ceiling: blades turn in a horizontal plane; standing: in a vertical plane facing yawDeg'),
  position: Point3Schema.describe('hub'),
  yawDeg: finite().default(0).describe('direction a standing fan blows'),
  blades: z.number().int().min(2).max(8).default(3),
  bladeLengthM: positive().max(1).default(0.6),
  rpm: positive().max(2000).default(120).describe('rotation rate: the channel repeats blades × rpm / 60 times a second'),
  bladeRcs: positive().max(1).default(0.02).describe('radar cross-section of one blade (m²), split between its middle and its tip'),
  onInReference: z.boolean().default(false).describe('whether the fan was running while the empty-room reference was recorded'),
}).strict();

/** A pet: a small body walking between points and resting, breathing while it rests. */
const PetSchema = z.object({
  kind: z.literal('pet'),
  id: z.string().min(1).optional(),
  species: z.enum(['cat', 'dog']).default('cat'),
  path: z.array(Point2Schema).min(1).describe('points it walks between in a loop (the first is where it starts)'),
  speed: positive().max(3).default(0.5),
  restS: nonNegative().default(20).describe('rest at each point (s)'),
  breathingRateBpm: z.number().min(6).max(120).default(30),
}).strict();

/** A door leaf turning about its hinge; `swings` open or close it, and it may be left in another state than at installation. */
const DoorSchema = z.object({
  kind: z.literal('door'),
  id: z.string().min(1).optional(),
  hinge: Point2Schema.describe('hinge on the floor plan (on or near a wall)'),
  closedYawDeg: finite().describe('direction from the hinge along the closed leaf'),
  widthM: positive().max(2).default(0.85),
  heightM: positive().max(3).default(2),
  openDeg: z.number().min(-180).max(180).default(0).describe('angle of the leaf from closed at t = 0'),
  referenceOpenDeg: z.number().min(-180).max(180).optional().describe('angle while the empty-room reference was recorded (default: openDeg)'),
  material: z.enum(['wood', 'metal', 'glass']).default('wood'),
  swings: z.array(z.object({ at: nonNegative(), toDeg: z.number().min(-180).max(180), durationS: positive().max(30).default(1.5) }).strict()).default([]),
}).strict();

/** Curtains or a plant moving in airflow: a few scatterers swaying quasi-periodically. */
const SwaySchema = z.object({
  kind: z.enum(['curtain', 'plant']),
  id: z.string().min(1).optional(),
  position: Point3Schema,
  rcs: positive().max(5).default(0.3),
  swayM: positive().max(0.5).default(0.04).describe('RMS displacement in the draught (m)'),
  periodS: positive().max(60).default(3).describe('typical sway period (s)'),
}).strict();

/** Activity in a neighbouring room seen through a wall: a person walking behind it, attenuated twice by the wall. */
const NeighbourSchema = z.object({
  kind: z.literal('neighbour'),
  id: z.string().min(1).optional(),
  wall: z.enum(['west', 'east', 'south', 'north']),
  distanceM: positive().max(10).default(1.5).describe('how far behind the wall the person walks'),
  from: positive().describe('start position along the wall (m from its low end)'),
  to: positive().describe('end position along the wall; the person walks back and forth'),
  speed: positive().max(3).default(1),
  wallLossDb: nonNegative().max(60).default(12).describe('one-way penetration loss of the wall'),
  rcs: positive().max(5).default(1),
}).strict();

/** Things besides people that move in a room (issue 20: the false alarms of WiFi sensing). */
export const DistractorSchema = z.discriminatedUnion('kind', [FanSchema, PetSchema, DoorSchema, SwaySchema.extend({ kind: z.literal('curtain') }), SwaySchema.extend({ kind: z.literal('plant') }), NeighbourSchema]);

/**
 * What changed between the empty-room reference (installation) and the recording. The
 * reference is simulated with `new Simulator(scenario, { phase: 'reference' })`.
 */
export const DriftSchema = z.object({
  referenceSeed: z.number().int().optional().describe('seed of the reference capture\'s own per-packet draws (noise, timing offsets, AGC, loss)'),
  reference: ImpairmentOverridesSchema.optional().describe('impairments while the reference was recorded (its own timing-offset statistics, AGC state)'),
  moved: z.array(z.object({ clutter: z.union([z.string(), z.number().int().nonnegative()]).describe('label or index'), to: Point3Schema }).strict()).default([]).describe('furniture moved after the reference'),
  replugged: z.array(z.string()).default([]).describe('radios unplugged and plugged in again after the reference: new chain phases, nothing else'),
  staticDrift: z.object({
    gainDb: nonNegative().max(6).default(0.3).describe('amplitude of each reflected or scattered path\'s slow gain change per bounce (dB)'),
    phaseRad: nonNegative().max(3.2).default(0.2).describe('amplitude of its slow phase change per bounce (rad)'),
    periodS: positive().default(3600).describe('typical period of the temperature/humidity cycle'),
    elapsedS: nonNegative().default(3600).describe('time from the reference to the start of the recording'),
  }).strict().optional(),
}).strict();

/** A complete scenario file. */
export const ScenarioSchema = z.object({
  version: z.literal(1).default(1),
  name: z.string().default('scenario'),
  description: z.string().optional(),
  environmentId: z.string().min(1).default('sim-room'),
  seed: z.number().int().default(1).describe('seed of every random draw (impairments, noise, chain phases)'),
  durationS: positive().optional().describe('default length of a run'),
  startTime: z.union([z.string(), z.number()]).optional().describe('wall-clock time of t = 0 (ISO string or ms since epoch); default 2026-01-01T00:00:00Z'),
  room: RoomSchema,
  clutter: z.array(ClutterSchema).default([]),
  zones: z.array(ZoneSchema).default([]),
  camera: CameraSchema.optional(),
  channel: z.object({
    centerFrequencyHz: z.number().min(2.3e9).max(7.2e9).default(5.32e9),
    bandwidthMHz: z.union([z.literal(20), z.literal(40), z.literal(80)]).default(20),
    rateHz: z.number().positive().max(5000).default(100).describe('packets per second on every link'),
    txPowerDbm: finite().default(20),
  }).strict().default({ centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 100, txPowerDbm: 20 }),
  radios: z.array(RadioSchema).min(2),
  links: z.array(z.object({ tx: z.string(), rx: z.string() }).strict()).optional().describe('default: every transmitter to every receiver'),
  impairments: ImpairmentsSchema.default(ImpairmentsSchema.parse({})),
  propagation: z.object({
    maxReflectionOrder: z.number().int().min(0).max(2).default(2),
    bodyScattering: z.boolean().default(true),
    shadowing: z.boolean().default(true),
    bodyReflectivity: z.number().min(0).max(1).default(0.6).describe('|Γ| of skin at WiFi frequencies'),
    bodyBounces: z.boolean().default(false).describe('add body paths with one wall/floor/ceiling bounce before or after the body (12 more paths per segment)'),
    reverberation: z.object({
      decayNs: z.number().min(1).max(200).describe('decay time T of the room\'s power-delay tail, ns (indoor rooms at 5 GHz: about 10–40)'),
      staticTail: z.boolean().default(true).describe('add the empty room\'s diffuse tail (reverberant power c·λ²·T/(8πV) less the explicit reflections)'),
      bodyDiffuse: z.boolean().default(true).describe('add the paths a body scatters into and out of the diffuse field (40 per person)'),
      bodyDirections: z.enum(['path', 'segment']).default('path').describe('directions of the body\'s diffuse paths: each its own isotropic draw (path), or one draw shared by the paths leaving a body segment (segment: it re-radiates coherently)'),
    }).strict().optional().describe('the room\'s reverberant (diffuse) field, after room electromagnetics; absent = none (default)'),
  }).strict().default({ maxReflectionOrder: 2, bodyScattering: true, shadowing: true, bodyReflectivity: 0.6, bodyBounces: false }),
  people: z.array(PersonSchema).default([]),
  distractors: z.array(DistractorSchema).optional().describe('fans, pets, doors, curtains, plants, activity next door'),
  drift: DriftSchema.optional().describe('changes between the empty-room reference and the recording'),
}).strict();

/** A validated scenario (defaults applied). */
export type Scenario = z.output<typeof ScenarioSchema>;
/** What a scenario file may contain (defaults optional). */
export type ScenarioInput = z.input<typeof ScenarioSchema>;
/** A validated person. */
export type PersonSpec = z.output<typeof PersonSchema>;
/** A validated script step. */
export type ScriptStep = z.output<typeof StepSchema>;
/** A validated radio. */
export type RadioSpec = z.output<typeof RadioSchema>;
/** Validated impairments. */
export type ImpairmentSpec = z.output<typeof ImpairmentsSchema>;
export type ImpairmentOverrides = z.output<typeof ImpairmentOverridesSchema>;
/** A validated virtual camera. */
export type CameraSpec = z.output<typeof CameraSchema>;
/** A validated distractor. */
export type DistractorSpec = z.output<typeof DistractorSchema>;
/** Validated drift between reference and recording. */
export type DriftSpec = z.output<typeof DriftSchema>;
/** A validated antenna pattern. */
export type AntennaPatternSpec = z.output<typeof AntennaPatternSchema>;
/** A validated zone. */
export type ZoneSpec = z.output<typeof ZoneSchema>;
