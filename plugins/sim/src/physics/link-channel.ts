import type { Vec3 } from '../geometry/vec3.js';
import { distance } from '../geometry/vec3.js';
import type { BodySegment } from '../people/skeleton.js';
import { SPEED_OF_LIGHT, SUBCARRIER_SPACING_HZ } from './constants.js';
import { MATERIALS, fresnelReflection } from './materials.js';
import { cosIncidence, crossing, imagePaths, mirror, onFace, surfacesOf, type RoomGeometry, type Surface } from './room.js';
import { ellipsoidBistatic, knifeEdgeLossDb } from './scattering.js';
import { DiffuseSumKernel, diffuseSumAvailable } from './diffuse-sum.js';
import { alongDirection, BODY_DIFFUSE_PATHS, bodyDiffusePaths, bodyScatteringPoints, bodySegmentDirections, BODY_SEGMENT_DIRECTIONS, reverberantGain, staticTailPaths, type DiffusePaths, type ReverberationSettings, type SegmentSurfaces } from './reverberation.js';
import type { AntennaPattern } from '../radio/patterns.js';

/** A moving point scatterer that is not a person (fan blade, pet, door leaf, curtain, someone next door). */
export interface PointScatterer {
  x: number;
  y: number;
  z: number;
  /** Radar cross-section, m². */
  rcs: number;
  /** Phase of the scattering coefficient (rad). */
  phase: number;
  /** Amplitude factor along the path besides free space (e.g. a wall crossed twice); 1 for none. */
  transmission: number;
}

/** A static point scatterer (furniture, clutter). */
export interface Scatterer {
  label: string;
  position: Vec3;
  /** Radar cross-section, m². */
  rcs: number;
  /** Phase of the scattering coefficient (rad). */
  phase: number;
}

/** The body of one person at one instant, as the channel sees it. */
export interface BodyState {
  personId: number;
  segments: BodySegment[];
  /** Capsule enclosing every segment: axis from the feet to the head, radius (quick rejection in shadowing tests). */
  axis0: Vec3;
  axis1: Vec3;
  axisRadius: number;
  /** Axis-aligned box enclosing every segment (quick rejection in shadowing tests). */
  min: Vec3;
  max: Vec3;
}

/** Everything fixed about one link. */
export interface LinkGeometry {
  room: RoomGeometry;
  maxReflectionOrder: number;
  /** Centre frequency, Hz. */
  centerFrequencyHz: number;
  /** Physical subcarrier indices, ascending. */
  indices: Int16Array;
  txAntennas: Vec3[];
  rxAntennas: Vec3[];
  clutter: Scatterer[];
  shadowing: boolean;
  bodyScattering: boolean;
  /** Also add body paths that bounce once off a room surface before or after the body (default false). */
  bodyBounces?: boolean;
  /** |Γ| of the body surface: the body scatters ρ² σ of the ellipsoid's cross-section. */
  bodyReflectivity: number;
  /** Element patterns (amplitude by direction); omitted or null = isotropic. */
  txPattern?: AntennaPattern | null;
  rxPattern?: AntennaPattern | null;
  /** The room's reverberant field (static tail, body paths through it); omitted or null = none. */
  reverberation?: ReverberationSettings | null;
}

/** One propagation path as the channel sums it (for inspection and tests). */
export interface PathRecord {
  kind: 'los' | 'reflection' | 'clutter' | 'body';
  /** 'los', surfaces ('north', 'floor+east'), clutter label, or 'person <id> <segment>'. */
  label: string;
  /** Bounces off room surfaces (0 for line of sight and scatterers). */
  order: number;
  /** Path length between the array centres (m). */
  length: number;
  /** Propagation delay length / c (s). */
  delayS: number;
  /** |a| before shadowing. */
  amplitude: number;
  /** Knife-edge loss from bodies crossing the path (dB). */
  shadowLossDb: number;
  /** Vertices: transmitter, bounce or scattering points, receiver (array centres). */
  points: Vec3[];
}

interface StaticPath {
  record: PathRecord;
  legs: [Vec3, Vec3][];
  re: Float64Array;
  im: Float64Array;
}

const FOUR_PI_1_5 = Math.pow(4 * Math.PI, 1.5);

/**
 * The channel of one link: H[tx][rx][k] = Σ_paths a · exp(−j 2π f_k L / c) over line of sight,
 * wall reflections (image method), clutter scatterers and one scattering path per body
 * segment, with knife-edge losses where a body crosses a path.
 *
 * Static paths (walls, clutter) are summed once per antenna pair when the link is built; per
 * frame only the paths a body shadows are corrected and the body paths added. Each path's
 * subcarrier phases come from a recurrence: exp(−j2π f_{k+1} L/c) = exp(−j2π f_k L/c) ·
 * exp(−j2π (f_{k+1} − f_k) L/c), so a path costs two sin/cos and one complex product per subcarrier.
 */
