import { SUBCARRIER_SPACING_HZ } from '../physics/constants.js';
import { Prng } from '../random/prng.js';
import type { ImpairmentSpec } from '../scenario/schema.js';

/** The realism options of a receiver's impairments (all optional). */
export type RadioRealismSettings = Pick<ImpairmentSpec, 'csd' | 'spatialMapping' | 'rippleDb' | 'glitchChance' | 'agcStepChance' | 'agcStepDb' | 'agcOffsetDb' | 'lossBurstPackets'>;

/** Whether any realism option of a receiver is on (off: the link runs exactly as before them). */
export function radioRealismOn(s: Partial<RadioRealismSettings>): boolean {
  return !!(s.csd || (s.spatialMapping && s.spatialMapping !== 'direct') || s.rippleDb || s.glitchChance || s.agcStepChance || s.agcOffsetDb || s.lossBurstPackets);
}

/** 802.11n HT cyclic shift of space-time stream s of n (IEEE 802.11-2016 Table 19-10), seconds. */
export function cyclicShiftS(stream: number, streams: number): number {
  const table: Record<number, number[]> = { 1: [0], 2: [0, -400], 3: [0, -400, -200], 4: [0, -400, -200, -600] };
  const row = table[Math.min(4, streams)] ?? table[4];
  return row[stream % row.length] * 1e-9;
}

/** Spatial mapping matrix Q (streams × antennas, unitary): identity, normalised Hadamard or DFT. */
export function spatialMappingMatrix(kind: 'direct' | 'hadamard' | 'fourier', n: number): { re: Float64Array; im: Float64Array } {
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  for (let s = 0; s < n; s++) {
    for (let a = 0; a < n; a++) {
      if (kind === 'direct') re[s * n + a] = s === a ? 1 : 0;
      else if (kind === 'fourier') {
        const ph = (-2 * Math.PI * s * a) / n;
        re[s * n + a] = Math.cos(ph) / Math.sqrt(n);
        im[s * n + a] = Math.sin(ph) / Math.sqrt(n);
      } else {
        // Sylvester Hadamard rows (sign = parity of popcount(s & a)); for n not a power of two the
        // DFT is used instead, as a Hadamard matrix does not exist for every size.
        if ((n & (n - 1)) !== 0) return spatialMappingMatrix('fourier', n);
        let bits = s & a;
        let parity = 0;
        while (bits) {
          parity ^= bits & 1;
          bits >>= 1;
        }
        re[s * n + a] = (parity ? -1 : 1) / Math.sqrt(n);
      }
    }
  }
  return { re, im };
}

/**
 * A receiver's hardware as it is, beyond the per-packet impairments: the transmitter's cyclic
 * shifts and spatial mapping (the reported rows are streams, Q·H with a per-stream phase
 * slope), the baseband filter ripple of each receive chain (fixed for the radio), AGC that
 * steps now and then and stays, a gain offset of this capture, antenna-switching glitches
 * (a packet whose receive chains come out rotated) and bursty packet loss.
 */
export class RadioRealism {
  readonly #s: RadioRealismSettings;
  readonly #ntx: number;
  readonly #nrx: number;
  readonly #nsc: number;
  /** Per tx stream and subcarrier: the cyclic-shift phasor; per rx chain and subcarrier: the ripple. */
  readonly #csdRe: Float64Array | null;
  readonly #csdIm: Float64Array | null;
  readonly #q: { re: Float64Array; im: Float64Array } | null;
  readonly #rippleRe: Float64Array | null;
  readonly #rippleIm: Float64Array | null;
  readonly #prng: Prng;
  #agcLevelDb = 0;
  #lossBad = false;
  readonly #tmpRe: Float64Array;
  readonly #tmpIm: Float64Array;

  /**
   * @param hardwareSeed seeds what belongs to the radio (its ripple): equal in reference and recording.
   * @param captureSeed seeds what belongs to one capture (AGC steps, glitches, loss bursts).
   */
  constructor(settings: RadioRealismSettings, ntx: number, nrx: number, indices: Int16Array, hardwareSeed: string, captureSeed: string) {
    this.#s = settings;
    this.#ntx = ntx;
    this.#nrx = nrx;
    const nsc = indices.length;
    this.#nsc = nsc;
    this.#prng = new Prng(captureSeed);
    this.#tmpRe = new Float64Array(ntx * nsc);
    this.#tmpIm = new Float64Array(ntx * nsc);
    if (settings.csd && ntx > 1) {
      this.#csdRe = new Float64Array(ntx * nsc);
      this.#csdIm = new Float64Array(ntx * nsc);
      for (let s = 0; s < ntx; s++) {
        const tau = cyclicShiftS(s, ntx);
        for (let k = 0; k < nsc; k++) {
          const ph = -2 * Math.PI * indices[k] * SUBCARRIER_SPACING_HZ * tau;
          this.#csdRe[s * nsc + k] = Math.cos(ph);
          this.#csdIm[s * nsc + k] = Math.sin(ph);
        }
      }
    } else {
      this.#csdRe = null;
      this.#csdIm = null;
    }
    this.#q = settings.spatialMapping && settings.spatialMapping !== 'direct' && ntx > 1 ? spatialMappingMatrix(settings.spatialMapping, ntx) : null;
    if (settings.rippleDb) {
      const hw = new Prng(hardwareSeed);
      this.#rippleRe = new Float64Array(nrx * nsc);
      this.#rippleIm = new Float64Array(nrx * nsc);
      const lo = indices[0];
      const span = Math.max(1, indices[nsc - 1] - lo);
      for (let r = 0; r < nrx; r++) {
        // Smooth ripple: three harmonics across the band, plus roll-off toward the band edges.
        const harmonics = [1, 2, 3].map((h) => ({ h, a: hw.normal(0, 1) / h, p: hw.uniform(0, 2 * Math.PI), b: hw.normal(0, 1) / h, q: hw.uniform(0, 2 * Math.PI) }));
        const norm = Math.sqrt(harmonics.reduce((sum, x) => sum + (x.a * x.a) / 2, 0)) || 1;
        for (let k = 0; k < nsc; k++) {
          const u = (indices[k] - lo) / span;
          let db = 0;
          let ph = 0;
          for (const x of harmonics) {
            db += (x.a * Math.cos(2 * Math.PI * x.h * u + x.p)) / norm;
            ph += (x.b * Math.sin(2 * Math.PI * x.h * u + x.q)) / norm;
          }
          const edge = Math.pow(2 * u - 1, 8);
          const gain = Math.pow(10, (settings.rippleDb * (db - 2 * edge)) / 20);
          const phase = (settings.rippleDb / 8.686) * ph;
          this.#rippleRe[r * nsc + k] = gain * Math.cos(phase);
          this.#rippleIm[r * nsc + k] = gain * Math.sin(phase);
        }
      }
    } else {
      this.#rippleRe = null;
      this.#rippleIm = null;
    }
  }

