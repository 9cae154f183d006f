import type { Vec3 } from '../geometry/vec3.js';
import type { BodySegment } from '../people/skeleton.js';
import { Prng } from '../random/prng.js';
import { SPEED_OF_LIGHT } from './constants.js';
import type { RoomGeometry } from './room.js';

/**
 * The room's reverberant (diffuse) field, after "room electromagnetics" (Andersen, Nielsen, Pedersen et al.,
 * IEEE AP Magazine 2007; Steinböck, Pedersen, Fleury et al. on reverberation models): past the first arrivals
 * the power-delay profile of a room is an exponential tail exp(−τ/T) whose level is the same all over the room,
 * arriving from all directions. In steady state the field's energy density is W = P_tx·T/V, and an isotropic
 * antenna takes W·c·λ²/(8π) out of it (half of it on average for a random polarisation), so the reverberant
 * power gain is G_rev = c·λ²·T / (8π·V).
 *
 * A body in that field is lit from every direction and scatters ρ² of what it intercepts back into it: a
 * convex body of surface A takes W·c·A/4 out of an isotropic field, and P_tx·(A/4)/(4π d²) out of a transmitter
 * d away. Either part, scattered into the room, reaches the receiver with the reverberant gain. So the body's
 * share of the diffuse channel is G_rev·ρ²·A·(c·T/(4V) + 1/(16π d_tx²) + 1/(16π d_rx²)), spread over excess
 * delays like the room's tail, and each of its paths leaves the body in its own direction: as the body moves,
 * their sum decorrelates, and its delays of tens of ns make it vary across a 20 MHz band.
 */

/** Settings of the reverberant field (`propagation.reverberation`). */
export interface ReverberationSettings {
  /** Decay time T of the power-delay tail, s. */
  decayS: number;
  /** Add the static diffuse tail of the empty room (the part of G_rev the explicit reflections do not carry). */
  staticTail: boolean;
  /** Add the paths a body scatters into and out of the diffuse field. */
  bodyDiffuse: boolean;
  /**
   * Directions of a body's diffuse paths: 'path' (each its own, isotropic draw) or 'segment' (the paths leaving
   * one body segment share one draw: the segment re-radiates coherently, so a body has as many independent
   * directions as segments, not as paths).
   */
  bodyDirections: 'path' | 'segment';
  /** Seed of the field's draws (delays, directions, gains): the room's, fixed per link. */
  seed: string;
}

/** Diffuse paths drawn for the static tail of one link. */
export const STATIC_TAIL_PATHS = 64;
/** Diffuse paths drawn per person and link. */
export const BODY_DIFFUSE_PATHS = 40;
/** Per-segment direction draws kept for `bodyDirections: 'segment'` (more than a body has segments). */
export const BODY_SEGMENT_DIRECTIONS = 32;

/** Reverberant power gain c·λ²·T / (8π·V) of a room (isotropic antennas). */
export function reverberantGain(room: Pick<RoomGeometry, 'width' | 'depth' | 'height'>, wavelengthM: number, decayS: number): number {
  const volume = room.width * room.depth * room.height;
  return (SPEED_OF_LIGHT * wavelengthM * wavelengthM * decayS) / (8 * Math.PI * volume);
}

/** Surface area of an ellipsoid with semi-axes a, b, c (Knud Thomsen's approximation, within 1.1 %). */
export function ellipsoidSurface(a: number, b: number, c: number): number {
  const p = 1.6075;
  const ap = Math.pow(a, p);
  const bp = Math.pow(b, p);
  const cp = Math.pow(c, p);
  return 4 * Math.PI * Math.pow((ap * bp + ap * cp + bp * cp) / 3, 1 / p);
}

/**
 * Random diffuse paths, in typed arrays: per path an excess length c·τ (τ exponential with mean T), a
 * departure direction at the transmitter and an arrival direction at the receiver (uniform on the sphere: the
 * diffuse field is isotropic), a complex gain of unit mean power, and for body paths a scattering point on the
 * body (a segment picked by its share of the surface, a point on that ellipsoid) and the direction difference
 * k̂_in − k̂_out whose dot product with that point is the path's length change as the body moves.
 */
export class DiffusePaths {
  readonly count: number;
  readonly excess: Float64Array;
  readonly txDir: Float64Array;
  readonly rxDir: Float64Array;
  readonly gainRe: Float64Array;
  readonly gainIm: Float64Array;
  readonly bodyDir: Float64Array;
  readonly surfacePoint: Float64Array;
  readonly segmentDraw: Float64Array;
  /** The body segment each path left from at the last `bodyScatteringPoints` call. */
  readonly segmentOf: Int32Array;

  constructor(count: number, decayS: number, prng: Prng) {
    this.count = count;
    this.excess = new Float64Array(count);
    this.txDir = new Float64Array(3 * count);
    this.rxDir = new Float64Array(3 * count);
    this.gainRe = new Float64Array(count);
    this.gainIm = new Float64Array(count);
    this.bodyDir = new Float64Array(3 * count);
    this.surfacePoint = new Float64Array(3 * count);
    this.segmentDraw = new Float64Array(count);
    this.segmentOf = new Int32Array(count);
    const s = Math.SQRT1_2;
    for (let m = 0; m < count; m++) {
      this.excess[m] = -SPEED_OF_LIGHT * decayS * Math.log(1 - prng.next());
      unitVector(prng, this.txDir, m);
      unitVector(prng, this.rxDir, m);
      this.gainRe[m] = prng.normal(0, s);
      this.gainIm[m] = prng.normal(0, s);
      directionDifference(prng, this.bodyDir, m);
      unitVector(prng, this.surfacePoint, m);
      this.segmentDraw[m] = prng.next();
    }
  }
}

