import { z } from 'zod';
import { Prng } from '../random/prng.js';

/**
 * How a person's breathing varies from breath to breath. Defaults are quiet breathing of an awake adult at
 * rest: breath-period coefficient of variation 0.15 (Tobin et al. 1988, J Appl Physiol 65:309, 65 healthy
 * subjects: breath-to-breath CV of frequency 20.8 ± 11.5 %, of tidal volume 33 ± 14.9 %, of Ti/Ttot 17.9 %),
 * inspiration 40 % of the breath (I:E 1:1.5), and a sigh (a breath at least twice as deep, Vlemincx et al.
 * 2010, Biol Psychol 84:82) about every 5 minutes (about 12 an hour, Li et al. 2016, Nature 530:293).
 * All zeros and `inhaleFraction` 0.5 give the raised-cosine twin of the old fixed sine.
 */
export const BreathingVariabilitySchema = z.object({
  rateCv: z.number().min(0).max(0.4).default(0.15).describe('breath-to-breath coefficient of variation of the breath period'),
  depthCv: z.number().min(0).max(0.5).default(0.25).describe('breath-to-breath coefficient of variation of the depth'),
  inhaleFraction: z.number().min(0.25).max(0.5).default(0.4).describe('inspiration time over the whole breath (Ti/Ttot); 0.4 is I:E 1:1.5'),
  sighEveryS: z.number().min(0).max(3600).default(300).describe('mean seconds between sighs (0: none)'),
  sighDepth: z.number().min(1).max(4).default(2.5).describe('depth of a sigh over the mean depth'),
}).strict();

/** A person's breathing variability, defaults filled in. */
export type BreathingVariability = z.infer<typeof BreathingVariabilitySchema>;

/** Breath periods follow an AR(1) process: consecutive breaths are alike (breathing drifts rather than jumps). */
const PERIOD_CORRELATION = 0.5;
/** Draws are clipped at ±2.5 σ (symmetric, so the mean period stays the declared one). */
const CLIP = 2.5;
/** A sigh lasts this many ordinary breaths: a longer, deeper inspiration and the pause after it. */
const SIGH_LENGTH = 2;
/** Breaths are generated this far ahead of the latest time asked for (s). */
const LOOKAHEAD_S = 30;

interface Breath {
  start: number;
  duration: number;
  /** Peak-to-trough chest excursion (m). */
  amplitude: number;
  inhale: number;
  sigh: boolean;
}

/**
 * One person's breathing as chest-wall displacement over time: breath by breath, each with its own period
 * (AR(1) around the mean, CV `rateCv`), depth (CV `depthCv`) and an inspiration shorter than the expiration
 * (half-cosine up over Ti, half-cosine down over Te), with occasional sighs. Deterministic for a seed; breaths
 * are drawn lazily in time order, so any t can be asked for in any order.
 *
 * The long-run mean rate is the declared `rateBpm` (sighs included): ordinary breaths are shortened a little so
 * that the sighs' longer breaths keep the mean period at 60 / rateBpm.
 */
export class BreathingPattern {
  readonly rateBpm: number;
  readonly depthM: number;
  readonly variability: BreathingVariability;
  readonly #prng: Prng;
  readonly #breaths: Breath[] = [];
  /** Breaths forgotten by `prune` (the index of `#breaths[0]`). */
  #dropped = 0;
  #state = 0;
  readonly #basePeriod: number;
  readonly #sighChance: number;

  constructor(rateBpm: number, depthM: number, variability: Partial<BreathingVariability> | undefined, seed: string) {
    this.rateBpm = rateBpm;
    this.depthM = depthM;
    this.variability = BreathingVariabilitySchema.parse(variability ?? {});
    this.#prng = new Prng(seed);
    const period = 60 / rateBpm;
    this.#sighChance = this.variability.sighEveryS > 0 ? Math.min(0.5, period / this.variability.sighEveryS) : 0;
    this.#basePeriod = period / (1 + (SIGH_LENGTH - 1) * this.#sighChance);
    // Start somewhere inside a breath, as the old sine's phase did.
    this.#state = this.#draw();
    const first = this.#next(0);
    first.start = -this.#prng.uniform(0, first.duration);
    this.#breaths.push(first);
  }

