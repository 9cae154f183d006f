import { SPEED_OF_LIGHT } from './calibration.js';

/**
 * The expected covariance of a body's diffuse paths over one antenna pair's subcarriers, plus the noise
 * floor: R = ρ·R_T + I with R_T[k,k'] = e^{−j2π(f_k−f_k')τ₀} / (1 + j2π(f_k−f_k')T) — an exponential power-delay
 * tail of decay T that starts at the line-of-sight delay τ₀ (the simulator's reverberant body, docs/simulator.md
 * §7), ρ its power per value against the noise's. Across antenna pairs the diffuse paths arrive from every
 * direction, so pairs are taken as independent and each is whitened alone.
 */
export class DiffuseWhitener {
  /** Cholesky factor L of R (row-major, lower triangle), R = L Lᴴ. */
  readonly #lRe: Float64Array;
  readonly #lIm: Float64Array;

  constructor(readonly frequenciesHz: readonly number[], lineOfSightM: number, decayS: number, diffuseToNoise: number) {
    const K = frequenciesHz.length;
    const tau = lineOfSightM / SPEED_OF_LIGHT;
    const rRe = new Float64Array(K * K), rIm = new Float64Array(K * K);
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < K; j++) {
        const df = frequenciesHz[i] - frequenciesHz[j];
        // e^{−jφ} / (1 + jb) = e^{−jφ} (1 − jb) / (1 + b²)
        const phi = 2 * Math.PI * df * tau, b = 2 * Math.PI * df * decayS, d = 1 + b * b;
        const c = Math.cos(phi), s = -Math.sin(phi);
        rRe[i * K + j] = (diffuseToNoise * (c + s * b)) / d + (i === j ? 1 : 0);
        rIm[i * K + j] = (diffuseToNoise * (s - c * b)) / d;
      }
    }
    this.#lRe = new Float64Array(K * K);
    this.#lIm = new Float64Array(K * K);
    const lr = this.#lRe, li = this.#lIm;
    for (let i = 0; i < K; i++) {
      for (let j = 0; j <= i; j++) {
        // s = R[i][j] − Σ_{k<j} L[i][k] conj(L[j][k])
        let sr = rRe[i * K + j], si = rIm[i * K + j];
        for (let k = 0; k < j; k++) {
          sr -= lr[i * K + k] * lr[j * K + k] + li[i * K + k] * li[j * K + k];
          si -= li[i * K + k] * lr[j * K + k] - lr[i * K + k] * li[j * K + k];
        }
        if (i === j) lr[i * K + i] = Math.sqrt(Math.max(sr, 1e-12));
        else { lr[i * K + j] = sr / lr[j * K + j]; li[i * K + j] = si / lr[j * K + j]; }
      }
    }
  }

  /**
   * Whiten in place, block by block of `frequenciesHz.length` values (one antenna pair each): x ← L⁻¹x, so that
   * (L⁻¹a)ᴴ(L⁻¹x) = aᴴR⁻¹x. With `conjugated`, the values are conj(x) (the imager's stored steering) and stay so.
   */
  whiten(re: Float32Array | Float64Array, im: Float32Array | Float64Array, offset: number, length: number, conjugated = false): void {
    const K = this.frequenciesHz.length, lr = this.#lRe, li = this.#lIm;
    const sign = conjugated ? -1 : 1;
    const yr = new Float64Array(K), yi = new Float64Array(K);
    for (let block = offset; block < offset + length; block += K) {
      for (let i = 0; i < K; i++) {
        let sr = re[block + i], si = sign * im[block + i];
        for (let k = 0; k < i; k++) {
          sr -= lr[i * K + k] * yr[k] - li[i * K + k] * yi[k];
          si -= lr[i * K + k] * yi[k] + li[i * K + k] * yr[k];
        }
        yr[i] = sr / lr[i * K + i];
        yi[i] = si / lr[i * K + i];
      }
      for (let i = 0; i < K; i++) { re[block + i] = yr[i]; im[block + i] = sign * yi[i]; }
    }
  }
}
