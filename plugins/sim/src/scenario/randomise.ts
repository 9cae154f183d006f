import { FALL_TYPES } from '../people/motions.js';
import type { MaterialName } from '../physics/materials.js';
import { Prng } from '../random/prng.js';
import type { DeviceKind } from '../radio/grids.js';
import { validateScenario } from './load.js';
import { drawRealism, REALISM_EFFECTS, REALISM_LEVELS, type RealismEffect, type RealismLevel } from './realism.js';
import { SimErrors } from '../errors.js';
import type { Scenario, ScenarioInput } from './schema.js';

/** A closed interval [min, max]. */
export type Range = readonly [number, number];

/** What the randomiser draws from. Every field has a default (see `DEFAULT_RANDOM_RANGES`). */
export interface RandomRanges {
  roomWidth: Range;
  roomDepth: Range;
  roomHeight: Range;
  wallMaterials: readonly MaterialName[];
  floorMaterials: readonly MaterialName[];
  ceilingMaterials: readonly MaterialName[];
  /** Chance that one wall is metal (a wardrobe, a lift shaft, a whiteboard wall). */
  metalWallChance: number;
  clutterCount: Range;
  clutterRcs: Range;
  /** Number of people (integers). */
  people: Range;
  personHeight: Range;
  personGirth: Range;
  breathingRateBpm: Range;
  /** Breath-to-breath variability of each person (`BreathingVariabilitySchema`), drawn per person from its own stream. */
  breathingRateCv: Range;
  breathingDepthCv: Range;
  inhaleFraction: Range;
  sighEveryS: Range;
  walkingSpeed: Range;
  /** Chance a person starts outside and enters during the run. */
  enterChance: number;
  /** Chance a person leaves before the end. */
  leaveChance: number;
  /** Relative weights of the next activity in a random script. */
  activityWeights: { walk: number; stand: number; sit: number; lie: number; fall: number; turn: number };
  /** Receiver chip (fixes the subcarrier grid). */
  device: DeviceKind;
  bandwidthMHz: 20 | 40 | 80;
  centerFrequenciesHz: readonly number[];
  rateHz: number;
  txAntennas: number;
  rxAntennas: number;
  /** Number of receivers (each with its own link from the one transmitter). */
  receivers: Range;
  radioHeight: Range;
  snrDb: Range;
  timingOffsetNs: Range;
  agcJitterDb: Range;
  packetLoss: Range;
  timingJitterUs: Range;
  bodyReflectivity: Range;
  /** 'none' (default): rooms as before issue 20; 'v2': distractors, drift between reference and recording, radios as they are (`drawRealism`). */
  realism: RealismLevel;
  /** With realism 'v2': which groups of effects to keep (default all: distractors, drift, radios). */
  realismEffects: readonly RealismEffect[];
}

/** Ranges for homes and small offices at 5 GHz with Intel 5300-like receivers, 100 Hz. */
export const DEFAULT_RANDOM_RANGES: RandomRanges = {
  roomWidth: [3, 8],
  roomDepth: [3, 7],
  roomHeight: [2.4, 3.2],
  wallMaterials: ['plasterboard', 'plasterboard', 'concrete', 'brick', 'wood', 'glass'],
  floorMaterials: ['concrete', 'floorboard', 'wood'],
  ceilingMaterials: ['plasterboard', 'concrete'],
  metalWallChance: 0.08,
  clutterCount: [2, 10],
  clutterRcs: [0.1, 3],
  people: [1, 3],
  personHeight: [1.5, 1.95],
  personGirth: [0.8, 1.25],
  breathingRateBpm: [10, 22],
  // Resting adults: breath-period CV 21 ± 12 %, tidal-volume CV 33 ± 15 %, Ti/Ttot about 0.4 (Tobin et al. 1988); a sigh about every 5 min (Li et al. 2016).
  breathingRateCv: [0.1, 0.25],
  breathingDepthCv: [0.15, 0.35],
  inhaleFraction: [0.35, 0.45],
  sighEveryS: [180, 600],
  walkingSpeed: [0.6, 1.5],
  enterChance: 0.15,
  leaveChance: 0.1,
  activityWeights: { walk: 5, stand: 2, sit: 2, lie: 0.7, fall: 0.8, turn: 0.5 },
  device: 'intel5300',
  bandwidthMHz: 20,
  centerFrequenciesHz: [5.18e9, 5.24e9, 5.32e9, 5.5e9, 5.745e9, 5.805e9],
  rateHz: 100,
  txAntennas: 3,
  rxAntennas: 3,
  receivers: [1, 1],
  radioHeight: [0.7, 2.2],
  snrDb: [15, 35],
  timingOffsetNs: [10, 80],
  agcJitterDb: [0.2, 1],
  packetLoss: [0, 0.03],
  timingJitterUs: [50, 400],
  bodyReflectivity: [0.45, 0.75],
  realism: 'none',
  realismEffects: REALISM_EFFECTS,
};

