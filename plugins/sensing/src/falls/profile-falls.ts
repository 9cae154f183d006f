import type { CsiFrame, SensingFallEvent } from '@wiflow/core';
import { predictLogistic, pickFeatures, type LogisticModel } from '../model/logistic.js';
import { eventFeatures, PROFILE_EVENT_SPAN, PROFILE_FEATURES, PROFILE_RATE_HZ, type ProfileKind } from './velocity-profile.js';

/** Slots of a judged window (12 s), how old a peak must be to be judged (5–6 s), and how often (each second). */
const WINDOW = 12 * PROFILE_RATE_HZ;
const JUDGE_FROM = 5 * PROFILE_RATE_HZ;
const JUDGE_TO = 6 * PROFILE_RATE_HZ;
const EVERY = PROFILE_RATE_HZ;
/** A shorter capture than this (3 s) is never judged. */
const MIN_SLOTS = 3 * PROFILE_RATE_HZ;
/** A gap longer than this (2 s) or time going back starts the window again. */
const MAX_GAP_SLOTS = 2 * PROFILE_RATE_HZ;

/** One event the detector judged, kept or not (evaluation). */
export interface ProfileEvent {
  /** Seconds since the link's first frame of the event's peak. */
  second: number;
  features: Float64Array;
  strength: number;
  probability: number;
}

/** Options of a `ProfileFallDetector`. */
export interface ProfileFallOptions {
  model: LogisticModel;
  /** Called with every judged event (evaluation). */
  onEvent?: (event: ProfileEvent) => void;
  /** Judge a peak only when the segment holds the span its features read before it (and, at end of input, after it). */
  fullContext?: boolean;
}

/** Whether a link's frames carry what the profile detector reads: several receive chains and enough subcarriers. */
export function profileFallsApply(frame: Pick<CsiFrame, 'nrx' | 'nsc'>): boolean {
  return frame.nrx >= 2 && frame.nsc >= 16;
}

/** Which feature groups a model reads (the phase-difference profile always: it finds the event). */
function kindsOf(model: LogisticModel): ProfileKind[] {
  const kinds: ProfileKind[] = ['p'];
  if (model.features.some((f) => f.startsWith('a_'))) kinds.push('a');
  if (model.features.some((f) => f.startsWith('s_'))) kinds.push('s');
  return kinds;
}

/**
 * Fall detection of one link from its time–velocity profile: frames onto a 20-Hz grid (one frame per slot,
 * a lost slot holds the last), a 12-s window judged each second; an event is judged once, when its peak
 * is 5–6 s old, so what followed it is in view. Mirrors pilot/carm.py's `judged`.
 */
export class ProfileFallDetector {
  #amplitude: Float64Array[] = [];
  #phase: Float64Array[] = [];
  #unwrapped: Float64Array | null = null;
  #lastRaw: Float64Array | null = null;
  #originUs: number | null = null;
  #originMs = 0;
  /** Absolute slot of the first slot of the current segment, and slots pushed in it. */
  #segmentStart = 0;
  #count = 0;
  #lastSlot = -1;
  #lastEnd: number | null = null;
  #falls: SensingFallEvent[] = [];
  #kinds: ProfileKind[];

  constructor(readonly options: ProfileFallOptions) {
    this.#kinds = kindsOf(options.model);
  }

