import type { CsiFrame } from '@wiflow/core';
import { PoseErrors } from '../errors.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import { calibrate, calibratedLink, referenceChange } from './calibrated-link.js';
import { DiffuseWhitener } from './diffuse-whitening.js';
import { LiveNoiseFloor } from './live-noise.js';
import { StaticChainGain } from './static-chain-gain.js';
import { SPEED_OF_LIGHT } from './calibration.js';
import type { EmptyRoomReference, LinkReference } from './reference.js';
import type { HeldChange } from './change-rank.js';

/** How the room is imaged (part of a locator model; the shipped values are in its `locator.json`). */
export interface ImagingSettings {
  /** Floor grid step, metres. */
  gridStepM: number;
  /** Heights of the scatterer imaged at each floor cell (powers add), metres. */
  heightsM: number[];
  /** Packets per link that one estimate images (powers add). */
  packets: number;
  /** Two people are at least this far apart on the floor, metres. */
  separationM: number;
  /** Cells within this distance of a found person are projected out before the next is sought, metres. */
  cleanRadiusM: number;
  /** People sought per estimate. */
  maxPersons: number;
  /**
   * What a person is to the imager: 'point' — one scatterer per height, powers added (v1);
   * 'body' — the span of the scattering responses at every height of `heightsM` (a body is
   * scatterers along its height with unknown amplitudes): each cell scores the change energy
   * that span explains (the forward model's likelihood with free path amplitudes).
   */
  scatterer?: 'point' | 'body';
  /**
   * A link's packet closer than this to the last one kept is skipped before it is aligned
   * (seconds; absent: every packet is kept). At 100 Hz, 0.045 keeps one packet in five (at 20 Hz,
   * all of them: half a packet interval of margin either way for timing jitter): the
   * estimates see 20 packets a second per link, as on the rooms they were fitted on, and the
   * skipped packets cost nothing (the estimator keeps up with 100 Hz on a fraction of a core).
   */
  minPacketIntervalS?: number;
  /**
   * How each packet's complex gain is fitted against the reference: 'reference' (absent) — as the
   * reference chose (`LinkReference.gain`); 'per-rx-chain' — one gain per receive chain on every
   * link, so new chain phases (a re-plugged receiver) or a per-chain AGC step are not read as
   * a body (drift-protocol.md, candidate A).
   */
  chainGain?: 'reference' | 'per-rx-chain';
  /**
   * Measure each link's noise floor on the recording (`LiveNoiseFloor`) instead of trusting the
   * reference's, once enough packets came (drift-protocol.md, candidate B).
   */
  liveNoise?: boolean;
  /**
   * Time constant (s) of a static background of the change that each link follows and
   * subtracts (a slowly adapting reference); absent: none (drift-protocol.md, candidate C).
   */
  backgroundS?: number;
  /**
   * A complex gain per receive chain held static over `windowS` seconds and divided out of every
   * aligned packet (`StaticChainGain`; only while some chain's gain is more than `minDeviation`
   * from 1): a re-plugged receiver's new chain phases are one complex number per chain; absent:
   * none (drift2-protocol.md).
   */
  staticChainGain?: { windowS: number; minDeviation: number };
  /**
   * Place peaks against a body's diffuse paths as well as noise (`DiffuseWhitener`; c2image-protocol.md): each
   * link's change and responses are whitened over subcarriers by an exponential delay tail of `decayNs` that
   * starts at the link's line of sight, `diffuseToNoise` times the noise power per value. Only the score that
   * picks peaks reads the whitened image; CLEAN's energies, the count features and the evidence stay the raw
   * change's. Absent: none.
   */
  diffuseWhitening?: { decayNs: number; diffuseToNoise: number };
  /**
   * How a cell is scored when peaks are picked: 'bartlett' (absent) — the matched filter's power; 'capon' —
   * the minimum-variance (Capon, MVDR) power 1 / (aᴴ R⁻¹ a), R the packets' change covariance loaded with
   * `caponLoading` × the link's noise power (capon-protocol.md). Only where peaks go changes: a peak's `score`
   * stays the matched filter's at the cell picked, and CLEAN's energies are the raw change's.
   */
  scorer?: 'bartlett' | 'capon';
  /** Diagonal loading of Capon's covariance, in units of the link's noise power per value (default 1). */
  caponLoading?: number;
}

