// Capon (MVDR) scoring of the imager (capon-protocol.md): the Woodbury form against the covariance inverted
// directly, and the property it is there for, a lobe scored far below the person's cell.
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '@wiflow/core';
import { planDataset } from '@wiflow/plugin-sim';
import { imageSession } from '../testing/image-session.js';
import { caponImage, type ImagingSettings } from './imager.js';

interface Vec { re: Float64Array; im: Float64Array }
const vec = (n: number, f: (j: number) => [number, number]): Vec => {
  const v = { re: new Float64Array(n), im: new Float64Array(n) };
  for (let j = 0; j < n; j++) [v.re[j], v.im[j]] = f(j);
  return v;
};
/** A response of unit-modulus entries (norm √n), as the imager's point-scatterer rows are. */
const steering = (n: number, random: () => number): Vec => vec(n, () => { const a = 2 * Math.PI * random(); return [Math.cos(a), Math.sin(a)]; });
/** y[row·P + p] = a_rowᴴ x_p, the matched-filter outputs the imager hands to caponImage. */
function outputs(rows: Vec[], packets: Vec[]): { yr: Float64Array; yi: Float64Array } {
  const P = packets.length, yr = new Float64Array(rows.length * P), yi = new Float64Array(rows.length * P);
  rows.forEach((a, r) => packets.forEach((x, p) => {
    for (let j = 0; j < a.re.length; j++) { yr[r * P + p] += a.re[j] * x.re[j] + a.im[j] * x.im[j]; yi[r * P + p] += a.re[j] * x.im[j] - a.im[j] * x.re[j]; }
  }));
  return { yr, yi };
}
/** aᴴ R⁻¹ a with R = X Xᴴ / P + σ² I built and solved directly (the n × n complex system as a 2n real one). */
function directQuadratic(a: Vec, packets: Vec[], sigma2: number): number {
  const n = a.re.length, N = 2 * n, P = packets.length;
  const m = new Float64Array(N * (N + 1));
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      let rr = i === k ? sigma2 : 0, ri = 0;
      for (const x of packets) { rr += (x.re[i] * x.re[k] + x.im[i] * x.im[k]) / P; ri += (x.im[i] * x.re[k] - x.re[i] * x.im[k]) / P; }
      m[i * (N + 1) + k] = rr; m[i * (N + 1) + k + n] = -ri; m[(i + n) * (N + 1) + k] = ri; m[(i + n) * (N + 1) + k + n] = rr;
    }
    m[i * (N + 1) + N] = a.re[i];
    m[(i + n) * (N + 1) + N] = a.im[i];
  }
  for (let c = 0; c < N; c++) {
    let p = c;
    for (let r = c + 1; r < N; r++) if (Math.abs(m[r * (N + 1) + c]) > Math.abs(m[p * (N + 1) + c])) p = r;
    for (let k = 0; k <= N; k++) [m[c * (N + 1) + k], m[p * (N + 1) + k]] = [m[p * (N + 1) + k], m[c * (N + 1) + k]];
    for (let r = 0; r < N; r++) {
      if (r === c) continue;
      const f = m[r * (N + 1) + c] / m[c * (N + 1) + c];
      for (let k = c; k <= N; k++) m[r * (N + 1) + k] -= f * m[c * (N + 1) + k];
    }
  }
  let q = 0;
  for (let i = 0; i < n; i++) q += a.re[i] * (m[i * (N + 1) + N] / m[i * (N + 1) + i]) + a.im[i] * (m[(i + n) * (N + 1) + N] / m[(i + n) * (N + 1) + i + n]);
  return q;
}

