import { z } from 'zod';
import { MATERIAL_NAMES } from '../physics/materials.js';
import { DEVICE_KINDS } from '../radio/grids.js';
import { FALL_TYPES } from '../people/motions.js';

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
}).strict();

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
  impairments: ImpairmentsSchema.partial().optional().describe('overrides of the scenario impairments for this receiver'),
}).strict();

/** A scripted action of a person. */
export const StepSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('stand'), duration: positive() }).strict(),
  z.object({ action: z.literal('walk'), path: z.array(Point2Schema).min(1), speed: positive().max(3).default(1.1) }).strict(),
  z.object({ action: z.literal('sit'), duration: positive() }).strict(),
  z.object({
    action: z.literal('lie'),
    duration: positive(),
    surfaceHeight: nonNegative().max(1.2).default(0),
    side: z.enum(['back', 'front', 'left', 'right']).default('back'),
  }).strict(),
  z.object({
    action: z.literal('fall'),
    type: z.enum(FALL_TYPES as unknown as [string, ...string[]]),
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
  breathingDepthM: nonNegative().max(0.03).default(0.005).describe('chest wall excursion (m)'),
  start: z.object({ x: finite(), y: finite(), yawDeg: finite().default(0) }).strict().optional().describe('where the person stands at t = 0; omit to start absent'),
  loop: z.boolean().default(false).describe('repeat the script forever'),
  script: z.array(StepSchema).default([]),
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
  }).strict().default({ maxReflectionOrder: 2, bodyScattering: true, shadowing: true, bodyReflectivity: 0.6, bodyBounces: false }),
  people: z.array(PersonSchema).default([]),
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
/** A validated virtual camera. */
export type CameraSpec = z.output<typeof CameraSchema>;
/** A validated zone. */
export type ZoneSpec = z.output<typeof ZoneSchema>;