/** One person found in the image, in the order found (strongest first). */
export interface ImagePeak {
  x: number;
  y: number;
  /** Sum over links of log(share of the link's image power in this cell). */
  score: number;
}

/** What one estimate of a room yields: peaks and the change energy left after each removal. */
export interface RoomImage {
  peaks: ImagePeak[];
  /** energies[0]: change energy of the packets imaged; energies[i]: left after removing i people. */
  energies: number[];
  /** Energy of the reference over the same packets (for a scale-free measure of the change). */
  referenceEnergy: number;
  /** Expected energy of an empty room's change over the same packets (the references' noise floor). */
  noiseEnergy: number;
  /**
   * `energies` split by link: linkEnergies[i][l] is link l's change energy left after removing i
   * people. What a peak explains on each link (the drop from i to i + 1) says which links see it.
   */
  linkEnergies: number[][];
  /** `noiseEnergy` split by link (the same order as the environment's links). */
  linkNoiseEnergies: number[];
  /** Score of a cell holding an equal share of every link's image (−links · log cells). */
  uniformScore: number;
  /**
   * Eigenvalues (descending) of the packets' Gram matrix of the change, summed over links and
   * divided by each link's noise energy per packet (1 = noise): how many independent changes
   * the packets hold.
   */
  changeSpectrum: number[];
}

interface LinkState {
  key: string;
  reference: LinkReference;
  h0: { re: Float64Array; im: Float64Array };
  subcarriers: Int16Array;
  n: number;
  /** Calibration factor per entry: e^{−jφ} e^{+j2π m Δf τ}. */
  calRe: Float32Array;
  calIm: Float32Array;
  /** Conjugate steering per (cell, height): e^{+j2π f_k L/c}, [cell·heights + h][n]. */
  steerRe: Float32Array;
  steerIm: Float32Array;
  history: { re: Float32Array; im: Float32Array }[];
  referenceEnergy: number;
  /** Time (ms) of the last packet kept. */
  lastKeptMs: number;
  /** Noise power per value the estimates use: the reference's, or the live floor's (`liveNoise`). */
  noisePower: number;
  liveNoise: LiveNoiseFloor | null;
  /** The followed static background of the change (`backgroundS`); null without it. */
  background: { re: Float64Array; im: Float64Array } | null;
  /** The static gain per receive chain (`staticChainGain`); null without it. */
  staticGain: StaticChainGain | null;
  /** `diffuseWhitening`: the link's whitener and its whitened steering (rows of norm √n, as `steerRe`); null without it. */
  whitening: { whitener: DiffuseWhitener; steerRe: Float32Array; steerIm: Float32Array } | null;
}

/**
 * Coherent back-projection of one room. Each packet of each link is aligned to the link's
 * empty-room reference, the reference subtracted (what is left is what the people changed)
 * and the reference's chain phases and slope calibrated out; the change is then matched
 * against a point scatterer's response at every floor cell over all transmit antennas ×
 * receive antennas × subcarriers (angle of departure, angle of arrival and delay together).
 * Packets and links add incoherently. People are taken one at a time (CLEAN): the strongest
 * cell, then its neighbourhood's responses projected out of the change, and again.
 */
export class RoomImager {
  readonly cells: [number, number][] = [];
  readonly #links: LinkState[];
  readonly #byKey = new Map<string, LinkState>();