/** k̂_in − k̂_out for two isotropic unit vectors, into `out` at m. */
function directionDifference(prng: Prng, out: Float64Array, m: number): void {
  unitVector(prng, out, m);
  const ix = prng.normal();
  const iy = prng.normal();
  const iz = prng.normal();
  const il = Math.hypot(ix, iy, iz) || 1;
  out[3 * m] -= ix / il;
  out[3 * m + 1] -= iy / il;
  out[3 * m + 2] -= iz / il;
}

/** One direction difference k̂_in − k̂_out per body segment (`bodyDirections: 'segment'`), from its own stream. */
export function bodySegmentDirections(settings: ReverberationSettings, personId: number): Float64Array {
  const prng = new Prng(`${settings.seed}:body:${personId}:segments`);
  const out = new Float64Array(3 * BODY_SEGMENT_DIRECTIONS);
  for (let s = 0; s < BODY_SEGMENT_DIRECTIONS; s++) directionDifference(prng, out, s);
  return out;
}

function unitVector(prng: Prng, out: Float64Array, m: number): void {
  const x = prng.normal();
  const y = prng.normal();
  const z = prng.normal();
  const l = Math.hypot(x, y, z) || 1;
  out[3 * m] = x / l;
  out[3 * m + 1] = y / l;
  out[3 * m + 2] = z / l;
}

/** Draws for the static tail of a link. */
export function staticTailPaths(settings: ReverberationSettings): DiffusePaths {
  return new DiffusePaths(STATIC_TAIL_PATHS, settings.decayS, new Prng(`${settings.seed}:tail`));
}

/** Draws for one person's diffuse paths on a link (the same person gets the same draws on every frame). */
export function bodyDiffusePaths(settings: ReverberationSettings, personId: number): DiffusePaths {
  return new DiffusePaths(BODY_DIFFUSE_PATHS, settings.decayS, new Prng(`${settings.seed}:body:${personId}`));
}

/**
 * A body's segment surfaces (m²) with the semi-axes they were taken for, and their running sum: kept per person,
 * since most segments keep their shape from packet to packet (the torso's length follows the breath).
 */
export interface SegmentSurfaces {
  axes: Float64Array;
  surfaces: Float64Array;
  areas: Float64Array;
}

/** Cumulative surfaces of the segments into `cache.areas`, an ellipsoid's surface re-taken only where its semi-axes changed. */
function segmentSurfaces(segments: readonly BodySegment[], cache: SegmentSurfaces): Float64Array {
  if (cache.areas.length !== segments.length) {
    cache.axes = new Float64Array(3 * segments.length).fill(Number.NaN);
    cache.surfaces = new Float64Array(segments.length);
    cache.areas = new Float64Array(segments.length);
  }
  const { axes, surfaces, areas } = cache;
  let total = 0;
  for (let s = 0; s < segments.length; s++) {
    const g = segments[s];
    if (axes[3 * s] !== g.a || axes[3 * s + 1] !== g.b || axes[3 * s + 2] !== g.c) {
      surfaces[s] = ellipsoidSurface(g.a, g.b, g.c);
      axes[3 * s] = g.a;
      axes[3 * s + 1] = g.b;
      axes[3 * s + 2] = g.c;
    }
    total += surfaces[s];
    areas[s] = total;
  }
  return areas;
}

/**
 * Where each of a person's diffuse paths leaves the body at this instant, into `points` (x, y, z per path),
 * and the body's surface area (m²). A path's segment is picked by its draw against the segments' cumulative
 * surface shares, so the pick stays put while the body moves.
 */
export function bodyScatteringPoints(segments: readonly BodySegment[], paths: DiffusePaths, points: Float64Array, surfaces: SegmentSurfaces): number {
  const areas = segmentSurfaces(segments, surfaces);
  const total = areas[segments.length - 1];
  for (let m = 0; m < paths.count; m++) {
    const target = paths.segmentDraw[m] * total;
    let s = 0;
    while (s < segments.length - 1 && areas[s] < target) s++;
    paths.segmentOf[m] = s;
    const g = segments[s];
    const f = g.frame;
    const x = g.a * paths.surfacePoint[3 * m];
    const y = g.b * paths.surfacePoint[3 * m + 1];
    const z = g.c * paths.surfacePoint[3 * m + 2];
    points[3 * m] = g.centre.x + f[0] * x + f[1] * y + f[2] * z;
    points[3 * m + 1] = g.centre.y + f[3] * x + f[4] * y + f[5] * z;
    points[3 * m + 2] = g.centre.z + f[6] * x + f[7] * y + f[8] * z;
  }
  return total;
}

/** Offset of an antenna from its array centre along a unit direction (its path length change, m). */
export function alongDirection(dir: Float64Array, m: number, antenna: Vec3, centre: Vec3): number {
  return dir[3 * m] * (antenna.x - centre.x) + dir[3 * m + 1] * (antenna.y - centre.y) + dir[3 * m + 2] * (antenna.z - centre.z);
}
