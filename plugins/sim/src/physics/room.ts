import type { Vec3 } from '../geometry/vec3.js';
import { distance } from '../geometry/vec3.js';
import { fresnelReflection, MATERIALS, type MaterialName, type Polarisation } from './materials.js';

/** The six surfaces of a box room. */
export type SurfaceName = 'west' | 'east' | 'south' | 'north' | 'floor' | 'ceiling';

/** All surface names, in a fixed order. */
export const SURFACE_NAMES: readonly SurfaceName[] = ['west', 'east', 'south', 'north', 'floor', 'ceiling'];

/** A box room [0, width] × [0, depth] × [0, height] (x east, y north, z up) with a material per surface. */
export interface RoomGeometry {
  width: number;
  depth: number;
  height: number;
  materials: Record<SurfaceName, MaterialName>;
}

/** One planar surface: the plane `coordinate[axis] = value`. */
export interface Surface {
  name: SurfaceName;
  axis: 0 | 1 | 2;
  value: number;
  /**
   * Antennas are vertically polarised: on a wall the E-field is normal to the (near
   * horizontal) plane of incidence (TE); on the floor and ceiling it lies in it (TM).
   */
  polarisation: Polarisation;
}

/** A propagation path between two points by specular reflection off the room's surfaces. */
export interface ReflectionPath {
  /** 0 for line of sight, else the number of bounces. */
  order: number;
  /** Surfaces hit, in order from the transmitter. */
  surfaces: SurfaceName[];
  /** Transmitter, reflection points, receiver. */
  points: Vec3[];
  /** Unfolded path length (m): the distance from the receiver to the transmitter's image. */
  length: number;
  /** Product of the Fresnel coefficients at the bounces (complex). */
  gain: { re: number; im: number };
}

/** The six surfaces of a room, in `SURFACE_NAMES` order. */
export function surfacesOf(room: RoomGeometry): Surface[] {
  return [
    { name: 'west', axis: 0, value: 0, polarisation: 'TE' },
    { name: 'east', axis: 0, value: room.width, polarisation: 'TE' },
    { name: 'south', axis: 1, value: 0, polarisation: 'TE' },
    { name: 'north', axis: 1, value: room.depth, polarisation: 'TE' },
    { name: 'floor', axis: 2, value: 0, polarisation: 'TM' },
    { name: 'ceiling', axis: 2, value: room.height, polarisation: 'TM' },
  ];
}

function coord(p: Vec3, axis: number): number {
  return axis === 0 ? p.x : axis === 1 ? p.y : p.z;
}

/** The mirror image of a point across a surface's plane. */
export function mirror(p: Vec3, s: Surface): Vec3 {
  const m = 2 * s.value;
  if (s.axis === 0) return { x: m - p.x, y: p.y, z: p.z };
  if (s.axis === 1) return { x: p.x, y: m - p.y, z: p.z };
  return { x: p.x, y: p.y, z: m - p.z };
}

/** Where segment a→b crosses the surface's plane, or null when it does not (strictly inside the segment). */
export function crossing(a: Vec3, b: Vec3, s: Surface): Vec3 | null {
  const ca = coord(a, s.axis);
  const cb = coord(b, s.axis);
  const den = cb - ca;
  if (Math.abs(den) < 1e-12) return null;
  const t = (s.value - ca) / den;
  if (t <= 1e-9 || t >= 1 - 1e-9) return null;
  return { x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t, z: a.z + (b.z - a.z) * t };
}

/** Whether a point on a surface's plane lies within the room's extent (on the face). */
export function onFace(p: Vec3, room: RoomGeometry): boolean {
  const eps = 1e-6;
  return p.x >= -eps && p.x <= room.width + eps && p.y >= -eps && p.y <= room.depth + eps && p.z >= -eps && p.z <= room.height + eps;
}

/** cos θ between a ray direction a→b and the surface normal. */
export function cosIncidence(a: Vec3, b: Vec3, s: Surface): number {
  const len = distance(a, b);
  return len > 0 ? Math.abs(coord(b, s.axis) - coord(a, s.axis)) / len : 1;
}

/** Whether a point is inside the room (strictly, by a margin). */
export function insideRoom(p: Vec3, room: RoomGeometry, margin = 0): boolean {
  return p.x > margin && p.x < room.width - margin && p.y > margin && p.y < room.depth - margin && p.z > margin && p.z < room.height - margin;
}

/**
 * Line of sight plus specular reflections up to `maxOrder` (0, 1 or 2) between a transmitter
 * and a receiver inside the room, by the image method: mirror the transmitter across a surface
 * (then across a second one), the path length is the distance from the receiver to the image,
 * and the reflection points are found by tracing back from the receiver. Paths whose trace
 * leaves a face are dropped. Each bounce multiplies the amplitude by the Fresnel coefficient
 * of that surface's material at the local angle of incidence.
 */
export function imagePaths(room: RoomGeometry, tx: Vec3, rx: Vec3, frequencyHz: number, maxOrder: number): ReflectionPath[] {
  const paths: ReflectionPath[] = [{ order: 0, surfaces: [], points: [tx, rx], length: distance(tx, rx), gain: { re: 1, im: 0 } }];
  if (maxOrder < 1) return paths;
  const surfaces = surfacesOf(room);
  const gammaOf = (s: Surface, cosTheta: number) => fresnelReflection(MATERIALS[room.materials[s.name]], frequencyHz, cosTheta, s.polarisation);
  for (const s1 of surfaces) {
    const i1 = mirror(tx, s1);
    const p1 = crossing(rx, i1, s1);
    if (!p1 || !onFace(p1, room)) continue;
    const g = gammaOf(s1, cosIncidence(i1, rx, s1));
    paths.push({ order: 1, surfaces: [s1.name], points: [tx, p1, rx], length: distance(rx, i1), gain: g });
  }
  if (maxOrder < 2) return paths;
  for (const s1 of surfaces) {
    const i1 = mirror(tx, s1);
    for (const s2 of surfaces) {
      if (s2 === s1) continue;
      const i2 = mirror(i1, s2);
      const p2 = crossing(rx, i2, s2);
      if (!p2 || !onFace(p2, room)) continue;
      const p1 = crossing(p2, i1, s1);
      if (!p1 || !onFace(p1, room)) continue;
      const g1 = gammaOf(s1, cosIncidence(i1, p2, s1));
      const g2 = gammaOf(s2, cosIncidence(i2, rx, s2));
      paths.push({
        order: 2,
        surfaces: [s1.name, s2.name],
        points: [tx, p1, p2, rx],
        length: distance(rx, i2),
        gain: { re: g1.re * g2.re - g1.im * g2.im, im: g1.re * g2.im + g1.im * g2.re },
      });
    }
  }
  return paths;
}