  /** Whether the next packet is lost, by a two-state (Gilbert–Elliott) process with the long-run rate `loss`. */
  lost(loss: number): boolean {
    const b = this.#s.lossBurstPackets ?? 1;
    if (loss <= 0) return false;
    const leaveBad = 1 / b;
    const enterBad = Math.min(1, (loss * leaveBad) / Math.max(1e-9, 1 - loss));
    this.#lossBad = this.#lossBad ? !this.#prng.chance(leaveBad) : this.#prng.chance(enterBad);
    return this.#lossBad;
  }

  /** The transmitter's streams and the receiver's filters, applied to the clean channel in place. */
  transformChannel(re: Float64Array, im: Float64Array): void {
    const ntx = this.#ntx;
    const nrx = this.#nrx;
    const nsc = this.#nsc;
    if (this.#q) {
      // Reported stream s = Σ_a Q[s][a] · H[a] (per rx chain and subcarrier).
      const q = this.#q;
      for (let r = 0; r < nrx; r++) {
        const tr = this.#tmpRe;
        const ti = this.#tmpIm;
        tr.fill(0);
        ti.fill(0);
        for (let s = 0; s < ntx; s++) {
          for (let a = 0; a < ntx; a++) {
            const qr = q.re[s * ntx + a];
            const qi = q.im[s * ntx + a];
            const base = (a * nrx + r) * nsc;
            for (let k = 0; k < nsc; k++) {
              tr[s * nsc + k] += qr * re[base + k] - qi * im[base + k];
              ti[s * nsc + k] += qr * im[base + k] + qi * re[base + k];
            }
          }
        }
        for (let s = 0; s < ntx; s++) {
          const base = (s * nrx + r) * nsc;
          for (let k = 0; k < nsc; k++) {
            re[base + k] = tr[s * nsc + k];
            im[base + k] = ti[s * nsc + k];
          }
        }
      }
    }
    const cr = this.#csdRe;
    const ci = this.#csdIm;
    const rr = this.#rippleRe;
    const ri = this.#rippleIm;
    if (!cr && !rr) return;
    for (let s = 0; s < ntx; s++) {
      for (let r = 0; r < nrx; r++) {
        const base = (s * nrx + r) * nsc;
        for (let k = 0; k < nsc; k++) {
          let fr = 1;
          let fi = 0;
          if (cr) {
            fr = cr[s * nsc + k];
            fi = ci![s * nsc + k];
          }
          if (rr) {
            const a = rr[r * nsc + k];
            const b = ri![r * nsc + k];
            const t = fr * a - fi * b;
            fi = fr * b + fi * a;
            fr = t;
          }
          const x = re[base + k];
          const y = im[base + k];
          re[base + k] = x * fr - y * fi;
          im[base + k] = x * fi + y * fr;
        }
      }
    }
  }

  /** This packet's gain factor from the capture's AGC offset and the stepping AGC level. */
  agcGain(): number {
    const s = this.#s;
    if (s.agcStepChance && this.#prng.chance(s.agcStepChance)) {
      const step = s.agcStepDb ?? 3;
      // Steps either way, pulled back toward the nominal level so the level stays bounded.
      this.#agcLevelDb += this.#prng.chance(0.5 + Math.max(-0.4, Math.min(0.4, this.#agcLevelDb / (8 * step)))) ? -step : step;
    }
    return Math.pow(10, (this.#agcLevelDb + (s.agcOffsetDb ?? 0)) / 20);
  }

  /** Now and then the chip reports the receive chains rotated by one (an antenna-switching glitch); in place. */
  glitch(re: Float64Array, im: Float64Array): boolean {
    const chance = this.#s.glitchChance ?? 0;
    if (chance <= 0 || this.#nrx < 2 || !this.#prng.chance(chance)) return false;
    const nsc = this.#nsc;
    const nrx = this.#nrx;
    for (let s = 0; s < this.#ntx; s++) {
      const base = s * nrx * nsc;
      const lastRe = re.slice(base + (nrx - 1) * nsc, base + nrx * nsc);
      const lastIm = im.slice(base + (nrx - 1) * nsc, base + nrx * nsc);
      re.copyWithin(base + nsc, base, base + (nrx - 1) * nsc);
      im.copyWithin(base + nsc, base, base + (nrx - 1) * nsc);
      re.set(lastRe, base);
      im.set(lastIm, base);
    }
    return true;
  }
}