  /** Chest-wall displacement at time t (m, forward positive; about zero on average). */
  displacementAt(t: number): number {
    const b = this.#breathAt(t);
    if (!b) return 0;
    const u = (t - b.breath.start) / b.breath.duration;
    const f = b.breath.inhale;
    const shape = u < f ? (1 - Math.cos((Math.PI * u) / f)) / 2 : (1 + Math.cos((Math.PI * (u - f)) / (1 - f))) / 2;
    return b.breath.amplitude * shape - this.depthM;
  }

  /** Breaths taken since the first one began, as a continuous count (a breath's inspiration starts on a whole number). */
  cyclesAt(t: number): number {
    const b = this.#breathAt(t);
    if (!b) return 0;
    return b.index + (t - b.breath.start) / b.breath.duration;
  }

  /** The mean instantaneous rate over [t0, t1] (breaths per minute): whole and partial breaths in the window over its length. */
  rateBetween(t0: number, t1: number): number {
    if (!(t1 > t0)) throw new RangeError(`rateBetween needs t1 > t0, got ${t0} and ${t1}`);
    return (60 * (this.cyclesAt(t1) - this.cyclesAt(t0))) / (t1 - t0);
  }

  /** Every breath that starts in [t0, t1): start (s), duration (s), depth (m, half the peak-to-trough excursion) and whether it is a sigh. */
  breathsBetween(t0: number, t1: number): { start: number; duration: number; depthM: number; sigh: boolean }[] {
    this.#extendTo(t1);
    return this.#breaths.filter((b) => b.start >= t0 && b.start < t1).map((b) => ({ start: b.start, duration: b.duration, depthM: b.amplitude / 2, sigh: b.sigh }));
  }

  /** Forget breaths that end before t (bounded memory on endless runs); earlier times then read as the oldest kept breath. */
  prune(t: number): void {
    while (this.#breaths.length > 1 && this.#breaths[0].start + this.#breaths[0].duration < t) {
      this.#breaths.shift();
      this.#dropped++;
    }
  }

  #breathAt(t: number): { breath: Breath; index: number } | null {
    if (!(this.rateBpm > 0)) return null;
    this.#extendTo(t);
    const list = this.#breaths;
    if (t < list[0].start) return { breath: list[0], index: this.#dropped };
    let lo = 0;
    let hi = list.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (list[mid].start <= t) lo = mid;
      else hi = mid - 1;
    }
    return { breath: list[lo], index: this.#dropped + lo };
  }

  #extendTo(t: number): void {
    const list = this.#breaths;
    let last = list[list.length - 1];
    while (last.start + last.duration <= t + LOOKAHEAD_S) {
      last = this.#next(last.start + last.duration);
      list.push(last);
    }
  }

  #draw(): number {
    return Math.max(-CLIP, Math.min(CLIP, this.#prng.normal()));
  }

  #next(start: number): Breath {
    const v = this.variability;
    this.#state = PERIOD_CORRELATION * this.#state + Math.sqrt(1 - PERIOD_CORRELATION ** 2) * this.#draw();
    const sigh = this.#prng.chance(this.#sighChance);
    const depthDraw = this.#draw();
    const period = this.#basePeriod * Math.max(0.3, 1 + v.rateCv * this.#state);
    const depth = this.depthM * Math.max(0.2, 1 + v.depthCv * depthDraw) * (sigh ? v.sighDepth : 1);
    return { start, duration: sigh ? period * SIGH_LENGTH : period, amplitude: 2 * depth, inhale: v.inhaleFraction, sigh };
  }
}