export class LinkChannel {
  readonly ntx: number;
  readonly nrx: number;
  readonly nsc: number;
  readonly lambda: number;
  readonly geometry: LinkGeometry;
  readonly txCentre: Vec3;
  readonly rxCentre: Vec3;
  readonly #f0: number;
  /** Runs of equal index steps across the grid: run r advances runLength[r] times by runGap[r]. */
  readonly #runLength: Int32Array;
  readonly #runGap: Int32Array;
  readonly #powRe: Float64Array;
  readonly #powIm: Float64Array;
  /** The second and third chains' step powers in `#sumSeparable` (the first uses #powRe/#powIm). */
  readonly #powRe2: Float64Array;
  readonly #powIm2: Float64Array;
  readonly #powRe3: Float64Array;
  readonly #powIm3: Float64Array;
  readonly #static: StaticPath[] = [];
  readonly #staticRe: Float64Array;
  readonly #staticIm: Float64Array;
  /** The drifted static sum and the version of the path gains it was made with. */
  #driftRe: Float64Array | null = null;
  #driftIm: Float64Array | null = null;
  #driftVersion = Number.NaN;
  readonly #dtx: Float64Array;
  readonly #drx: Float64Array;
  /** Per room surface: the images of the transmit and receive arrays (body bounce paths). */
  readonly #images: { surface: Surface; tx: Vec3[]; txCentre: Vec3; rx: Vec3[]; rxCentre: Vec3 }[];
  readonly #t0r: Float64Array;
  readonly #t0i: Float64Array;
  readonly #tsr: Float64Array;
  readonly #tsi: Float64Array;
  readonly #r0r: Float64Array;
  readonly #r0i: Float64Array;
  readonly #rsr: Float64Array;
  readonly #rsi: Float64Array;
  /** Reverberant power gain of the room (0 without a reverberant field) and each person's diffuse paths. */
  readonly #reverberantGain: number;
  readonly #bodyDiffuse = new Map<number, DiffusePaths>();
  /** Per person, one diffuse direction per body segment (`bodyDirections: 'segment'`). */
  readonly #bodySegmentDirections = new Map<number, Float64Array>();
  /**
   * Per person, the receive-side phasors (c0, s0, cs, ss; nrx per diffuse path) of its diffuse paths: a path's
   * receive end does not move with the body, so they are taken once, not per packet.
   */
  readonly #bodyDiffuseReceive = new Map<number, Float64Array[]>();
  /** The same for the transmit side with the body at rest; a packet turns them by the body's length change. */
  readonly #bodyDiffuseTransmit = new Map<number, Float64Array[]>();
  /** The receive phasors interleaved for the SIMD kernel, per person. */
  readonly #bodyDiffuseReceiveInterleaved = new Map<number, Float64Array>();
  /** The diffuse sum's SIMD kernel (undefined: not made yet; null: WebAssembly SIMD missing). */
  #diffuseSum: DiffuseSumKernel | null | undefined = undefined;
  readonly #shiftLength = new Float64Array(1);
  readonly #shift0 = new Float64Array(1);
  readonly #shift1 = new Float64Array(1);
  readonly #shift2 = new Float64Array(1);
  readonly #shift3 = new Float64Array(1);
  #diffusePoints: Float64Array | null = null;
  /** Per person, the segments' cumulative surfaces. */
  readonly #segmentSurfaces = new Map<number, SegmentSurfaces>();

  constructor(geometry: LinkGeometry) {
    this.geometry = geometry;
    this.ntx = geometry.txAntennas.length;
    this.nrx = geometry.rxAntennas.length;
    this.nsc = geometry.indices.length;
    if (this.ntx < 1 || this.nrx < 1 || this.nsc < 1) throw new RangeError('a link needs at least one antenna at each end and one subcarrier');
    this.lambda = SPEED_OF_LIGHT / geometry.centerFrequencyHz;
    this.#f0 = geometry.centerFrequencyHz + geometry.indices[0] * SUBCARRIER_SPACING_HZ;
    let maxGap = 1;
    const lengths: number[] = [];
    const gaps: number[] = [];
    for (let k = 0; k + 1 < this.nsc; k++) {
      const g = geometry.indices[k + 1] - geometry.indices[k];
      if (g <= 0 || g > 255) throw new RangeError('subcarrier indices must be strictly ascending');
      if (gaps.length && gaps[gaps.length - 1] === g) lengths[lengths.length - 1]++;
      else {
        gaps.push(g);
        lengths.push(1);
      }
      maxGap = Math.max(maxGap, g);
    }
    this.#runLength = Int32Array.from(lengths);
    this.#runGap = Int32Array.from(gaps);
    this.#powRe = new Float64Array(maxGap + 1);
    this.#powIm = new Float64Array(maxGap + 1);
    this.#powRe2 = new Float64Array(maxGap + 1);
    this.#powIm2 = new Float64Array(maxGap + 1);
    this.#powRe3 = new Float64Array(maxGap + 1);
    this.#powIm3 = new Float64Array(maxGap + 1);
    this.txCentre = centroid(geometry.txAntennas);
    this.rxCentre = centroid(geometry.rxAntennas);
    this.#dtx = new Float64Array(this.ntx);
    this.#drx = new Float64Array(this.nrx);
    this.#t0r = new Float64Array(this.ntx);
    this.#t0i = new Float64Array(this.ntx);
    this.#tsr = new Float64Array(this.ntx);
    this.#tsi = new Float64Array(this.ntx);
    this.#r0r = new Float64Array(this.nrx);
    this.#r0i = new Float64Array(this.nrx);
    this.#rsr = new Float64Array(this.nrx);
    this.#rsi = new Float64Array(this.nrx);
    this.#images = geometry.bodyBounces
      ? surfacesOf(geometry.room).map((surface) => ({
          surface,
          tx: geometry.txAntennas.map((p) => mirror(p, surface)),
          txCentre: mirror(this.txCentre, surface),
          rx: geometry.rxAntennas.map((p) => mirror(p, surface)),
          rxCentre: mirror(this.rxCentre, surface),
        }))
      : [];
    this.#reverberantGain = geometry.reverberation ? reverberantGain(geometry.room, this.lambda, geometry.reverberation.decayS) : 0;
    const size = this.ntx * this.nrx * this.nsc;
    this.#staticRe = new Float64Array(size);
    this.#staticIm = new Float64Array(size);
    this.#buildStaticPaths();
  }

  /** Number of static paths (line of sight, reflections, clutter). */
  get staticPathCount(): number {
    return this.#static.length;
  }

  /** Add a·exp(−j2π f_k L / c) over the subcarriers to re/im starting at `offset`. */
  addPath(re: Float64Array, im: Float64Array, offset: number, ampRe: number, ampIm: number, length: number): void {
    const cycles0 = (this.#f0 * length) / SPEED_OF_LIGHT;
    const ph0 = -2 * Math.PI * (cycles0 - Math.floor(cycles0));
    const c0 = Math.cos(ph0);
    const s0 = Math.sin(ph0);
    let vr = ampRe * c0 - ampIm * s0;
    let vi = ampRe * s0 + ampIm * c0;
    const cyclesStep = (SUBCARRIER_SPACING_HZ * length) / SPEED_OF_LIGHT;
    const phs = -2 * Math.PI * (cyclesStep - Math.floor(cyclesStep));
    this.#sweep(re, im, offset, vr, vi, Math.cos(phs), Math.sin(phs));
  }

  /**
   * Accumulate v, v·w^{g₁}, … over the subcarriers from `offset`, where w is the phasor of one
   * 312.5 kHz step and the grid's index steps come in runs of equal gaps (the step phasor of
   * a run stays in registers, as in a uniform grid).
   */
  #sweep(re: Float64Array, im: Float64Array, offset: number, vr: number, vi: number, wr: number, wi: number): void {
    const pr = this.#powRe;
    const pi = this.#powIm;
    pr[1] = wr;
    pi[1] = wi;
    for (let g = 2; g < pr.length; g++) {
      pr[g] = pr[g - 1] * wr - pi[g - 1] * wi;
      pi[g] = pr[g - 1] * wi + pi[g - 1] * wr;
    }
    let k = offset;
    re[k] += vr;
    im[k] += vi;
    const lengths = this.#runLength;
    const gaps = this.#runGap;
    for (let r = 0; r < lengths.length; r++) {
      const sr = pr[gaps[r]];
      const si = pi[gaps[r]];
      for (let n = lengths[r]; n > 0; n--) {
        const t = vr * sr - vi * si;
        vi = vr * si + vi * sr;
        vr = t;
        k++;
        re[k] += vr;
        im[k] += vi;
      }
    }
  }