  constructor(readonly environment: EnvironmentGeometry, reference: EmptyRoomReference, readonly settings: ImagingSettings) {
    const { width: W, depth: D } = environment.room;
    const step = settings.gridStepM;
    for (let x = step / 2; x < W; x += step) for (let y = step / 2; y < D; y += step) this.cells.push([x, y]);
    this.#links = environment.links.map((link) => {
      const { key, reference: ref, h0, subcarriers, n, nsc, calRe, calIm, txE, rxE, fk } = calibratedLink(environment, reference, link, 'pose.locate');
      const H = settings.heightsM.length;
      const steerRe = new Float32Array(this.cells.length * H * n), steerIm = new Float32Array(this.cells.length * H * n);
      let row = 0;
      for (const [x, y] of this.cells) {
        for (const h of settings.heightsM) {
          for (let t = 0; t < txE.length; t++) {
            const dt = Math.hypot(x - txE[t][0], y - txE[t][1], h - txE[t][2]);
            for (let r = 0; r < rxE.length; r++) {
              const L = dt + Math.hypot(x - rxE[r][0], y - rxE[r][1], h - rxE[r][2]);
              for (let k = 0; k < nsc; k++) {
                const a = (2 * Math.PI * fk[k] * L) / SPEED_OF_LIGHT;
                const j = row * n + (t * rxE.length + r) * nsc + k;
                steerRe[j] = Math.cos(a);
                steerIm[j] = Math.sin(a);
              }
            }
          }
          row++;
        }
        if (settings.scatterer === 'body') orthonormaliseCell(steerRe, steerIm, (row - H) * n, H, n);
      }
      const whitening = settings.diffuseWhitening ? whitenedSteering(steerRe, steerIm, n, H, settings, new DiffuseWhitener(fk, Math.hypot(link.txPosition[0] - link.rxPosition[0], link.txPosition[1] - link.rxPosition[1], link.txPosition[2] - link.rxPosition[2]), settings.diffuseWhitening.decayNs * 1e-9, settings.diffuseWhitening.diffuseToNoise)) : null;
      let referenceEnergy = 0;
      for (let j = 0; j < n; j++) referenceEnergy += h0.re[j] ** 2 + h0.im[j] ** 2;
      const state: LinkState = {
        key, reference: ref, h0, subcarriers, n, calRe, calIm, steerRe, steerIm, history: [], referenceEnergy, lastKeptMs: -Infinity,
        noisePower: ref.noisePower,
        liveNoise: settings.liveNoise ? new LiveNoiseFloor(subcarriers, ref.ntx * ref.nrx) : null,
        background: settings.backgroundS ? { re: new Float64Array(n), im: new Float64Array(n) } : null,
        // Only for links aligned with one common gain: a reference that chose a gain per chain already has one on every packet.
        staticGain: settings.staticChainGain && ref.gain === 'common' && settings.chainGain !== 'per-rx-chain' ? new StaticChainGain(h0, subcarriers, ref.nrx, settings.staticChainGain.windowS, settings.staticChainGain.minDeviation) : null,
        whitening,
      };
      this.#byKey.set(key, state);
      return state;
    });
  }

  /** Whether the frame belongs to this room (one of its links). */
  has(frame: CsiFrame): boolean {
    return this.#byKey.has(`${frame.link.tx}->${frame.link.rx}`);
  }

  /** Add one frame of one of the room's links; false when it was skipped (`minPacketIntervalS`). */
  push(frame: CsiFrame): boolean {
    const key = `${frame.link.tx}->${frame.link.rx}`;
    const link = this.#byKey.get(key);
    if (!link) throw PoseErrors.windowInvalid(`frame of link ${key} does not belong to environment ${this.environment.id}`);
    const ref = link.reference;
    if (frame.ntx !== ref.ntx || frame.nrx !== ref.nrx || frame.nsc !== ref.subcarriers.length || frame.csi.re.length !== link.n) {
      throw PoseErrors.windowInvalid(`frame of link ${key} is ${frame.ntx}×${frame.nrx}×${frame.nsc}, its empty-room reference ${ref.ntx}×${ref.nrx}×${ref.subcarriers.length}`);
    }
    for (let k = 0; k < frame.nsc; k++) {
      if (frame.subcarriers[k] !== link.subcarriers[k]) throw PoseErrors.windowInvalid(`frame of link ${key} has another subcarrier grid than its empty-room reference`);
    }
    const interval = this.settings.minPacketIntervalS;
    // A packet from before the last one kept (a restarted stream) is kept: time went back.
    if (interval !== undefined && frame.time - link.lastKeptMs < interval * 1000 && frame.time >= link.lastKeptMs) return false;
    const elapsedS = Number.isFinite(link.lastKeptMs) ? Math.max(0, frame.time - link.lastKeptMs) / 1000 : null;
    link.lastKeptMs = frame.time;
    const held = link.staticGain?.align(frame.csi, frame.time);
    const change = held ? minusReference(held, link.h0) : referenceChange(link, frame.csi, this.settings.chainGain === 'per-rx-chain' ? 'per-rx-chain' : link.reference.gain);
    if (link.liveNoise) {
      link.liveNoise.push(change.re, change.im);
      link.noisePower = link.liveNoise.power() ?? link.reference.noisePower;
    }
    const bg = link.background;
    if (bg) {
      // The background starts at the reference (zero change) and follows the change with time constant backgroundS.
      const alpha = elapsedS === null ? 0 : 1 - Math.exp(-elapsedS / this.settings.backgroundS!);
      for (let j = 0; j < link.n; j++) {
        const r = change.re[j], i = change.im[j];
        change.re[j] = r - bg.re[j]; change.im[j] = i - bg.im[j];
        bg.re[j] += alpha * (r - bg.re[j]); bg.im[j] += alpha * (i - bg.im[j]);
      }
    }
    link.history.push(calibrate(link, change));
    if (link.history.length > this.settings.packets) link.history.shift();
    return true;
  }

  /** Every link holds enough packets for an estimate. */
  ready(): boolean {
    return this.#links.every((l) => l.history.length >= this.settings.packets);
  }

  /** Each link's change over the packets held (copies), as `image()` would see it: for statistics of the raw change (change-rank.ts). */
  heldChanges(): HeldChange[] {
    return this.#links.map((l) => ({ key: l.key, antennaPairs: l.reference.ntx * l.reference.nrx, subcarriers: l.subcarriers.length, noisePower: l.noisePower, packets: l.history.map((x) => ({ re: Float32Array.from(x.re), im: Float32Array.from(x.im) })) }));
  }

  /** Drop the packets held (after a gap in the stream). */
  reset(): void {
    for (const l of this.#links) l.history = [];
  }

  /**
   * Per link, the change power of the packets held matched at every (cell, height) before any person is taken
   * (`powers[l][cell · heights + h]`): where in height the change sits at a spot (falls pilot, docs/sensing.md).
   * With `scatterer: 'body'` the rows are an orthonormal basis, not heights; use 'point' to read heights.
   * `changes` (per link, calibrated packets as `heldChanges()` gives them) images other packets than those held.
   */
  powerByHeight(changes?: readonly { re: ArrayLike<number>; im: ArrayLike<number> }[][]): Float64Array[] {
    const rows = this.cells.length * this.settings.heightsM.length;
    return this.#links.map((link, li) => {
      const power = new Float64Array(rows);
      const yr = new Float64Array(rows), yi = new Float64Array(rows);
      for (const x of changes ? changes[li] : link.history) {
        matchedFilter(link.n, link.steerRe, link.steerIm, x.re, x.im, rows, yr, yi, 0, 1);
        for (let row = 0; row < rows; row++) power[row] += yr[row] * yr[row] + yi[row] * yi[row];
      }
      return power;
    });
  }

  /** Image the packets held and take up to `maxPersons` people from it. */
  image(): RoomImage {
    const H = this.settings.heightsM.length;
    const cells = this.cells;
    const histories = this.#links.map((l) => l.history.map((x) => ({ re: Float32Array.from(x.re), im: Float32Array.from(x.im) })));
    const linkEnergy = () => histories.map((h) => h.reduce((s, x) => { let e = 0; for (let j = 0; j < x.re.length; j++) e += x.re[j] * x.re[j] + x.im[j] * x.im[j]; return s + e; }, 0));
    const linkEnergies = [linkEnergy()];
    const energy = () => linkEnergies[linkEnergies.length - 1].reduce((a, b) => a + b, 0);
    const referenceEnergy = this.#links.reduce((s, l, i) => s + l.referenceEnergy * histories[i].length, 0);
    const linkNoiseEnergies = this.#links.map((l, i) => l.noisePower * l.n * histories[i].length);
    const noiseEnergy = linkNoiseEnergies.reduce((a, b) => a + b, 0);
    const rows = cells.length * H;
    // Matched-filter outputs y[row][packet] = a_rowᴴ x_packet, per link: computed once; each removal
    // of a direction q from the packets updates them as y ← y − (a_rowᴴ q)(qᴴ x) instead of imaging again.
    const outputs = this.#links.map((link, li) => {
      const packets = histories[li];
      const yr = new Float64Array(rows * packets.length), yi = new Float64Array(rows * packets.length);
      packets.forEach((x, p) => matchedFilter(link.n, link.steerRe, link.steerIm, x.re, x.im, rows, yr, yi, p, packets.length));
      return { yr, yi };
    });
    // With `diffuseWhitening`, the score reads the same outputs of the whitened packets and responses, kept beside the raw ones.
    const whitened = this.#links.map((link, li) => {
      const w = link.whitening;
      if (!w) return null;
      const packets = histories[li].map((x) => { const re = Float32Array.from(x.re), im = Float32Array.from(x.im); w.whitener.whiten(re, im, 0, link.n); return { re, im }; });
      const yr = new Float64Array(rows * packets.length), yi = new Float64Array(rows * packets.length);
      packets.forEach((x, p) => matchedFilter(link.n, w.steerRe, w.steerIm, x.re, x.im, rows, yr, yi, p, packets.length));
      return { packets, outputs: { yr, yi } };
    });
    const scores = new Float64Array(cells.length);
    const img = new Float64Array(cells.length);
    // With `scorer: 'capon'`, peaks are picked on `pickScores`; `scores` (the matched filter's) stay what a peak reports.
    const capon = this.settings.scorer === 'capon';
    const pickScores = capon ? new Float64Array(cells.length) : scores;
    const addShares = (target: Float64Array) => {
      let total = 0;
      for (let c = 0; c < cells.length; c++) total += img[c];
      for (let c = 0; c < cells.length; c++) target[c] += Math.log(img[c] / (total || 1) + 1e-12);
    };
    const score = () => {
      scores.fill(0);
      if (capon) pickScores.fill(0);
      this.#links.forEach((link, li) => {
        img.fill(0);
        const { yr, yi } = whitened[li]?.outputs ?? outputs[li];
        const P = histories[li].length;
        for (let row = 0; row < rows; row++) {
          let power = 0;
          for (let p = 0; p < P; p++) power += yr[row * P + p] * yr[row * P + p] + yi[row * P + p] * yi[row * P + p];
          img[(row / H) | 0] += power;
        }
        addShares(scores);
        if (!capon) return;
        img.fill(0);
        caponImage(link.n, histories[li], outputs[li], rows, H, (this.settings.caponLoading ?? 1) * link.noisePower, img);
        addShares(pickScores);
      });
    };
    const changeSpectrum = this.#spectrum(histories);
    const energies = [energy()];
    const peaks: ImagePeak[] = [];
    for (let p = 0; p < this.settings.maxPersons; p++) {
      score();
      let best = -1;
      for (let c = 0; c < cells.length; c++) {
        if (best >= 0 && pickScores[c] <= pickScores[best]) continue;
        if (peaks.every((q) => Math.hypot(q.x - cells[c][0], q.y - cells[c][1]) > this.settings.separationM)) best = c;
      }
      if (best < 0) break;
      peaks.push({ x: cells[best][0], y: cells[best][1], score: scores[best] });
      // Project the responses of the cells around the peak (all heights) out of every packet, and out of the outputs.
      const local: number[] = [];
      cells.forEach((c, ci) => {
        if (Math.hypot(c[0] - cells[best][0], c[1] - cells[best][1]) <= this.settings.cleanRadiusM + 1e-9) for (let h = 0; h < H; h++) local.push(ci * H + h);
      });
      this.#links.forEach((link, li) => {
        projectOut(link.n, link.steerRe, link.steerIm, local, rows, histories[li], outputs[li]);
        const w = link.whitening, own = whitened[li];
        if (w && own) projectOut(link.n, w.steerRe, w.steerIm, local, rows, own.packets, own.outputs);
      });
      linkEnergies.push(linkEnergy());
      energies.push(energy());
    }
    return { peaks, energies, referenceEnergy, noiseEnergy, linkEnergies, linkNoiseEnergies, changeSpectrum, uniformScore: -this.#links.length * Math.log(cells.length) };
  }

  #spectrum(histories: { re: Float32Array; im: Float32Array }[][]): number[] {
    const P = this.settings.packets;
    const total = new Float64Array(P);
    this.#links.forEach((link, li) => {
      const packets = histories[li];
      const m = packets.length;
      // The Hermitian Gram matrix G = Xᴴ X as the real symmetric [[Re, −Im], [Im, Re]] (each eigenvalue twice).
      const A = new Float64Array(4 * m * m);
      const N = 2 * m;
      for (let a = 0; a < m; a++) {
        for (let b = 0; b < m; b++) {
          let gr = 0, gi = 0;
          const x = packets[a], y = packets[b];
          for (let j = 0; j < link.n; j++) { gr += x.re[j] * y.re[j] + x.im[j] * y.im[j]; gi += x.re[j] * y.im[j] - x.im[j] * y.re[j]; }
          A[a * N + b] = gr; A[(a + m) * N + b + m] = gr; A[a * N + b + m] = -gi; A[(a + m) * N + b] = gi;
        }
      }
      const values = symmetricEigenvalues(A, N).sort((u, v) => v - u).filter((_, i) => i % 2 === 0);
      const noise = link.noisePower * link.n;
      for (let i = 0; i < Math.min(P, values.length); i++) total[i] += values[i] / noise / this.#links.length;
    });
    return Array.from(total);
  }
}

