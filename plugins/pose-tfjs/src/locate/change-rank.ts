import { symmetricEigenvalues } from './imager.js';

/** One link's change over the packets an estimate images, as the imager holds it (`RoomImager.heldChanges`). */
export interface HeldChange {
  /** `tx->rx`. */
  key: string;
  /** Transmit × receive antenna pairs: the rows of a packet's change, each `subcarriers` values long. */
  antennaPairs: number;
  subcarriers: number;
  /** Noise power per value of the change (the reference's, or the live floor's). */
  noisePower: number;
  /** Aligned, reference subtracted, calibrated: packet p's value (pair a, subcarrier k) at a · subcarriers + k. */
  packets: { re: ArrayLike<number>; im: ArrayLike<number> }[];
}

/**
 * Eigenvalues (descending) of the antenna-pair covariance of a link's change, in noise units:
 * R = M Mᴴ / (N σ²), M the antenna pairs × (subcarriers · packets) matrix of every packet's
 * change side by side, N its columns. A point scatterer's change is one antenna-pair vector
 * times a factor per subcarrier and packet, so it adds one large eigenvalue however it moves
 * (motion only turns the factors); noise alone gives eigenvalues near 1. How many stand above
 * the noise is a count of changes from distinct directions (issue 21, pilot-rank.mjs).
 */
export function antennaSpectrum(change: HeldChange): number[] {
  const m = change.antennaPairs, nsc = change.subcarriers;
  const columns = nsc * change.packets.length;
  // The Hermitian R as the real symmetric [[Re, −Im], [Im, Re]] (each eigenvalue twice).
  const N = 2 * m;
  const A = new Float64Array(N * N);
  for (const x of change.packets) {
    for (let a = 0; a < m; a++) {
      for (let b = a; b < m; b++) {
        let gr = 0, gi = 0;
        for (let k = 0; k < nsc; k++) {
          const ar = x.re[a * nsc + k], ai = x.im[a * nsc + k], br = x.re[b * nsc + k], bi = x.im[b * nsc + k];
          // x_a conj(x_b)
          gr += ar * br + ai * bi;
          gi += ai * br - ar * bi;
        }
        A[a * N + b] += gr; A[(a + m) * N + b + m] += gr; A[a * N + b + m] -= gi; A[(a + m) * N + b] += gi;
        if (b !== a) { A[b * N + a] += gr; A[(b + m) * N + a + m] += gr; A[b * N + a + m] += gi; A[(b + m) * N + a] -= gi; }
      }
    }
  }
  const scale = 1 / (Math.max(1, columns) * (change.noisePower || 1e-30));
  for (let i = 0; i < A.length; i++) A[i] *= scale;
  return symmetricEigenvalues(A, N).sort((u, v) => v - u).filter((_, i) => i % 2 === 0);
}

/**
 * How many eigenvalues of `antennaSpectrum` stand above the noise: above the largest a noise-only
 * matrix of that shape reaches (Marchenko–Pastur edge (1 + √(pairs / columns))²) times `margin`.
 */
export function sourcesAboveNoise(eigenvalues: readonly number[], columns: number, margin = 2): number {
  const edge = (1 + Math.sqrt(eigenvalues.length / Math.max(1, columns))) ** 2 * margin;
  return eigenvalues.filter((v) => v > edge).length;
}