  #buildStaticPaths(): void {
    const g = this.geometry;
    const nsc = this.nsc;
    const pairs = this.ntx * this.nrx;
    const byKey = new Map<string, StaticPath>();
    const centre = imagePaths(g.room, this.txCentre, this.rxCentre, g.centerFrequencyHz, g.maxReflectionOrder);
    for (const p of centre) {
      const label = p.order === 0 ? 'los' : p.surfaces.join('+');
      const amplitude = (Math.hypot(p.gain.re, p.gain.im) * this.lambda) / (4 * Math.PI * p.length);
      const legs: [Vec3, Vec3][] = [];
      for (let i = 0; i + 1 < p.points.length; i++) legs.push([p.points[i], p.points[i + 1]]);
      byKey.set(label, {
        record: { kind: p.order === 0 ? 'los' : 'reflection', label, order: p.order, length: p.length, delayS: p.length / SPEED_OF_LIGHT, amplitude, shadowLossDb: 0, points: p.points },
        legs,
        re: new Float64Array(pairs * nsc),
        im: new Float64Array(pairs * nsc),
      });
    }
    for (let a = 0; a < this.ntx; a++) {
      for (let b = 0; b < this.nrx; b++) {
        const offset = (a * this.nrx + b) * nsc;
        for (const p of imagePaths(g.room, g.txAntennas[a], g.rxAntennas[b], g.centerFrequencyHz, g.maxReflectionOrder)) {
          const path = byKey.get(p.order === 0 ? 'los' : p.surfaces.join('+'));
          if (!path) continue;
          const s = (this.lambda / (4 * Math.PI * p.length)) * this.#patternGain(p.points);
          this.addPath(path.re, path.im, offset, p.gain.re * s, p.gain.im * s, p.length);
        }
      }
    }
    for (const c of g.clutter) {
      const d1 = distance(this.txCentre, c.position);
      const d2 = distance(c.position, this.rxCentre);
      const path: StaticPath = {
        record: {
          kind: 'clutter', label: c.label, order: 0, length: d1 + d2, delayS: (d1 + d2) / SPEED_OF_LIGHT,
          amplitude: (Math.sqrt(c.rcs) * this.lambda) / (FOUR_PI_1_5 * d1 * d2), shadowLossDb: 0, points: [this.txCentre, c.position, this.rxCentre],
        },
        legs: [[this.txCentre, c.position], [c.position, this.rxCentre]],
        re: new Float64Array(pairs * nsc),
        im: new Float64Array(pairs * nsc),
      };
      for (let a = 0; a < this.ntx; a++) {
        for (let b = 0; b < this.nrx; b++) {
          const e1 = distance(g.txAntennas[a], c.position);
          const e2 = distance(c.position, g.rxAntennas[b]);
          const amp = ((Math.sqrt(c.rcs) * this.lambda) / (FOUR_PI_1_5 * e1 * e2)) * this.#patternGain([g.txAntennas[a], c.position, g.rxAntennas[b]]);
          this.addPath(path.re, path.im, (a * this.nrx + b) * nsc, amp * Math.cos(c.phase), amp * Math.sin(c.phase), e1 + e2);
        }
      }
      byKey.set(`clutter:${byKey.size}`, path);
    }
    if (g.reverberation?.staticTail) {
      const tail = this.#staticTail(g.reverberation, [...byKey.values()]);
      if (tail) byKey.set('diffuse tail', tail);
    }
    for (const path of byKey.values()) {
      this.#static.push(path);
      for (let i = 0; i < path.re.length; i++) {
        this.#staticRe[i] += path.re[i];
        this.#staticIm[i] += path.im[i];
      }
    }
  }

  /**
   * The empty room's diffuse tail: the reverberant power G_rev less what the explicit reflections already carry,
   * over `STATIC_TAIL_PATHS` paths from the line-of-sight delay on, with excess delays exponential in T and
   * isotropic directions at both arrays (element patterns are not applied: the field is diffuse). Bodies do not
   * shadow it. As a static path its order is 3, past the image method's two (drift scales with the order).
   */
  #staticTail(settings: ReverberationSettings, paths: readonly StaticPath[]): StaticPath | null {
    let explicit = 0;
    for (const p of paths) if (p.record.kind === 'reflection') explicit += p.record.amplitude * p.record.amplitude;
    const power = this.#reverberantGain - explicit;
    if (power <= 0) return null;
    const draws = staticTailPaths(settings);
    const pairs = this.ntx * this.nrx;
    const base = distance(this.txCentre, this.rxCentre);
    const re = new Float64Array(pairs * this.nsc);
    const im = new Float64Array(pairs * this.nsc);
    const each = Math.sqrt(power / draws.count);
    for (let m = 0; m < draws.count; m++) {
      this.#diffuseLengths(draws, m, (base + draws.excess[m]) / 2, 0);
      this.#addSeparablePath(re, im, each * draws.gainRe[m], each * draws.gainIm[m], this.#dtx, this.#drx);
    }
    return {
      record: { kind: 'reflection', label: 'diffuse tail', order: 3, length: base, delayS: base / SPEED_OF_LIGHT, amplitude: Math.sqrt(power), shadowLossDb: 0, points: [this.txCentre, this.rxCentre] },
      legs: [],
      re,
      im,
    };
  }

  /** Per-antenna lengths of diffuse path m: half its length at each end, plus each antenna's offset along the path's direction there. */
  #diffuseLengths(draws: DiffusePaths, m: number, half: number, bodyShift: number): void {
    const g = this.geometry;
    for (let i = 0; i < this.ntx; i++) this.#dtx[i] = half + bodyShift + alongDirection(draws.txDir, m, g.txAntennas[i], this.txCentre);
    for (let j = 0; j < this.nrx; j++) this.#drx[j] = half + alongDirection(draws.rxDir, m, g.rxAntennas[j], this.rxCentre);
  }

  /**
   * A person's paths through the diffuse field (reverberation.ts): per path, the power
   * G_rev·ρ²·(A/M)·(c·T/(4V) + 1/(16π d_tx²) + 1/(16π d_rx²)) with d the distances of its scattering point,
   * the delay of the line of sight plus its excess, and the length change (k̂_in − k̂_out)·p of its point p.
   */
  #addBodyDiffuse(body: BodyState, settings: ReverberationSettings, kernel: DiffuseSumKernel | null, outRe: Float64Array, outIm: Float64Array): void {
    let draws = this.#bodyDiffuse.get(body.personId);
    if (!draws) this.#bodyDiffuse.set(body.personId, (draws = bodyDiffusePaths(settings, body.personId)));
    const points = (this.#diffusePoints ??= new Float64Array(3 * draws.count));
    let surfaces = this.#segmentSurfaces.get(body.personId);
    if (!surfaces) this.#segmentSurfaces.set(body.personId, (surfaces = { axes: new Float64Array(0), surfaces: new Float64Array(0), areas: new Float64Array(0) }));
    const area = bodyScatteringPoints(body.segments, draws, points, surfaces);
    let directions = draws.bodyDir;
    let directionOf: Int32Array | null = null;
    if (settings.bodyDirections === 'segment') {
      let segmentDirections = this.#bodySegmentDirections.get(body.personId);
      if (!segmentDirections) this.#bodySegmentDirections.set(body.personId, (segmentDirections = bodySegmentDirections(settings, body.personId)));
      directions = segmentDirections;
      directionOf = draws.segmentOf;
    }
    const room = this.geometry.room;
    const diffuseShare = (SPEED_OF_LIGHT * settings.decayS) / (4 * room.width * room.depth * room.height);
    const rho = this.geometry.bodyReflectivity;
    const scale = (this.#reverberantGain * rho * rho * area) / draws.count;
    const base = distance(this.txCentre, this.rxCentre);
    const t = this.txCentre;
    const r = this.rxCentre;
    const receive = this.#bodyDiffuseReceive.get(body.personId) ?? this.#diffuseReceivePhasors(body.personId, draws, base);
    const transmit = this.#bodyDiffuseTransmit.get(body.personId) ?? this.#diffuseTransmitPhasors(body.personId, draws, base);
    const shiftLength = this.#shiftLength;
    const t0r = this.#t0r;
    const t0i = this.#t0i;
    const tsr = this.#tsr;
    const tsi = this.#tsi;
    for (let m = 0; m < draws.count; m++) {
      const px = points[3 * m];
      const py = points[3 * m + 1];
      const pz = points[3 * m + 2];
      const d1 = (px - t.x) ** 2 + (py - t.y) ** 2 + (pz - t.z) ** 2;
      const d2 = (px - r.x) ** 2 + (py - r.y) ** 2 + (pz - r.z) ** 2;
      const amp = Math.sqrt(scale * (diffuseShare + 1 / (16 * Math.PI * Math.max(d1, 0.01)) + 1 / (16 * Math.PI * Math.max(d2, 0.01))));
      const d = directionOf ? directionOf[m] % BODY_SEGMENT_DIRECTIONS : m;
      const shift = directions[3 * d] * px + directions[3 * d + 1] * py + directions[3 * d + 2] * pz;
      // The body's length change is common to the path's transmit antennas: one sin/cos pair for it (and one for
      // its step), times each antenna's phasors with the body at rest, instead of a pair per antenna.
      shiftLength[0] = shift;
      this.#phasors(shiftLength, 1, this.#shift0, this.#shift1, this.#shift2, this.#shift3, 0);
      const u0r = this.#shift0[0];
      const u0i = this.#shift1[0];
      const usr = this.#shift2[0];
      const usi = this.#shift3[0];
      if (kernel) {
        kernel.amp[2 * m] = amp * draws.gainRe[m];
        kernel.amp[2 * m + 1] = amp * draws.gainIm[m];
        const tx = kernel.tx;
        for (let i = 0, a = m * this.ntx, at = 4 * a; i < this.ntx; i++, a++, at += 4) {
          tx[at] = transmit[0][a] * u0r - transmit[1][a] * u0i;
          tx[at + 1] = transmit[0][a] * u0i + transmit[1][a] * u0r;
          tx[at + 2] = transmit[2][a] * usr - transmit[3][a] * usi;
          tx[at + 3] = transmit[2][a] * usi + transmit[3][a] * usr;
        }
        continue;
      }
      for (let i = 0, a = m * this.ntx; i < this.ntx; i++, a++) {
        t0r[i] = transmit[0][a] * u0r - transmit[1][a] * u0i;
        t0i[i] = transmit[0][a] * u0i + transmit[1][a] * u0r;
        tsr[i] = transmit[2][a] * usr - transmit[3][a] * usi;
        tsi[i] = transmit[2][a] * usi + transmit[3][a] * usr;
      }
      this.#sumSeparable(outRe, outIm, amp * draws.gainRe[m], amp * draws.gainIm[m], receive[0], receive[1], receive[2], receive[3], m * this.nrx);
    }
    if (kernel) {
      kernel.rx.set(this.#bodyDiffuseReceiveInterleaved.get(body.personId) ?? this.#interleaveReceive(body.personId, receive));
      kernel.sum(draws.count);
    }
  }

  /** A person's receive phasors as the SIMD kernel reads them ({c0, s0, cs, ss} per path and antenna), kept. */
  #interleaveReceive(personId: number, receive: Float64Array[]): Float64Array {
    const out = new Float64Array(4 * receive[0].length);
    for (let a = 0; a < receive[0].length; a++) for (let c = 0; c < 4; c++) out[4 * a + c] = receive[c][a];
    this.#bodyDiffuseReceiveInterleaved.set(personId, out);
    return out;
  }

  /** The link's SIMD kernel for the diffuse sum, made on first use; null where WebAssembly SIMD is missing. */
  #diffuseKernel(): DiffuseSumKernel | null {
    if (this.#diffuseSum === undefined) {
      this.#diffuseSum = diffuseSumAvailable() ? new DiffuseSumKernel(this.ntx, this.nrx, this.nsc, this.#runGap, this.#runLength, BODY_DIFFUSE_PATHS) : null;
    }
    return this.#diffuseSum;
  }

  /** The transmit-side phasors of a person's diffuse paths with the body at rest (no length change), kept for the link's life. */
  #diffuseTransmitPhasors(personId: number, draws: DiffusePaths, base: number): Float64Array[] {
    const n = draws.count * this.ntx;
    const out = [new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n)];
    for (let m = 0; m < draws.count; m++) {
      this.#diffuseLengths(draws, m, (base + draws.excess[m]) / 2, 0);
      this.#phasors(this.#dtx, this.ntx, out[0], out[1], out[2], out[3], m * this.ntx);
    }
    this.#bodyDiffuseTransmit.set(personId, out);
    return out;
  }

  /** The receive-side phasors of a person's diffuse paths (`#diffuseLengths`' receive lengths), kept for the link's life. */
  #diffuseReceivePhasors(personId: number, draws: DiffusePaths, base: number): Float64Array[] {
    const n = draws.count * this.nrx;
    const out = [new Float64Array(n), new Float64Array(n), new Float64Array(n), new Float64Array(n)];
    for (let m = 0; m < draws.count; m++) {
      this.#diffuseLengths(draws, m, (base + draws.excess[m]) / 2, 0);
      this.#phasors(this.#drx, this.nrx, out[0], out[1], out[2], out[3], m * this.nrx);
    }
    this.#bodyDiffuseReceive.set(personId, out);
    return out;
  }

  /** Product of the element patterns along a path's first and last legs (1 when both are isotropic). */
  #patternGain(points: readonly Vec3[]): number {
    const g = this.geometry;
    let gain = 1;
    if (g.txPattern) {
      const a = points[0];
      const b = points[1];
      gain *= g.txPattern(b.x - a.x, b.y - a.y, b.z - a.z);
    }
    if (g.rxPattern) {
      const a = points[points.length - 1];
      const b = points[points.length - 2];
      gain *= g.rxPattern(b.x - a.x, b.y - a.y, b.z - a.z);
    }
    return gain;
  }

  /** Whether either end has a directional pattern. */
  get hasPatterns(): boolean {
    return !!(this.geometry.txPattern || this.geometry.rxPattern);
  }

  /** Bounces of each static path, in the order `compute`'s path gains follow (line of sight 0, clutter 1). */
  get staticPathOrders(): number[] {
    return this.#static.map((p) => (p.record.kind === 'clutter' ? 1 : p.record.order));
  }

  /**
   * Add moving point scatterers (distractors) to a channel: per scatterer one path
   * √σ · λ / ((4π)^{3/2} d₁ d₂) · T · e^{jφ} with per-antenna lengths, as clutter but moving.
   */
  addPointScatterers(points: readonly PointScatterer[], outRe: Float64Array, outIm: Float64Array): void {
    const g = this.geometry;
    const dtx = this.#dtx;
    const drx = this.#drx;
    for (const p of points) {
      const pos = { x: p.x, y: p.y, z: p.z };
      const d1 = distance(this.txCentre, pos);
      const d2 = distance(pos, this.rxCentre);
      if (d1 <= 0 || d2 <= 0) continue;
      let amp = (p.transmission * Math.sqrt(p.rcs) * this.lambda) / (FOUR_PI_1_5 * d1 * d2);
      if (this.hasPatterns) amp *= this.#patternGain([this.txCentre, pos, this.rxCentre]);
      for (let i = 0; i < this.ntx; i++) dtx[i] = distance(g.txAntennas[i], pos);
      for (let j = 0; j < this.nrx; j++) drx[j] = distance(pos, g.rxAntennas[j]);
      this.#addSeparablePath(outRe, outIm, amp * Math.cos(p.phase), amp * Math.sin(p.phase), dtx, drx);
    }
  }

  /** Knife-edge loss (dB) that the bodies put on a polyline of legs, skipping one person. */
  shadowLossDb(legs: readonly [Vec3, Vec3][], bodies: readonly BodyState[], skipPerson = -1): number {
    if (!this.geometry.shadowing) return 0;
    let total = 0;
    for (const body of bodies) {
      if (body.personId === skipPerson) continue;
      let worst = 0;
      for (const [a, b] of legs) {
        const len = distance(a, b);
        // Beyond this clearance the knife-edge loss is zero (ν ≤ −0.78; ν is smallest mid-leg).
        const margin = 0.78 * Math.sqrt((this.lambda * len) / 8);
        // Quick rejections, cheapest first: boxes, the capsule around the whole body, each segment's sphere.
        if (Math.max(a.x, b.x) < body.min.x - margin || Math.min(a.x, b.x) > body.max.x + margin) continue;
        if (Math.max(a.y, b.y) < body.min.y - margin || Math.min(a.y, b.y) > body.max.y + margin) continue;
        if (Math.max(a.z, b.z) < body.min.z - margin || Math.min(a.z, b.z) > body.max.z + margin) continue;
        const ax = body.axis0;
        const bx = body.axis1;
        if (segmentDistance(a.x, a.y, a.z, b.x, b.y, b.z, ax.x, ax.y, ax.z, bx.x, bx.y, bx.z) > body.axisRadius + margin) continue;
        for (const seg of body.segments) {
          const c = seg.centre;
          if (pointSegmentDistance(c.x, c.y, c.z, a.x, a.y, a.z, b.x, b.y, b.z) > seg.c + seg.radius + margin) continue;
          const d = segmentDistance(a.x, a.y, a.z, b.x, b.y, b.z, seg.p0.x, seg.p0.y, seg.p0.z, seg.p1.x, seg.p1.y, seg.p1.z);
          const h = seg.radius - d;
          if (h < -margin) continue;
          const s = closestS;
          const loss = knifeEdgeLossDb(h, s * len, (1 - s) * len, this.lambda);
          if (loss > worst) worst = loss;
        }
      }
      total += worst;
    }
    return total;
  }

  /**
   * The clean channel for the bodies' current state into outRe/outIm
   * (length ntx·nrx·nsc, row-major [tx][rx][subcarrier]).
   */
  compute(bodies: readonly BodyState[], outRe: Float64Array, outIm: Float64Array, pathGains?: { re: Float64Array; im: Float64Array; version?: number }): void {
    if (pathGains) {
      // A drifting static channel: Σ_p g_p H_p with each path's own slowly changing complex gain,
      // re-summed only when the gains change (their version).
      if (pathGains.version === undefined || pathGains.version !== this.#driftVersion) {
        const dr = (this.#driftRe ??= new Float64Array(outRe.length));
        const di = (this.#driftIm ??= new Float64Array(outIm.length));
        dr.fill(0);
        di.fill(0);
        this.#static.forEach((path, p) => {
          const gr = pathGains.re[p];
          const gi = pathGains.im[p];
          const pre = path.re;
          const pim = path.im;
          for (let i = 0; i < pre.length; i++) {
            dr[i] += gr * pre[i] - gi * pim[i];
            di[i] += gr * pim[i] + gi * pre[i];
          }
        });
        this.#driftVersion = pathGains.version ?? Number.NaN;
      }
      outRe.set(this.#driftRe!);
      outIm.set(this.#driftIm!);
    } else {
      outRe.set(this.#staticRe);
      outIm.set(this.#staticIm);
    }
    if (bodies.length === 0) return;
    if (this.geometry.shadowing) {
      for (let p = 0; p < this.#static.length; p++) {
        const path = this.#static[p];
        const loss = this.shadowLossDb(path.legs, bodies);
        if (loss <= 0) continue;
        const f = Math.pow(10, -loss / 20) - 1;
        const pre = path.re;
        const pim = path.im;
        if (!pathGains) {
          for (let i = 0; i < pre.length; i++) {
            outRe[i] += f * pre[i];
            outIm[i] += f * pim[i];
          }
          continue;
        }
        const fr = f * pathGains.re[p];
        const fi = f * pathGains.im[p];
        for (let i = 0; i < pre.length; i++) {
          outRe[i] += fr * pre[i] - fi * pim[i];
          outIm[i] += fr * pim[i] + fi * pre[i];
        }
      }
    }
    if (this.geometry.bodyScattering) {
      for (const body of bodies) for (const seg of body.segments) this.#addBodySegment(seg, body, bodies, outRe, outIm, null);
      const reverberation = this.geometry.reverberation;
      if (reverberation?.bodyDiffuse) {
        // The sum runs in WebAssembly SIMD where it can (bit-identical to the JS sweep); the channel goes in once and comes back once.
        const kernel = this.#diffuseKernel();
        kernel?.load(outRe, outIm);
        for (const body of bodies) this.#addBodyDiffuse(body, reverberation, kernel, outRe, outIm);
        kernel?.store(outRe, outIm);
      }
    }
  }

  #addBodySegment(seg: BodySegment, body: BodyState, bodies: readonly BodyState[], outRe: Float64Array | null, outIm: Float64Array | null, records: PathRecord[] | null): void {
    const g = this.geometry;
    this.#addScatter(seg, body, bodies, this.txCentre, g.txAntennas, this.rxCentre, g.rxAntennas, null, outRe, outIm, records);
    for (const image of this.#images) {
      this.#addScatter(seg, body, bodies, image.txCentre, image.tx, this.rxCentre, g.rxAntennas, { surface: image.surface, side: 'tx' }, outRe, outIm, records);
      this.#addScatter(seg, body, bodies, this.txCentre, g.txAntennas, image.rxCentre, image.rx, { surface: image.surface, side: 'rx' }, outRe, outIm, records);
    }
  }

  /**
   * One scattering path off a body segment between (possibly mirrored) transmit and receive
   * arrays. With a bounce, the image array stands for the real one seen via the surface: the
   * path is kept only when its leg to the image crosses that surface on the face, and takes
   * the surface's Fresnel coefficient at the local angle (bounce paths are not shadowed).
   */
  #addScatter(
    seg: BodySegment, body: BodyState, bodies: readonly BodyState[],
    txCentre: Vec3, txAntennas: readonly Vec3[], rxCentre: Vec3, rxAntennas: readonly Vec3[],
    bounce: { surface: Surface; side: 'tx' | 'rx' } | null,
    outRe: Float64Array | null, outIm: Float64Array | null, records: PathRecord[] | null,
  ): void {
    const g = this.geometry;
    const { point, rcs } = ellipsoidBistatic(seg.centre, seg.frame, seg.a, seg.b, seg.c, txCentre, rxCentre);
    let gain = { re: 1, im: 0 };
    let points = [txCentre, point, rxCentre];
    if (bounce) {
      const image = bounce.side === 'tx' ? txCentre : rxCentre;
      const hit = crossing(point, image, bounce.surface);
      if (!hit || !onFace(hit, g.room)) return;
      gain = fresnelReflection(MATERIALS[g.room.materials[bounce.surface.name]], g.centerFrequencyHz, cosIncidence(point, image, bounce.surface), bounce.surface.polarisation);
      points = bounce.side === 'tx' ? [this.txCentre, hit, point, rxCentre] : [txCentre, point, hit, this.rxCentre];
    }
    const d1 = distance(txCentre, point);
    const d2 = distance(point, rxCentre);
    let amp = (g.bodyReflectivity * Math.sqrt(rcs) * this.lambda) / (FOUR_PI_1_5 * d1 * d2);
    if (g.txPattern || g.rxPattern) amp *= this.#patternGain(points);
    const loss = !bounce && bodies.length > 1 ? this.shadowLossDb([[txCentre, point], [point, rxCentre]], bodies, body.personId) : 0;
    if (records) {
      records.push({
        kind: 'body', label: `person ${body.personId} ${seg.name}${bounce ? ` via ${bounce.surface.name}` : ''}`, order: bounce ? 1 : 0, length: d1 + d2, delayS: (d1 + d2) / SPEED_OF_LIGHT,
        amplitude: amp * Math.hypot(gain.re, gain.im), shadowLossDb: loss, points,
      });
      return;
    }
    // A high-permittivity body reflects with a phase near π.
    const a = -amp * (loss > 0 ? Math.pow(10, -loss / 20) : 1);
    const dtx = this.#dtx;
    const drx = this.#drx;
    for (let i = 0; i < this.ntx; i++) dtx[i] = distance(txAntennas[i], point);
    for (let j = 0; j < this.nrx; j++) drx[j] = distance(point, rxAntennas[j]);
    this.#addSeparablePath(outRe!, outIm!, a * gain.re, a * gain.im, dtx, drx);
  }

  /**
   * Add a path whose length for antenna pair (i, j) is dtx[i] + drx[j] (a scatterer): the
   * per-pair phasors factor, exp(−jk(dtx + drx)) = exp(−jk dtx) · exp(−jk drx), so the
   * sin/cos are taken per antenna (ntx + nrx) instead of per pair (ntx · nrx).
   */
  #addSeparablePath(re: Float64Array, im: Float64Array, ampRe: number, ampIm: number, dtx: Float64Array, drx: Float64Array): void {
    this.#phasors(dtx, this.ntx, this.#t0r, this.#t0i, this.#tsr, this.#tsi, 0);
    this.#phasors(drx, this.nrx, this.#r0r, this.#r0i, this.#rsr, this.#rsi, 0);
    this.#sumSeparable(re, im, ampRe, ampIm, this.#r0r, this.#r0i, this.#rsr, this.#rsi, 0);
  }

  /**
   * The sweeps of a separable path from the transmit phasors in #t0r… and receive phasors (c0, s0, cs, ss) from
   * `at` in the given arrays (the scratch arrays, or a diffuse path's receive phasors kept across packets).
   */
  #sumSeparable(re: Float64Array, im: Float64Array, ampRe: number, ampIm: number, r0r: Float64Array, r0i: Float64Array, rsr: Float64Array, rsi: Float64Array, at: number): void {
    const t0r = this.#t0r;
    const t0i = this.#t0i;
    const tsr = this.#tsr;
    const tsi = this.#tsi;
    const nrx = this.nrx;
    const nsc = this.nsc;
    const pairs = this.ntx * nrx;
    const pr = this.#powRe;
    const pi = this.#powIm;
    const qr = this.#powRe2;
    const qi = this.#powIm2;
    const zr = this.#powRe3;
    const zi = this.#powIm3;
    const lengths = this.#runLength;
    const gaps = this.#runGap;
    let p = 0;
    // Three pairs at a time: three independent recurrences in one loop, each value computed as `#sweep` computes it.
    for (; p + 2 < pairs; p += 3) {
      const ia = (p / nrx) | 0;
      const ja = at + p - ia * nrx;
      const par = t0r[ia] * r0r[ja] - t0i[ia] * r0i[ja];
      const pai = t0r[ia] * r0i[ja] + t0i[ia] * r0r[ja];
      let ar = ampRe * par - ampIm * pai;
      let ai = ampRe * pai + ampIm * par;
      const war = tsr[ia] * rsr[ja] - tsi[ia] * rsi[ja];
      const wai = tsr[ia] * rsi[ja] + tsi[ia] * rsr[ja];
      pr[1] = war;
      pi[1] = wai;
      const ib = ((p + 1) / nrx) | 0;
      const jb = at + p + 1 - ib * nrx;
      const pbr = t0r[ib] * r0r[jb] - t0i[ib] * r0i[jb];
      const pbi = t0r[ib] * r0i[jb] + t0i[ib] * r0r[jb];
      let br = ampRe * pbr - ampIm * pbi;
      let bi = ampRe * pbi + ampIm * pbr;
      const wbr = tsr[ib] * rsr[jb] - tsi[ib] * rsi[jb];
      const wbi = tsr[ib] * rsi[jb] + tsi[ib] * rsr[jb];
      qr[1] = wbr;
      qi[1] = wbi;
      const ic = ((p + 2) / nrx) | 0;
      const jc = at + p + 2 - ic * nrx;
      const pcr = t0r[ic] * r0r[jc] - t0i[ic] * r0i[jc];
      const pci = t0r[ic] * r0i[jc] + t0i[ic] * r0r[jc];
      let cr = ampRe * pcr - ampIm * pci;
      let ci = ampRe * pci + ampIm * pcr;
      const wcr = tsr[ic] * rsr[jc] - tsi[ic] * rsi[jc];
      const wci = tsr[ic] * rsi[jc] + tsi[ic] * rsr[jc];
      zr[1] = wcr;
      zi[1] = wci;
      for (let g = 2; g < pr.length; g++) {
        pr[g] = pr[g - 1] * war - pi[g - 1] * wai;
        pi[g] = pr[g - 1] * wai + pi[g - 1] * war;
        qr[g] = qr[g - 1] * wbr - qi[g - 1] * wbi;
        qi[g] = qr[g - 1] * wbi + qi[g - 1] * wbr;
        zr[g] = zr[g - 1] * wcr - zi[g - 1] * wci;
        zi[g] = zr[g - 1] * wci + zi[g - 1] * wcr;
      }
      let ka = p * nsc;
      let kb = ka + nsc;
      let kc = kb + nsc;
      re[ka] += ar;
      im[ka] += ai;
      re[kb] += br;
      im[kb] += bi;
      re[kc] += cr;
      im[kc] += ci;
      for (let r = 0; r < lengths.length; r++) {
        const g = gaps[r];
        const sar = pr[g];
        const sai = pi[g];
        const sbr = qr[g];
        const sbi = qi[g];
        const scr = zr[g];
        const sci = zi[g];
        for (let n = lengths[r]; n > 0; n--) {
          const ta = ar * sar - ai * sai;
          ai = ar * sai + ai * sar;
          ar = ta;
          const tb = br * sbr - bi * sbi;
          bi = br * sbi + bi * sbr;
          br = tb;
          const tc = cr * scr - ci * sci;
          ci = cr * sci + ci * scr;
          cr = tc;
          ka++;
          re[ka] += ar;
          im[ka] += ai;
          kb++;
          re[kb] += br;
          im[kb] += bi;
          kc++;
          re[kc] += cr;
          im[kc] += ci;
        }
      }
    }
    for (; p < pairs; p++) {
      const i = (p / nrx) | 0;
      const j = at + p - i * nrx;
      const pa = t0r[i] * r0r[j] - t0i[i] * r0i[j];
      const pb = t0r[i] * r0i[j] + t0i[i] * r0r[j];
      this.#sweep(re, im, p * nsc, ampRe * pa - ampIm * pb, ampRe * pb + ampIm * pa, tsr[i] * rsr[j] - tsi[i] * rsi[j], tsr[i] * rsi[j] + tsi[i] * rsr[j]);
    }
  }


  /** Per antenna: exp(−j2π f₀ d/c) into (c0, s0) and the one-step phasor exp(−j2π Δf d/c) into (cs, ss), from `at`. */
  #phasors(d: Float64Array, n: number, c0: Float64Array, s0: Float64Array, cs: Float64Array, ss: Float64Array, at: number): void {
    for (let a = 0; a < n; a++) {
      const i = at + a;
      const cycles0 = (this.#f0 * d[a]) / SPEED_OF_LIGHT;
      const ph0 = -2 * Math.PI * (cycles0 - Math.floor(cycles0));
      c0[i] = Math.cos(ph0);
      s0[i] = Math.sin(ph0);
      const cyclesStep = (SUBCARRIER_SPACING_HZ * d[a]) / SPEED_OF_LIGHT;
      const phs = -2 * Math.PI * (cyclesStep - Math.floor(cyclesStep));
      cs[i] = Math.cos(phs);
      ss[i] = Math.sin(phs);
    }
  }

  /** Every path for the bodies' current state, between the array centres (inspection, tests, docs). */
  describePaths(bodies: readonly BodyState[] = []): PathRecord[] {
    const out: PathRecord[] = this.#static.map((p) => ({ ...p.record, shadowLossDb: this.shadowLossDb(p.legs, bodies) }));
    if (this.geometry.bodyScattering) for (const body of bodies) for (const seg of body.segments) this.#addBodySegment(seg, body, bodies, null, null, out);
    return out;
  }
}