/**
 * Capon's (MVDR) power per cell of one link, added into `img` (H rows a cell): 1 / (aᴴ R⁻¹ a) with
 * R = X Xᴴ / P + σ² I, X the link's packets (n × P) and σ² = `loading` (power per value). By Woodbury
 * aᴴ R⁻¹ a = (n − zᴴ (G + Pσ² I)⁻¹ z) / σ², z = Xᴴ a = conj(y) (the matched-filter outputs) and G = Xᴴ X.
 * A cell whose response lies in the packets' span scores high; a lobe, partly outside it, low.
 */
export function caponImage(n: number, packets: readonly { re: ArrayLike<number>; im: ArrayLike<number> }[], outputs: { yr: Float64Array; yi: Float64Array }, rows: number, H: number, loading: number, img: Float64Array): void {
  const P = packets.length;
  if (P === 0) return;
  const sigma2 = loading > 0 ? loading : 1e-12;
  // M = G + Pσ² I as the real symmetric 2P × 2P [[Re, −Im], [Im, Re]]; its inverse has the same form.
  const N = 2 * P;
  const m = new Float64Array(N * N);
  for (let a = 0; a < P; a++) {
    for (let b = a; b < P; b++) {
      let gr = 0, gi = 0;
      const x = packets[a], y = packets[b];
      for (let j = 0; j < n; j++) { gr += x.re[j] * y.re[j] + x.im[j] * y.im[j]; gi += x.re[j] * y.im[j] - x.im[j] * y.re[j]; }
      if (a === b) { gr += P * sigma2; gi = 0; }
      // G[a][b] = x_aᴴ x_b = gr + j gi; G[b][a] = its conjugate.
      m[a * N + b] = gr; m[(a + P) * N + b + P] = gr; m[a * N + b + P] = -gi; m[(a + P) * N + b] = gi;
      m[b * N + a] = gr; m[(b + P) * N + a + P] = gr; m[b * N + a + P] = gi; m[(b + P) * N + a] = -gi;
    }
  }
  const inv = invertSymmetric(m, N);
  // zᴴ M⁻¹ z with z = conj(y): as real vectors w = [Re z, Im z] = [yr, −yi], the quadratic form wᵀ M⁻¹_real w.
  const { yr, yi } = outputs;
  const w = new Float64Array(N);
  for (let row = 0; row < rows; row++) {
    for (let p = 0; p < P; p++) { w[p] = yr[row * P + p]; w[p + P] = -yi[row * P + p]; }
    let q = 0;
    for (let i = 0; i < N; i++) {
      let s = 0;
      for (let k = 0; k < N; k++) s += inv[i * N + k] * w[k];
      q += w[i] * s;
    }
    // The real form counts the complex quadratic form once (M⁻¹_real holds Re and Im blocks): q = zᴴ M⁻¹ z.
    const denominator = Math.max(n - q, 1e-9 * n);
    img[(row / H) | 0] += sigma2 / denominator;
  }
}

