import type { AntennaPatternSpec } from '../scenario/schema.js';

/** Amplitude gain of an antenna element toward a direction (room frame; need not be unit length). */
export type AntennaPattern = (dx: number, dy: number, dz: number) => number;

/**
 * The pattern of a radio's elements, turned to the radio's facing direction; null for
 * isotropic (the channel then multiplies nothing, so isotropic scenarios keep their bytes).
 * - dipole: vertical half-wave dipole, |cos(π/2·cos θ) / sin θ| (θ from the vertical): full
 *   gain at the horizon, nulls toward the floor and ceiling straight above and below.
 * - patch: max(back, max(0, cos ψ)^q), ψ off the facing direction, q chosen so that the power
 *   halves at half the beamwidth; back = −frontToBackDb (the level behind the array).
 */
export function antennaPattern(spec: AntennaPatternSpec | undefined, yawRad: number): AntennaPattern | null {
  if (!spec || spec.kind === 'isotropic') return null;
  if (spec.kind === 'dipole') {
    return (dx, dy, dz) => {
      const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
      if (len === 0) return 1;
      const c = dz / len;
      const s = Math.sqrt(Math.max(0, 1 - c * c));
      return s < 1e-6 ? 0 : Math.abs(Math.cos((Math.PI / 2) * c) / s);
    };
  }
  const fx = Math.cos(yawRad);
  const fy = Math.sin(yawRad);
  const half = Math.min(89.5, spec.beamwidthDeg / 2) * (Math.PI / 180);
  const q = Math.log(0.5) / (2 * Math.log(Math.cos(half)));
  const back = Math.pow(10, -spec.frontToBackDb / 20);
  return (dx, dy, dz) => {
    const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (len === 0) return 1;
    const c = (dx * fx + dy * fy) / len;
    return Math.max(back, c > 0 ? Math.pow(c, q) : 0);
  };
}
