import type { Mat3, Vec3 } from '../geometry/vec3.js';
import { applyTransposed, apply } from '../geometry/vec3.js';

/**
 * Radar cross-section (m²) of an ellipsoid with semi-axes a, b (local x, y) and c (local z)
 * seen from the local direction (θ from the z axis, φ around it):
 *   σ = π a² b² c² / (a² sin²θ cos²φ + b² sin²θ sin²φ + c² cos²θ)²
 * `dir` is a unit vector in the ellipsoid's local frame (so sinθcosφ = dir.x etc.).
 */
export function ellipsoidRcs(a: number, b: number, c: number, dir: Vec3): number {
  const den = a * a * dir.x * dir.x + b * b * dir.y * dir.y + c * c * dir.z * dir.z;
  return (Math.PI * a * a * b * b * c * c) / (den * den);
}

/**
 * Bistatic scattering off an ellipsoid, approximated by the monostatic formula along the
 * bisector of the incoming and outgoing directions (the specular direction). Returns the
 * specular point on the surface (where the normal is the bisector) and the cross-section.
 */
export function ellipsoidBistatic(
  centre: Vec3,
  frame: Mat3,
  a: number,
  b: number,
  c: number,
  tx: Vec3,
  rx: Vec3,
): { point: Vec3; rcs: number } {
  let ux = tx.x - centre.x;
  let uy = tx.y - centre.y;
  let uz = tx.z - centre.z;
  let n = Math.hypot(ux, uy, uz) || 1;
  ux /= n;
  uy /= n;
  uz /= n;
  let vx = rx.x - centre.x;
  let vy = rx.y - centre.y;
  let vz = rx.z - centre.z;
  n = Math.hypot(vx, vy, vz) || 1;
  vx /= n;
  vy /= n;
  vz /= n;
  let bx = ux + vx;
  let by = uy + vy;
  let bz = uz + vz;
  n = Math.hypot(bx, by, bz);
  if (n < 1e-6) {
    // Forward scattering (the body sits on the line between the antennas): use the incoming direction.
    bx = ux;
    by = uy;
    bz = uz;
    n = 1;
  }
  const local = applyTransposed(frame, { x: bx / n, y: by / n, z: bz / n });
  const rcs = ellipsoidRcs(a, b, c, local);
  // Surface point with outward normal ∝ local: x = M² n / √(nᵀ M² n), M = diag(a, b, c).
  const q = Math.sqrt(a * a * local.x * local.x + b * b * local.y * local.y + c * c * local.z * local.z) || 1;
  const surfaceLocal = { x: (a * a * local.x) / q, y: (b * b * local.y) / q, z: (c * c * local.z) / q };
  const offset = apply(frame, surfaceLocal);
  return { point: { x: centre.x + offset.x, y: centre.y + offset.y, z: centre.z + offset.z }, rcs };
}

/**
 * Knife-edge diffraction loss in dB (ITU-R P.526 approximation), for an obstacle whose edge
 * rises h metres above the straight path, d1 and d2 metres from its ends:
 *   ν = h √(2 (d1 + d2) / (λ d1 d2)),  J(ν) = 6.9 + 20 log10(√((ν − 0.1)² + 1) + ν − 0.1) for ν > −0.78, else 0.
 */
export function knifeEdgeLossDb(h: number, d1: number, d2: number, lambda: number): number {
  if (d1 <= 0 || d2 <= 0) return 0;
  const nu = h * Math.sqrt((2 * (d1 + d2)) / (lambda * d1 * d2));
  if (nu <= -0.78) return 0;
  const v = nu - 0.1;
  return Math.max(0, 6.9 + 20 * Math.log10(Math.sqrt(v * v + 1) + v));
}