describe('caponImage', () => {
  it('gives 1 / (aᴴ R⁻¹ a) for R = X Xᴴ / P + σ² I, as the covariance inverted directly does', () => {
    const random = mulberry32(11);
    const n = 12, P = 4, sigma2 = 0.3;
    const rows = [0, 1, 2].map(() => steering(n, random));
    const packets = Array.from({ length: P }, () => vec(n, () => [random() - 0.5, random() - 0.5]));
    const img = new Float64Array(rows.length);
    caponImage(n, packets, outputs(rows, packets), rows.length, 1, sigma2, img);
    rows.forEach((a, r) => expect(img[r]).toBeCloseTo(1 / directQuadratic(a, packets, sigma2), 10));
  });

  it('adds the rows of one cell (H heights) into that cell', () => {
    const random = mulberry32(5);
    const n = 8, P = 3;
    const rows = [0, 1, 2, 3].map(() => steering(n, random));
    const packets = Array.from({ length: P }, () => vec(n, () => [random() - 0.5, random() - 0.5]));
    const perRow = new Float64Array(4), perCell = new Float64Array(2);
    const y = outputs(rows, packets);
    caponImage(n, packets, y, 4, 1, 0.5, perRow);
    caponImage(n, packets, y, 4, 2, 0.5, perCell);
    expect(perCell[0]).toBeCloseTo(perRow[0] + perRow[1], 12);
    expect(perCell[1]).toBeCloseTo(perRow[2] + perRow[3], 12);
  });

  it('scores a lobe (a response half like the person\'s) far lower against the person\'s cell than the matched filter does', () => {
    const random = mulberry32(3);
    const n = 90, P = 8, noise = 0.01;
    const person = steering(n, random), other = steering(n, random);
    // A lobe: a cell whose response shares half its direction with the person's (rescaled to norm √n).
    const mix = vec(n, (j) => [person.re[j] + other.re[j], person.im[j] + other.im[j]]);
    const norm = Math.sqrt(mix.re.reduce((s, v, j) => s + v * v + mix.im[j] ** 2, 0) / n);
    const lobe = vec(n, (j) => [mix.re[j] / norm, mix.im[j] / norm]);
    const far = steering(n, random);
    // Eight packets of one moving scatterer at the person's cell (its amplitude and phase change), plus noise.
    const packets = Array.from({ length: P }, () => {
      const g = [random() - 0.5, random() - 0.5];
      const s = Math.sqrt(noise / 2) * 1.7;
      return vec(n, (j) => [g[0] * person.re[j] - g[1] * person.im[j] + s * (random() - 0.5), g[0] * person.im[j] + g[1] * person.re[j] + s * (random() - 0.5)]);
    });
    const rows = [person, lobe, far];
    const y = outputs(rows, packets);
    const bartlett = rows.map((_, r) => Array.from({ length: P }, (_, p) => y.yr[r * P + p] ** 2 + y.yi[r * P + p] ** 2).reduce((a, b) => a + b, 0));
    const capon = new Float64Array(3);
    caponImage(n, packets, y, 3, 1, noise, capon);
    // The matched filter keeps about half the person's power on the lobe; Capon a small fraction of it.
    expect(bartlett[1] / bartlett[0]).toBeGreaterThan(0.3);
    expect(capon[1] / capon[0]).toBeLessThan(0.05);
    expect(capon[0]).toBeGreaterThan(capon[2]);
    expect(capon[0]).toBeGreaterThan(capon[1]);
  });
});

describe('RoomImager with scorer capon', () => {
  const settings: ImagingSettings = { gridStepM: 0.25, heightsM: [0.9], packets: 8, separationM: 0.8, cleanRadiusM: 0, maxPersons: 3, scatterer: 'point' };
  // The two-people sessions of a small plan's rooms, 4 s each.
  const sessions = planDataset({ rooms: 8, secondsPerSession: 4, sessionsPerRoom: 1, seed: 'capon-test', ranges: { receivers: [3, 3], rateHz: 20 } }).sessions.filter((s) => s.scenario.people.length >= 2).slice(0, 2);

  it('moves peaks but keeps the raw change energy and, at a cell both pick, the matched filter\'s score', () => {
    expect(sessions.length).toBeGreaterThan(0);
    let moved = 0, same = 0;
    for (const session of sessions) {
      const [plain, capon] = imageSession(session.scenario, settings, [{}, { scorer: 'capon' }]);
      expect(plain.length).toBeGreaterThan(3);
      plain.forEach((image, e) => {
        expect(capon[e].energies[0]).toBeCloseTo(image.energies[0], 6);
        const a = image.peaks[0], b = capon[e].peaks[0];
        if (a.x === b.x && a.y === b.y) {
          same++;
          expect(b.score).toBeCloseTo(a.score, 9);
        } else moved++;
      });
    }
    expect(moved).toBeGreaterThan(0);
    expect(same).toBeGreaterThan(0);
  });
});