  /** Add one frame of the link (the first transmit stream's chains are read). */
  push(frame: CsiFrame): void {
    if (this.#originUs === null) {
      this.#originUs = frame.timestamp;
      this.#originMs = frame.time;
    }
    const slotUs = 1e6 / PROFILE_RATE_HZ;
    let slot = Math.floor((frame.timestamp - this.#originUs) / slotUs);
    if (slot === this.#lastSlot) return;
    if (slot < this.#lastSlot) {
      // The device clock went back (a wrapped counter, a reboot): carry on from the next slot on the new clock.
      this.#originUs = frame.timestamp - (this.#lastSlot + 1) * slotUs;
      slot = this.#lastSlot + 1;
      this.#restart(slot);
    } else if (slot - this.#lastSlot > MAX_GAP_SLOTS) this.#restart(slot);
    const [amplitude, phase] = this.#streams(frame);
    if (this.#count > 0) for (let s = this.#lastSlot + 1; s < slot; s++) this.#add(this.#amplitude[this.#amplitude.length - 1], this.#phase[this.#phase.length - 1]);
    else this.#segmentStart = slot;
    this.#lastSlot = slot;
    this.#add(amplitude, phase);
  }

  /** End of input: judge the last window's peak if no regular judgement covered it. */
  finish(): void {
    this.#finalJudge();
  }

  /** Falls found since the last call. */
  takeFalls(): SensingFallEvent[] {
    return this.#falls.splice(0);
  }

  #restart(slot: number): void {
    this.#finalJudge();
    this.#amplitude = [];
    this.#phase = [];
    this.#count = 0;
    this.#lastEnd = null;
    this.#unwrapped = null;
    this.#lastRaw = null;
    this.#segmentStart = slot;
  }

  #streams(frame: CsiFrame): [Float64Array, Float64Array] {
    const { nrx, nsc } = frame;
    const { re, im } = frame.csi;
    const amplitude = new Float64Array(nrx * nsc);
    for (let i = 0; i < nrx * nsc; i++) amplitude[i] = Math.hypot(re[i], im[i]);
    // Phase of chain r against chain 0 cancels the card's common phase; unwrapped over time per stream.
    const raw = new Float64Array((nrx - 1) * nsc);
    for (let r = 1; r < nrx; r++) for (let s = 0; s < nsc; s++) {
      const a = r * nsc + s;
      raw[(r - 1) * nsc + s] = Math.atan2(im[a] * re[s] - re[a] * im[s], re[a] * re[s] + im[a] * im[s]);
    }
    if (!this.#unwrapped || !this.#lastRaw || this.#lastRaw.length !== raw.length) this.#unwrapped = Float64Array.from(raw);
    else for (let i = 0; i < raw.length; i++) {
      let d = raw[i] - this.#lastRaw[i];
      d -= 2 * Math.PI * Math.round(d / (2 * Math.PI));
      this.#unwrapped[i] += d;
    }
    this.#lastRaw = raw;
    return [amplitude, Float64Array.from(this.#unwrapped)];
  }

  #add(amplitude: Float64Array, phase: Float64Array): void {
    this.#amplitude.push(amplitude);
    this.#phase.push(phase);
    if (this.#amplitude.length > WINDOW) {
      this.#amplitude.shift();
      this.#phase.shift();
    }
    this.#count++;
    if (this.#count >= JUDGE_TO && (this.#count - JUDGE_TO) % EVERY === 0) {
      const end = this.#count;
      this.#judge(end, (peak) => end - peak > JUDGE_FROM && end - peak <= JUDGE_TO);
      this.#lastEnd = end;
    }
  }

  #finalJudge(): void {
    if (this.#count < MIN_SLOTS) return;
    const lastEnd = this.#lastEnd;
    this.#judge(this.#count, (peak) => lastEnd === null || peak > lastEnd - JUDGE_FROM);
  }

  /** Judge the window ending at segment slot `end` when its strongest peak (segment slot) passes `when`. */
  #judge(end: number, when: (peak: number) => boolean): void {
    const start = end - this.#amplitude.length;
    const event = eventFeatures(this.#amplitude, this.#phase, this.#kinds);
    const peak = start + event.peakSlot;
    if (!when(peak)) return;
    if (this.options.fullContext && (peak < PROFILE_EVENT_SPAN.before * PROFILE_RATE_HZ || end - peak < PROFILE_EVENT_SPAN.after * PROFILE_RATE_HZ)) return;
    const { model } = this.options;
    const probability = predictLogistic(model, pickFeatures(model, PROFILE_FEATURES, event.features));
    const second = (this.#segmentStart + peak) / PROFILE_RATE_HZ;
    this.options.onEvent?.({ second, features: event.features, strength: event.strength, probability });
    if (probability >= model.threshold) this.#falls.push({ time: this.#originMs + second * 1000, confidence: probability });
  }
}