/** Inverse of a symmetric positive-definite N × N matrix (Gauss–Jordan; N is small here). */
function invertSymmetric(A: Float64Array, N: number): Float64Array {
  const a = Float64Array.from(A);
  const inv = new Float64Array(N * N);
  for (let i = 0; i < N; i++) inv[i * N + i] = 1;
  for (let col = 0; col < N; col++) {
    let pivot = col;
    for (let r = col + 1; r < N; r++) if (Math.abs(a[r * N + col]) > Math.abs(a[pivot * N + col])) pivot = r;
    if (pivot !== col) {
      for (let k = 0; k < N; k++) {
        [a[col * N + k], a[pivot * N + k]] = [a[pivot * N + k], a[col * N + k]];
        [inv[col * N + k], inv[pivot * N + k]] = [inv[pivot * N + k], inv[col * N + k]];
      }
    }
    const d = a[col * N + col] || 1e-300;
    for (let k = 0; k < N; k++) { a[col * N + k] /= d; inv[col * N + k] /= d; }
    for (let r = 0; r < N; r++) {
      if (r === col) continue;
      const f = a[r * N + col];
      if (f === 0) continue;
      for (let k = 0; k < N; k++) { a[r * N + k] -= f * a[col * N + k]; inv[r * N + k] -= f * inv[col * N + k]; }
    }
  }
  return inv;
}

