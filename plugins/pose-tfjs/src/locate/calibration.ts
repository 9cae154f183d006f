/**
 * Calibrating an empty-room reference against the known geometry. A receiver's chains carry
 * fixed unknown phases (PLL, cables) and the reference an unknown residual timing slope; both
 * must be known to image coherently across antennas (angle of arrival and departure) and
 * subcarriers (delay). The static channel is modelled as the line of sight plus the six
 * first-order images (four walls, floor, ceiling) of the known room, with unknown complex
 * amplitudes; phases (one per transmit and per receive chain) and the slope are fitted by
 * alternating least squares.
 */

export const SPEED_OF_LIGHT = 299_792_458;
export const SUBCARRIER_SPACING_HZ = 312_500;

type P3 = readonly number[];
const dist = (a: P3, b: P3) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

/** Element positions of a horizontal uniform linear array centred on `position` (the simulator's convention). */
export function arrayElements(position: P3, array: { yawDeg: number; antennas: number; spacing?: number }, centerFrequencyHz: number): number[][] {
  const yaw = (array.yawDeg * Math.PI) / 180;
  const spacing = array.spacing ?? SPEED_OF_LIGHT / centerFrequencyHz / 2;
  const ax = -Math.sin(yaw), ay = Math.cos(yaw);
  return Array.from({ length: array.antennas }, (_, i) => {
    const o = (i - (array.antennas - 1) / 2) * spacing;
    return [position[0] + ax * o, position[1] + ay * o, position[2]];
  });
}

/** Per antenna-pair phase φ[t·nrx + r] and timing slope τ (s) such that H0 ≈ e^{jφ} e^{−j2π m Δf τ} · model. */
export interface LinkCalibration {
  phases: Float64Array;
  tauS: number;
}

function imagesOf(p: P3, room: { width: number; depth: number; height: number }): P3[] {
  const { width: W, depth: D, height: H } = room;
  return [p, [-p[0], p[1], p[2]], [2 * W - p[0], p[1], p[2]], [p[0], -p[1], p[2]], [p[0], 2 * D - p[1], p[2]], [p[0], p[1], -p[2]], [p[0], p[1], 2 * H - p[2]]];
}

/** Solve the m×m complex system A x = b (Gaussian elimination with partial pivoting). */
function solveComplex(ar: Float64Array, ai: Float64Array, br: Float64Array, bi: Float64Array, m: number): { re: Float64Array; im: Float64Array } {
  for (let i = 0; i < m; i++) ar[i * m + i] *= 1 + 1e-9;
  for (let c = 0; c < m; c++) {
    let p = c;
    for (let r = c + 1; r < m; r++) if (Math.hypot(ar[r * m + c], ai[r * m + c]) > Math.hypot(ar[p * m + c], ai[p * m + c])) p = r;
    if (p !== c) {
      for (let k = 0; k < m; k++) {
        [ar[c * m + k], ar[p * m + k]] = [ar[p * m + k], ar[c * m + k]];
        [ai[c * m + k], ai[p * m + k]] = [ai[p * m + k], ai[c * m + k]];
      }
      [br[c], br[p]] = [br[p], br[c]];
      [bi[c], bi[p]] = [bi[p], bi[c]];
    }
    const dr = ar[c * m + c], di = ai[c * m + c], dd = dr * dr + di * di || 1e-300;
    for (let r = 0; r < m; r++) {
      if (r === c) continue;
      const nr = ar[r * m + c], ni = ai[r * m + c];
      const fr = (nr * dr + ni * di) / dd, fi = (ni * dr - nr * di) / dd;
      for (let k = 0; k < m; k++) {
        ar[r * m + k] -= fr * ar[c * m + k] - fi * ai[c * m + k];
        ai[r * m + k] -= fr * ai[c * m + k] + fi * ar[c * m + k];
      }
      br[r] -= fr * br[c] - fi * bi[c];
      bi[r] -= fr * bi[c] + fi * br[c];
    }
  }
  const xr = new Float64Array(m), xi = new Float64Array(m);
  for (let c = 0; c < m; c++) {
    const dr = ar[c * m + c], di = ai[c * m + c], dd = dr * dr + di * di || 1e-300;
    xr[c] = (br[c] * dr + bi[c] * di) / dd;
    xi[c] = (bi[c] * dr - br[c] * di) / dd;
  }
  return { re: xr, im: xi };
}

