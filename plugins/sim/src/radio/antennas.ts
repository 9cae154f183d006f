import type { Vec3 } from '../geometry/vec3.js';

/** Placement and array geometry of one radio. */
export interface AntennaArraySpec {
  /** Array centre in the room frame (m). */
  position: Vec3;
  /** Direction the array faces, radians from +x toward +y; elements line up across it. */
  yaw: number;
  /** Number of antennas (chains). */
  count: number;
  /** Element spacing in metres. */
  spacing: number;
}

/**
 * Element positions of a uniform linear array: horizontal, perpendicular to the facing
 * direction, centred on the array position (as the three antennas of an Intel 5300 card or
 * a router's row of antennas).
 */
export function antennaPositions(spec: AntennaArraySpec): Vec3[] {
  const ax = -Math.sin(spec.yaw);
  const ay = Math.cos(spec.yaw);
  const out: Vec3[] = [];
  for (let i = 0; i < spec.count; i++) {
    const o = (i - (spec.count - 1) / 2) * spec.spacing;
    out.push({ x: spec.position.x + ax * o, y: spec.position.y + ay * o, z: spec.position.z });
  }
  return out;
}