/** An aligned packet minus the reference: the change, in place. */
function minusReference(aligned: { re: Float64Array; im: Float64Array }, h0: { re: Float64Array; im: Float64Array }): { re: Float64Array; im: Float64Array } {
  for (let j = 0; j < h0.re.length; j++) { aligned.re[j] -= h0.re[j]; aligned.im[j] -= h0.im[j]; }
  return aligned;
}

/** Eigenvalues of a real symmetric N×N matrix (cyclic Jacobi; N is small here). */
export function symmetricEigenvalues(A: Float64Array, N: number): number[] {
  const a = Float64Array.from(A);
  for (let sweep = 0; sweep < 30; sweep++) {
    let off = 0;
    for (let p = 0; p < N; p++) for (let q = p + 1; q < N; q++) off += a[p * N + q] ** 2;
    if (off < 1e-22 * (1 + Array.from({ length: N }, (_, i) => a[i * N + i] ** 2).reduce((x, y) => x + y, 0))) break;
    for (let p = 0; p < N; p++) {
      for (let q = p + 1; q < N; q++) {
        const apq = a[p * N + q];
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * N + q] - a[p * N + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        for (let k = 0; k < N; k++) {
          const akp = a[k * N + p], akq = a[k * N + q];
          a[k * N + p] = c * akp - s * akq; a[k * N + q] = s * akp + c * akq;
        }
        for (let k = 0; k < N; k++) {
          const apk = a[p * N + k], aqk = a[q * N + k];
          a[p * N + k] = c * apk - s * aqk; a[q * N + k] = s * apk + c * aqk;
        }
      }
    }
  }
  return Array.from({ length: N }, (_, i) => a[i * N + i]);
}