function centroid(points: readonly Vec3[]): Vec3 {
  let x = 0;
  let y = 0;
  let z = 0;
  for (const p of points) {
    x += p.x;
    y += p.y;
    z += p.z;
  }
  const n = points.length || 1;
  return { x: x / n, y: y / n, z: z / n };
}

/** A person's body state from its segments, with the box and the capsule that enclose them. */
export function bodyStateOf(personId: number, segments: BodySegment[]): BodyState {
  const min = { x: Infinity, y: Infinity, z: Infinity };
  const max = { x: -Infinity, y: -Infinity, z: -Infinity };
  for (const s of segments) {
    const r = s.radius;
    min.x = Math.min(min.x, s.p0.x - r, s.p1.x - r);
    min.y = Math.min(min.y, s.p0.y - r, s.p1.y - r);
    min.z = Math.min(min.z, s.p0.z - r, s.p1.z - r);
    max.x = Math.max(max.x, s.p0.x + r, s.p1.x + r);
    max.y = Math.max(max.y, s.p0.y + r, s.p1.y + r);
    max.z = Math.max(max.z, s.p0.z + r, s.p1.z + r);
  }
  const head = segments.find((s) => s.name === 'head') ?? segments[0];
  const shanks = segments.filter((s) => s.name.endsWith('shank'));
  const a0 = shanks.length === 2 ? { x: (shanks[0].p1.x + shanks[1].p1.x) / 2, y: (shanks[0].p1.y + shanks[1].p1.y) / 2, z: (shanks[0].p1.z + shanks[1].p1.z) / 2 } : segments[0].p0;
  const a1 = head.centre;
  let radius = 0;
  for (const s of segments) {
    radius = Math.max(
      radius,
      pointSegmentDistance(s.p0.x, s.p0.y, s.p0.z, a0.x, a0.y, a0.z, a1.x, a1.y, a1.z) + s.radius,
      pointSegmentDistance(s.p1.x, s.p1.y, s.p1.z, a0.x, a0.y, a0.z, a1.x, a1.y, a1.z) + s.radius,
    );
  }
  return { personId, segments, min, max, axis0: a0, axis1: a1, axisRadius: radius };
}