const r = (prng: Prng, range: Range) => prng.uniform(range[0], range[1]);
const round = (v: number, step = 0.01) => Math.round(v / step) * step;

/** The fixed part of a room: geometry, materials, clutter, radio placements, hardware. */
export type RandomRoom = Pick<ScenarioInput, 'room' | 'clutter' | 'channel' | 'radios' | 'impairments' | 'propagation'> & { roomId: string };

/** Draw a room: box geometry, a material per surface, clutter, a transmitter and receivers near the walls. */
export function randomRoom(prng: Prng, ranges: RandomRanges = DEFAULT_RANDOM_RANGES, roomId = `room-${prng.nextUint32().toString(16)}`): RandomRoom {
  const width = round(r(prng, ranges.roomWidth));
  const depth = round(r(prng, ranges.roomDepth));
  const height = round(r(prng, ranges.roomHeight));
  const walls = { west: prng.pick(ranges.wallMaterials), east: prng.pick(ranges.wallMaterials), south: prng.pick(ranges.wallMaterials), north: prng.pick(ranges.wallMaterials) };
  if (prng.chance(ranges.metalWallChance)) walls[prng.pick(['west', 'east', 'south', 'north'] as const)] = 'metal';
  const clutter = Array.from({ length: prng.int(ranges.clutterCount[0], ranges.clutterCount[1]) }, (_, i) => ({
    label: `clutter-${i}`,
    position: [round(prng.uniform(0.2, width - 0.2)), round(prng.uniform(0.2, depth - 0.2)), round(prng.uniform(0.2, Math.min(2, height - 0.2)))] as [number, number, number],
    rcs: round(r(prng, ranges.clutterRcs), 0.001),
  }));
  // Transmitter near one wall, receivers near the opposite or a side wall, arrays facing the room centre.
  const near = (wall: number, along: number, z: number): [number, number, number] => {
    const inset = prng.uniform(0.15, 0.5);
    switch (wall) {
      case 0: return [round(inset), round(along * depth), round(z)];
      case 1: return [round(width - inset), round(along * depth), round(z)];
      case 2: return [round(along * width), round(inset), round(z)];
      default: return [round(along * width), round(depth - inset), round(z)];
    }
  };
  const facing = (p: readonly number[]) => round((Math.atan2(depth / 2 - p[1], width / 2 - p[0]) * 180) / Math.PI, 0.1);
  const txWall = prng.int(0, 3);
  const txPos = near(txWall, prng.uniform(0.2, 0.8), Math.min(height - 0.2, r(prng, ranges.radioHeight)));
  const radios: NonNullable<ScenarioInput['radios']> = [{ id: 'tx0', role: 'tx', device: ranges.device, position: txPos, yawDeg: facing(txPos), antennas: ranges.txAntennas }];
  const receivers = prng.int(ranges.receivers[0], ranges.receivers[1]);
  for (let i = 0; i < receivers; i++) {
    const opposite = txWall ^ 1;
    const wall = i === 0 ? opposite : prng.pick([0, 1, 2, 3].filter((w) => w !== txWall));
    const pos = near(wall, prng.uniform(0.2, 0.8), Math.min(height - 0.2, r(prng, ranges.radioHeight)));
    radios.push({ id: `rx${i}`, role: 'rx', device: ranges.device, position: pos, yawDeg: facing(pos), antennas: ranges.rxAntennas });
  }
  return {
    roomId,
    room: { width, depth, height, materials: { walls: 'plasterboard', ...walls, floor: prng.pick(ranges.floorMaterials), ceiling: prng.pick(ranges.ceilingMaterials) } },
    clutter,
    channel: { centerFrequencyHz: prng.pick(ranges.centerFrequenciesHz), bandwidthMHz: ranges.bandwidthMHz, rateHz: ranges.rateHz, txPowerDbm: 20 },
    radios,
    impairments: {
      snrDb: round(r(prng, ranges.snrDb), 0.1),
      timingOffsetNs: round(r(prng, ranges.timingOffsetNs), 0.1),
      randomPhase: true,
      chainPhase: true,
      agcJitterDb: round(r(prng, ranges.agcJitterDb), 0.01),
      quantisation: 'device',
      packetLoss: round(r(prng, ranges.packetLoss), 0.001),
      timingJitterUs: round(r(prng, ranges.timingJitterUs), 1),
    },
    propagation: { maxReflectionOrder: 2, bodyScattering: true, shadowing: true, bodyReflectivity: round(r(prng, ranges.bodyReflectivity), 0.01) },
  };
}