/**
 * Replace a cell's H rows of conjugate steering vectors by an orthonormal basis of their span
 * (scaled to the rows' norm √n, so the rest of the imager keeps its conventions): the power
 * summed over the rows is then the energy that the span explains. Near-dependent rows become 0.
 */
function orthonormaliseCell(re: Float32Array, im: Float32Array, offset: number, H: number, n: number): void {
  const vectors = Array.from({ length: H }, (_, h) => ({ re: Float64Array.from(re.subarray(offset + h * n, offset + (h + 1) * n)), im: Float64Array.from(im.subarray(offset + h * n, offset + (h + 1) * n)) }));
  const basis = orthonormalBasis(vectors, n);
  const scale = Math.sqrt(n);
  for (let h = 0; h < H; h++) {
    const q = basis[h];
    for (let j = 0; j < n; j++) {
      re[offset + h * n + j] = q ? q.re[j] * scale : 0;
      im[offset + h * n + j] = q ? q.im[j] * scale : 0;
    }
  }
}

/** Gram–Schmidt: an orthonormal basis of the span of the vectors (near-dependent ones dropped). */
function orthonormalBasis(vectors: { re: Float64Array; im: Float64Array }[], n: number): { re: Float64Array; im: Float64Array }[] {
  const basis: { re: Float64Array; im: Float64Array }[] = [];
  for (const v of vectors) {
    const vr = Float64Array.from(v.re), vi = Float64Array.from(v.im);
    for (const q of basis) {
      let dr = 0, di = 0;
      for (let j = 0; j < n; j++) { dr += q.re[j] * vr[j] + q.im[j] * vi[j]; di += q.re[j] * vi[j] - q.im[j] * vr[j]; }
      for (let j = 0; j < n; j++) { vr[j] -= dr * q.re[j] - di * q.im[j]; vi[j] -= dr * q.im[j] + di * q.re[j]; }
    }
    let norm = 0;
    for (let j = 0; j < n; j++) norm += vr[j] * vr[j] + vi[j] * vi[j];
    norm = Math.sqrt(norm);
    if (norm < 1e-3 * Math.sqrt(n)) continue;
    for (let j = 0; j < n; j++) { vr[j] /= norm; vi[j] /= norm; }
    basis.push({ re: vr, im: vi });
  }
  return basis;
}