/** Distance from point p to segment a→b (allocation-free). */
export function pointSegmentDistance(px: number, py: number, pz: number, ax: number, ay: number, az: number, bx: number, by: number, bz: number): number {
  const dx = bx - ax;
  const dy = by - ay;
  const dz = bz - az;
  const len2 = dx * dx + dy * dy + dz * dz;
  let t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy + (pz - az) * dz) / len2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  const ex = ax + dx * t - px;
  const ey = ay + dy * t - py;
  const ez = az + dz * t - pz;
  return Math.sqrt(ex * ex + ey * ey + ez * ez);
}

/** Parameter along the first segment of the closest points found by the last `segmentDistance` call. */
let closestS = 0;

/**
 * Shortest distance between segments p0→p1 and q0→q1 (allocation-free, it runs in the inner
 * loop of shadowing); leaves the closest point's parameter on the first segment in `closestS`.
 */
export function segmentDistance(
  p0x: number, p0y: number, p0z: number, p1x: number, p1y: number, p1z: number,
  q0x: number, q0y: number, q0z: number, q1x: number, q1y: number, q1z: number,
): number {
  const d1x = p1x - p0x, d1y = p1y - p0y, d1z = p1z - p0z;
  const d2x = q1x - q0x, d2y = q1y - q0y, d2z = q1z - q0z;
  const rx = p0x - q0x, ry = p0y - q0y, rz = p0z - q0z;
  const a = d1x * d1x + d1y * d1y + d1z * d1z;
  const e = d2x * d2x + d2y * d2y + d2z * d2z;
  const f = d2x * rx + d2y * ry + d2z * rz;
  const eps = 1e-12;
  let s = 0;
  let t = 0;
  if (a <= eps && e <= eps) {
    s = 0;
    t = 0;
  } else if (a <= eps) {
    t = clamp(f / e);
  } else {
    const c = d1x * rx + d1y * ry + d1z * rz;
    if (e <= eps) {
      s = clamp(-c / a);
    } else {
      const b = d1x * d2x + d1y * d2y + d1z * d2z;
      const den = a * e - b * b;
      s = den > eps ? clamp((b * f - c * e) / den) : 0;
      t = (b * s + f) / e;
      if (t < 0) {
        t = 0;
        s = clamp(-c / a);
      } else if (t > 1) {
        t = 1;
        s = clamp((b - c) / a);
      }
    }
  }
  closestS = s;
  const x = p0x + d1x * s - (q0x + d2x * t);
  const y = p0y + d1y * s - (q0y + d2y * t);
  const z = p0z + d1z * s - (q0z + d2z * t);
  return Math.sqrt(x * x + y * y + z * z);
}

function clamp(v: number): number {
  return v < 0 ? 0 : v > 1 ? 1 : v;
}
