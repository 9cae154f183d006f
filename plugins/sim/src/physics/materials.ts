/**
 * Building materials as the ITU-R P.2040-3 (table 3) frequency models give them:
 * relative permittivity ε_r = a · f^b and conductivity σ = c · f^d, f in GHz, σ in S/m.
 * Reflection uses a single dielectric interface (half-space), see `fresnelReflection`.
 */
export interface MaterialModel {
  /** Human name. */
  name: string;
  a: number;
  b: number;
  c: number;
  d: number;
  /** A perfect conductor: Γ = −1 (TE) / +1 (TM) whatever the angle. */
  perfectConductor?: boolean;
}

/** The materials a scenario may name. */
export const MATERIALS = {
  concrete: { name: 'concrete', a: 5.24, b: 0, c: 0.0462, d: 0.7822 },
  brick: { name: 'brick', a: 3.91, b: 0, c: 0.0238, d: 0.16 },
  plasterboard: { name: 'plasterboard', a: 2.73, b: 0, c: 0.0085, d: 0.9395 },
  wood: { name: 'wood', a: 1.99, b: 0, c: 0.0047, d: 1.0718 },
  glass: { name: 'glass', a: 6.31, b: 0, c: 0.0036, d: 1.3394 },
  floorboard: { name: 'floorboard', a: 3.66, b: 0, c: 0.0044, d: 1.3515 },
  metal: { name: 'metal', a: 1, b: 0, c: 1e7, d: 0, perfectConductor: true },
} as const satisfies Record<string, MaterialModel>;

/** A material name a scenario may use. */
export type MaterialName = keyof typeof MATERIALS;

/** Names of the materials, for schemas and the randomiser. */
export const MATERIAL_NAMES = Object.keys(MATERIALS) as MaterialName[];

/** Complex relative permittivity η = ε_r − j·17.98·σ / f[GHz] of a material at a frequency. */
export function complexPermittivity(material: MaterialModel, frequencyHz: number): { re: number; im: number } {
  const fGHz = frequencyHz / 1e9;
  const epsR = material.a * Math.pow(fGHz, material.b);
  const sigma = material.c * Math.pow(fGHz, material.d);
  return { re: epsR, im: (-17.98 * sigma) / fGHz };
}

/** Which field component lies in the plane of incidence. */
export type Polarisation = 'TE' | 'TM';

/**
 * Fresnel reflection coefficient of a half-space of the material for a wave arriving at
 * angle θ from the normal (cosTheta = cos θ):
 *   Γ_TE = (cos θ − √(η − sin²θ)) / (cos θ + √(η − sin²θ))
 *   Γ_TM = (η cos θ − √(η − sin²θ)) / (η cos θ + √(η − sin²θ))
 */
export function fresnelReflection(material: MaterialModel, frequencyHz: number, cosTheta: number, polarisation: Polarisation): { re: number; im: number } {
  if (material.perfectConductor) return { re: polarisation === 'TE' ? -1 : 1, im: 0 };
  const c = Math.min(1, Math.abs(cosTheta));
  const sin2 = 1 - c * c;
  const eta = complexPermittivity(material, frequencyHz);
  const root = complexSqrt(eta.re - sin2, eta.im);
  if (polarisation === 'TE') return complexDivide(c - root.re, -root.im, c + root.re, root.im);
  const ec = { re: eta.re * c, im: eta.im * c };
  return complexDivide(ec.re - root.re, ec.im - root.im, ec.re + root.re, ec.im + root.im);
}

/** Principal square root of re + j·im. */
export function complexSqrt(re: number, im: number): { re: number; im: number } {
  const m = Math.hypot(re, im);
  const r = Math.sqrt((m + re) / 2);
  const i = Math.sqrt(Math.max(0, (m - re) / 2));
  return { re: r, im: im < 0 ? -i : i };
}

/** (a + jb) / (c + jd). */
export function complexDivide(a: number, b: number, c: number, d: number): { re: number; im: number } {
  const den = c * c + d * d;
  return { re: (a * c + b * d) / den, im: (b * c - a * d) / den };
}