/**
 * A link's steering whitened by `whitener` (each row's conjugate response, one antenna pair's subcarriers at a
 * time), then rescaled as the raw rows are: a 'body' cell's rows orthonormalised, a point's each to norm √n.
 */
function whitenedSteering(steerRe: Float32Array, steerIm: Float32Array, n: number, H: number, settings: ImagingSettings, whitener: DiffuseWhitener): { whitener: DiffuseWhitener; steerRe: Float32Array; steerIm: Float32Array } {
  const re = Float32Array.from(steerRe), im = Float32Array.from(steerIm);
  const rows = re.length / n;
  for (let row = 0; row < rows; row++) {
    whitener.whiten(re, im, row * n, n, true);
    if (settings.scatterer === 'body') continue;
    let norm = 0;
    for (let j = row * n; j < (row + 1) * n; j++) norm += re[j] * re[j] + im[j] * im[j];
    const scale = Math.sqrt(n / (norm || 1));
    for (let j = row * n; j < (row + 1) * n; j++) { re[j] *= scale; im[j] *= scale; }
  }
  if (settings.scatterer === 'body') for (let cell = 0; cell < rows / H; cell++) orthonormaliseCell(re, im, cell * H * n, H, n);
  return { whitener, steerRe: re, steerIm: im };
}

/**
 * Project the responses of the given rows out of a link's packets, and out of their matched-filter outputs:
 * per basis vector q, c_p = qᴴ x_p, then x_p ← x_p − q c_p and y[row][p] ← y[row][p] − (a_rowᴴ q) c_p.
 */
function projectOut(n: number, steerRe: Float32Array, steerIm: Float32Array, local: number[], rows: number, packets: { re: Float32Array; im: Float32Array }[], outputs: { yr: Float64Array; yi: Float64Array }): void {
  const P = packets.length;
  const { yr, yi } = outputs;
  const ar = new Float64Array(rows), ai = new Float64Array(rows);
  for (const q of steeringBasis(n, steerRe, steerIm, local)) {
    const cr = new Float64Array(P), ci = new Float64Array(P);
    packets.forEach((x, k) => {
      let dr = 0, di = 0;
      for (let j = 0; j < n; j++) { dr += q.re[j] * x.re[j] + q.im[j] * x.im[j]; di += q.re[j] * x.im[j] - q.im[j] * x.re[j]; }
      for (let j = 0; j < n; j++) { x.re[j] -= dr * q.re[j] - di * q.im[j]; x.im[j] -= dr * q.im[j] + di * q.re[j]; }
      cr[k] = dr; ci[k] = di;
    });
    matchedFilter(n, steerRe, steerIm, q.re, q.im, rows, ar, ai, 0, 1);
    for (let row = 0; row < rows; row++) {
      for (let k = 0; k < P; k++) {
        yr[row * P + k] -= ar[row] * cr[k] - ai[row] * ci[k];
        yi[row * P + k] -= ar[row] * ci[k] + ai[row] * cr[k];
      }
    }
  }
}

/** Orthonormal basis of the responses (steering vectors, stored conjugated) of the given rows. */
function steeringBasis(n: number, steerRe: Float32Array, steerIm: Float32Array, rows: number[]): { re: Float64Array; im: Float64Array }[] {
  return orthonormalBasis(rows.map((row) => {
    const re = new Float64Array(n), im = new Float64Array(n);
    for (let j = 0; j < n; j++) { re[j] = steerRe[row * n + j]; im[j] = -steerIm[row * n + j]; }
    return { re, im };
  }), n);
}

/** y[row·stride + column] = a_rowᴴ x for every row: the matched filter of one vector x (`steer*`: conj(a), n per row). */
function matchedFilter(n: number, sr: Float32Array, si: Float32Array, xr: ArrayLike<number>, xi: ArrayLike<number>, rows: number, yr: Float64Array, yi: Float64Array, column: number, stride: number): void {
  for (let row = 0; row < rows; row++) {
    let re = 0, im = 0;
    const o = row * n;
    for (let j = 0; j < n; j++) {
      const ar = sr[o + j], ai = si[o + j];
      re += xr[j] * ar - xi[j] * ai;
      im += xr[j] * ai + xi[j] * ar;
    }
    yr[row * stride + column] = re;
    yi[row * stride + column] = im;
  }
}