type Step = NonNullable<NonNullable<ScenarioInput['people']>[number]['script']>[number];

/**
 * Draw people with random scripts filling `durationS`: walks between random points, standing,
 * sitting, lying down, falls of every type (then getting up), turns; some people enter from
 * a door on a wall or leave through one.
 */
export function randomPeople(prng: Prng, room: { width: number; depth: number }, durationS: number, ranges: RandomRanges = DEFAULT_RANDOM_RANGES): NonNullable<ScenarioInput['people']> {
  const count = prng.int(ranges.people[0], ranges.people[1]);
  const { width, depth } = room;
  const spot = (): [number, number] => [round(prng.uniform(0.4, width - 0.4)), round(prng.uniform(0.4, depth - 0.4))];
  // Doors are on the walls; people appear just inside (inset) and walk out to the wall itself.
  const door = (inset = 0): [number, number] => {
    const w = prng.int(0, 3);
    const a = prng.uniform(0.2, 0.8);
    return w === 0 ? [inset, round(a * depth)] : w === 1 ? [round(width - inset), round(a * depth)] : w === 2 ? [round(a * width), inset] : [round(a * width), round(depth - inset)];
  };
  // Falls carry the body up to ~0.7 m: they happen at least 1 m from every wall.
  const safeSpot = (): [number, number] => [round(prng.uniform(1, width - 1)), round(prng.uniform(1, depth - 1))];
  const weights = ranges.activityWeights;
  const kinds = Object.keys(weights) as (keyof typeof weights)[];
  const totalWeight = kinds.reduce((s, k) => s + weights[k], 0);
  const pickKind = () => {
    let u = prng.uniform(0, totalWeight);
    for (const k of kinds) if ((u -= weights[k]) <= 0) return k;
    return kinds[0];
  };
  return Array.from({ length: count }, (_, i) => {
    const speed = round(r(prng, ranges.walkingSpeed));
    const script: Step[] = [];
    let t = 0;
    let at = spot();
    const enters = prng.chance(ranges.enterChance);
    let start: { x: number; y: number; yawDeg: number } | undefined = { x: at[0], y: at[1], yawDeg: round(prng.uniform(-180, 180), 1) };
    if (enters) {
      start = undefined;
      const wait = round(prng.uniform(0, durationS * 0.4), 0.1);
      if (wait > 0) script.push({ action: 'absent', duration: wait });
      at = door(0.25);
      script.push({ action: 'enter', at });
      t += wait;
    }
    const leaveAt = prng.chance(ranges.leaveChance) ? durationS * prng.uniform(0.5, 0.9) : Infinity;
    while (t < durationS + 2) {
      if (t >= leaveAt) {
        const exit = door();
        script.push({ action: 'leave', path: [exit], speed });
        break;
      }
      const kind = pickKind();
      switch (kind) {
        case 'walk': {
          const path = Array.from({ length: prng.int(1, 3) }, spot);
          let d = 0;
          let prev = at;
          for (const p of path) {
            d += Math.hypot(p[0] - prev[0], p[1] - prev[1]);
            prev = p;
          }
          script.push({ action: 'walk', path, speed });
          at = prev;
          t += d / speed + 0.5;
          break;
        }
        case 'stand': {
          const duration = round(prng.uniform(1.5, 8), 0.1);
          script.push({ action: 'stand', duration });
          t += duration;
          break;
        }
        case 'sit': {
          const duration = round(prng.uniform(4, 20), 0.1);
          script.push({ action: 'sit', duration });
          t += duration + 3.2;
          break;
        }
        case 'lie': {
          const duration = round(prng.uniform(4, 20), 0.1);
          script.push({ action: 'lie', duration, surfaceHeight: prng.chance(0.6) ? round(prng.uniform(0.35, 0.6)) : 0, side: prng.pick(['back', 'left', 'right', 'front'] as const) });
          t += duration + 6.5;
          break;
        }
        case 'fall': {
          const lieDuration = round(prng.uniform(2, 12), 0.1);
          const fallSpot = safeSpot();
          script.push({ action: 'walk', path: [fallSpot], speed });
          t += Math.hypot(fallSpot[0] - at[0], fallSpot[1] - at[1]) / speed + 0.5;
          script.push({ action: 'fall', type: prng.pick(FALL_TYPES), lieDuration, getUp: true });
          // Getting up happens where the body came to rest, within 0.7 m of the spot.
          at = fallSpot;
          t += lieDuration + 6;
          break;
        }
        case 'turn': {
          script.push({ action: 'turn', yawDeg: round(prng.uniform(-180, 180), 1), duration: 1 });
          t += 1;
          break;
        }
      }
    }
    return {
      id: i + 1,
      height: round(r(prng, ranges.personHeight)),
      girth: round(r(prng, ranges.personGirth)),
      breathingRateBpm: round(r(prng, ranges.breathingRateBpm), 0.1),
      breathingDepthM: round(prng.uniform(0.003, 0.008), 0.0001),
      ...(start ? { start } : {}),
      loop: false,
      script,
    };
  });
}

