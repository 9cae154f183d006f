// Aligning a packet to an empty-room reference, shared by the delay-domain pilots (dprof, drti).

/**
 * An aligned copy of H: H e^{-jρk}/c fitted to H0 — the timing slope ρ from the ratios of
 * subcarriers at the grid's most common index gap, then the complex gain c.
 */
export function align(H, H0, idx, n) {
  let sr = 0, si = 0;
  // The most common index gap of the device grid (2 for the 20 MHz Intel grid, 4 at 40 MHz).
  const gaps = idx.slice(1).map((v, k) => v - idx[k]); const mode = gaps.sort((a, b) => gaps.filter((g) => g === b).length - gaps.filter((g) => g === a).length)[0];
  for (let s = 0; s < n / idx.length; s++) for (let k = 0; k + 1 < idx.length; k++) { if (idx[k + 1] - idx[k] !== mode) continue; const a = s * idx.length + k, b = a + 1;
    const r1r = H.re[b] * H0.re[b] + H.im[b] * H0.im[b], r1i = H.im[b] * H0.re[b] - H.re[b] * H0.im[b];
    const r0r = H.re[a] * H0.re[a] + H.im[a] * H0.im[a], r0i = H.im[a] * H0.re[a] - H.re[a] * H0.im[a];
    sr += r1r * r0r + r1i * r0i; si += r1i * r0r - r1r * r0i; }
  const rho = Math.atan2(si, sr) / mode;
  const out = { re: new Float64Array(n), im: new Float64Array(n) };
  for (let j = 0; j < n; j++) { const k = j % idx.length; const c = Math.cos(-rho * idx[k]), s = Math.sin(-rho * idx[k]); out.re[j] = H.re[j] * c - H.im[j] * s; out.im[j] = H.re[j] * s + H.im[j] * c; }
  let nr = 0, ni = 0, d = 0; for (let j = 0; j < n; j++) { nr += out.re[j] * H0.re[j] + out.im[j] * H0.im[j]; ni += out.im[j] * H0.re[j] - out.re[j] * H0.im[j]; d += H0.re[j] ** 2 + H0.im[j] ** 2; }
  const gr = nr / d, gi = ni / d, g2 = gr * gr + gi * gi;
  for (let j = 0; j < n; j++) { const r = out.re[j], i = out.im[j]; out.re[j] = (r * gr + i * gi) / g2; out.im[j] = (i * gr - r * gi) / g2; }
  return out;
}