/**
 * Fit the chain phases and timing slope of a link's reference H0 ([tx][rx][sc]) to the
 * room's geometric static channel. `maxTauS` bounds the slope search (the reference's
 * residual slope is the mean of zero-mean timing offsets: a few ns).
 */
export function calibrateLink(
  H0: { re: ArrayLike<number>; im: ArrayLike<number> },
  txElements: readonly P3[],
  rxElements: readonly P3[],
  room: { width: number; depth: number; height: number },
  subcarriers: ArrayLike<number>,
  centerFrequencyHz: number,
  maxTauS = 20e-9,
): LinkCalibration {
  const ntx = txElements.length, nrx = rxElements.length, nsc = subcarriers.length, n = ntx * nrx * nsc;
  const fk = Array.from(subcarriers, (m) => centerFrequencyHz + m * SUBCARRIER_SPACING_HZ);
  const P = 7;
  const Br = new Float64Array(P * n), Bi = new Float64Array(P * n);
  for (let t = 0; t < ntx; t++) {
    const images = imagesOf(txElements[t], room);
    for (let r = 0; r < nrx; r++) {
      for (let p = 0; p < P; p++) {
        const L = dist(images[p], rxElements[r]);
        for (let k = 0; k < nsc; k++) {
          const j = (t * nrx + r) * nsc + k;
          const a = (-2 * Math.PI * fk[k] * L) / SPEED_OF_LIGHT;
          Br[p * n + j] = Math.cos(a) / L;
          Bi[p * n + j] = Math.sin(a) / L;
        }
      }
    }
  }
  const pairs = ntx * nrx;
  // Derotate H0 by the current calibration: Y = H0 · e^{−jφ} · e^{+j2π m Δf τ}.
  const derotate = (phases: Float64Array, tau: number) => {
    const yr = new Float64Array(n), yi = new Float64Array(n);
    for (let q = 0; q < pairs; q++) {
      for (let k = 0; k < nsc; k++) {
        const j = q * nsc + k;
        const a = -phases[q] + 2 * Math.PI * subcarriers[k] * SUBCARRIER_SPACING_HZ * tau;
        const c = Math.cos(a), s = Math.sin(a);
        yr[j] = H0.re[j] * c - H0.im[j] * s;
        yi[j] = H0.re[j] * s + H0.im[j] * c;
      }
    }
    return { yr, yi };
  };
  // Start: line of sight only, slope by grid search, phase per pair.
  const losCorrelation = (tau: number) => {
    const out: [number, number][] = [];
    for (let q = 0; q < pairs; q++) {
      let cr = 0, ci = 0;
      for (let k = 0; k < nsc; k++) {
        const j = q * nsc + k;
        const a = -(Math.atan2(Bi[j], Br[j])) + 2 * Math.PI * subcarriers[k] * SUBCARRIER_SPACING_HZ * tau;
        const c = Math.cos(a), s = Math.sin(a);
        cr += H0.re[j] * c - H0.im[j] * s;
        ci += H0.re[j] * s + H0.im[j] * c;
      }
      out.push([cr, ci]);
    }
    return out;
  };
  let tau = 0, best = -1;
  for (let t = -maxTauS; t <= maxTauS + 1e-15; t += 0.5e-9) {
    const score = losCorrelation(t).reduce((a, [cr, ci]) => a + Math.hypot(cr, ci), 0);
    if (score > best) { best = score; tau = t; }
  }
  let phases = Float64Array.from(losCorrelation(tau), ([cr, ci]) => Math.atan2(ci, cr));
  for (let iteration = 0; iteration < 6; iteration++) {
    // Path amplitudes by least squares.
    const { yr, yi } = derotate(phases, tau);
    const Gr = new Float64Array(P * P), Gi = new Float64Array(P * P), br = new Float64Array(P), bi = new Float64Array(P);
    for (let p = 0; p < P; p++) {
      for (let q = 0; q < P; q++) {
        let sr = 0, si = 0;
        for (let j = 0; j < n; j++) {
          sr += Br[p * n + j] * Br[q * n + j] + Bi[p * n + j] * Bi[q * n + j];
          si += Br[p * n + j] * Bi[q * n + j] - Bi[p * n + j] * Br[q * n + j];
        }
        Gr[p * P + q] = sr; Gi[p * P + q] = si;
      }
      let sr = 0, si = 0;
      for (let j = 0; j < n; j++) {
        sr += Br[p * n + j] * yr[j] + Bi[p * n + j] * yi[j];
        si += Br[p * n + j] * yi[j] - Bi[p * n + j] * yr[j];
      }
      br[p] = sr; bi[p] = si;
    }
    const amp = solveComplex(Gr, Gi, br, bi, P);
    const mr = new Float64Array(n), mi = new Float64Array(n);
    for (let p = 0; p < P; p++) {
      for (let j = 0; j < n; j++) {
        mr[j] += amp.re[p] * Br[p * n + j] - amp.im[p] * Bi[p * n + j];
        mi[j] += amp.re[p] * Bi[p * n + j] + amp.im[p] * Br[p * n + j];
      }
    }
    // Phases: per pair correlation of H0 with the slope-rotated model, then φ = α_t + β_r.
    const corr = Array.from({ length: pairs }, (_, q) => {
      let cr = 0, ci = 0;
      for (let k = 0; k < nsc; k++) {
        const j = q * nsc + k;
        const a = -2 * Math.PI * subcarriers[k] * SUBCARRIER_SPACING_HZ * tau;
        const zr = mr[j] * Math.cos(a) - mi[j] * Math.sin(a), zi = mr[j] * Math.sin(a) + mi[j] * Math.cos(a);
        cr += H0.re[j] * zr + H0.im[j] * zi;
        ci += H0.im[j] * zr - H0.re[j] * zi;
      }
      return [cr, ci] as const;
    });
    const alpha = new Float64Array(ntx), beta = new Float64Array(nrx);
    for (let it = 0; it < 10; it++) {
      for (let t = 0; t < ntx; t++) {
        let sr = 0, si = 0;
        for (let r = 0; r < nrx; r++) { const [cr, ci] = corr[t * nrx + r]; const c = Math.cos(-beta[r]), s = Math.sin(-beta[r]); sr += cr * c - ci * s; si += cr * s + ci * c; }
        alpha[t] = Math.atan2(si, sr);
      }
      for (let r = 0; r < nrx; r++) {
        let sr = 0, si = 0;
        for (let t = 0; t < ntx; t++) { const [cr, ci] = corr[t * nrx + r]; const c = Math.cos(-alpha[t]), s = Math.sin(-alpha[t]); sr += cr * c - ci * s; si += cr * s + ci * c; }
        beta[r] = Math.atan2(si, sr);
      }
    }
    phases = Float64Array.from({ length: pairs }, (_, q) => alpha[Math.floor(q / nrx)] + beta[q % nrx]);
    // Slope: least residual within ±6 ns of the current one.
    let bestTau = tau, bestError = Infinity;
    for (let d = -6e-9; d <= 6e-9 + 1e-15; d += 0.25e-9) {
      const { yr: zr, yi: zi } = derotate(phases, tau + d);
      let e = 0;
      for (let j = 0; j < n; j++) e += (zr[j] - mr[j]) ** 2 + (zi[j] - mi[j]) ** 2;
      if (e < bestError) { bestError = e; bestTau = tau + d; }
    }
    tau = bestTau;
  }
  return { phases, tauS: tau };
}