/** Each person's breathing variability, drawn from its own stream so every earlier draw (rooms, scripts) keeps its value. */
function withBreathing<P extends object>(people: P[], prng: Prng, ranges: RandomRanges): P[] {
  return people.map((p) => ({
    ...p,
    breathing: {
      rateCv: round(r(prng, ranges.breathingRateCv), 0.01),
      depthCv: round(r(prng, ranges.breathingDepthCv), 0.01),
      inhaleFraction: round(r(prng, ranges.inhaleFraction), 0.01),
      sighEveryS: round(r(prng, ranges.sighEveryS), 1),
    },
  }));
}

/** Options of `randomScenario`. */
export interface RandomScenarioOptions {
  seed: number | string;
  /** Length of the scripts (s). */
  durationS?: number;
  ranges?: Partial<RandomRanges>;
  /** Reuse a drawn room (sessions of one room share geometry, materials and placements). */
  room?: RandomRoom;
}

/** Draw a complete, validated scenario: a room (or the given one) and people with scripts. Deterministic for a seed. */
export function randomScenario(options: RandomScenarioOptions): Scenario {
  const ranges = { ...DEFAULT_RANDOM_RANGES, ...(options.ranges ?? {}) };
  const prng = new Prng(`scenario:${options.seed}`);
  const durationS = options.durationS ?? 60;
  const room = options.room ?? randomRoom(prng.fork('room'), ranges);
  const { roomId, ...fixed } = room;
  if (!REALISM_LEVELS.includes(ranges.realism)) throw SimErrors.datasetInvalid(`realism must be one of ${REALISM_LEVELS.join(', ')}, got ${JSON.stringify(ranges.realism)}`);
  let input: ScenarioInput = {
    version: 1,
    name: `random ${roomId} seed ${options.seed}`,
    environmentId: roomId,
    seed: prng.nextUint32() & 0x7fffffff,
    durationS,
    ...fixed,
    people: withBreathing(randomPeople(prng.fork('people'), fixed.room!, durationS, ranges), new Prng(`scenario:${options.seed}:breathing`), ranges),
  } as ScenarioInput;
  // Drawn after everything else, from its own stream: level 'none' keeps every earlier draw and byte.
  const unknown = (ranges.realismEffects ?? []).filter((e) => !REALISM_EFFECTS.includes(e));
  if (unknown.length) throw SimErrors.datasetInvalid(`realismEffects must be among ${REALISM_EFFECTS.join(', ')}, got ${JSON.stringify(unknown)}`);
  if (ranges.realism === 'v2') input = drawRealism(prng.fork('realism'), input, durationS, ranges.realismEffects);
  return validateScenario(input, `random scenario ${options.seed}`);
}
