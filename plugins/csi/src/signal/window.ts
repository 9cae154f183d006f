import type { CsiFrame, CsiWindow } from '@wiflow/core';
import { invalidArgument } from '../errors.js';
import { removeLinearPhase, unwrapPhase } from './phase.js';

/** Options of a windower. */
export interface WindowOptions {
  /** Frames (time slots, when `rateHz` is set) per window. */
  length: number;
  /** Frames (time slots) between the ends of consecutive windows (hop ≤ length overlaps). */
  hop: number;
  /** Environment (room) id written on the windows. */
  environmentId: string;
  /** Processing steps already applied, recorded in `features`. */
  features?: string[];
  /** Remove the linear phase term while computing phases (when the frames were not sanitised already). */
  sanitizePhase?: boolean;
  /**
   * Nominal frame rate of the links (Hz). When set, windows are cut on a time grid shared by every
   * link (see `LinkWindower`); when omitted or 0, frames are counted (captures without a steady rate).
   */
  rateHz?: number;
  /**
   * Time mode: the longest run of lost slots a window may hold, filled by holding a neighbouring
   * frame; a window with a longer gap is dropped. Default ⌊length / 2⌋.
   */
  maxGapSlots?: number;
}

/** Figures of a windower. */
export interface WindowerStats {
  /** Windows emitted. */
  windows: number;
  /** Lost time slots filled by holding a neighbouring frame, over all emitted windows. */
  filledSlots: number;
  /** Windows not emitted because a gap of lost slots was longer than `maxGapSlots` (or the link was silent). */
  gapDroppedWindows: number;
  /** Frames passed over because their time slot was already taken or already windowed (duplicates, out of order). */
  lateFrames: number;
}

function sameIndices(a: Int16Array, b: Int16Array | null): boolean {
  if (a === b) return true;
  if (!b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Key of a link and stream shape: frames of different links never share a window, and a link
 * whose packets change stream count (an Intel 5300 following the rate) keeps one window per shape.
 */
export function linkKey(frame: { sourceId: string; link: { tx: string; rx: string }; ntx: number; nrx: number }): string {
  return `${frame.sourceId}\u0000${frame.link.tx}\u0000${frame.link.rx}\u0000${frame.ntx}x${frame.nrx}`;
}

/**
 * Cuts one link's frames into windows of amplitude and unwrapped phase, [time][tx][rx][sc].
 * Frames must share the link's shape (resample first); a shape change starts over.
 *
 * Without `rateHz` a window is the last `length` frames, every `hop` frames. With `rateHz` the
 * windows are cut on time: slot k of a link is the nominal instant k / rateHz since the Unix epoch
 * (frame `time`) plus the link's own phase (taken from its first frame, then tracked slowly, so
 * timing jitter and a steady transmit offset do not move frames between slots); a window starts at
 * every slot k with k mod hop = 0, so every link of a room cuts windows ending at the same instants
 * whatever packets it lost. A lost slot holds the frame before it (the first received frame of the
 * window for slots before that); their number is the window's `filledSlots`. Windows with a run of
 * more than `maxGapSlots` lost slots, or reaching back before the link's first frame, are not emitted.
 */
export class LinkWindower {
  readonly options: WindowOptions;
  readonly #periodMs: number;
  readonly #maxGap: number;
  #amplitude: Float32Array | null = null;
  #phase: Float32Array | null = null;
  /** One frame's values, written by the caller between `slot` and `commit`. */
  #stageAmplitude: Float32Array | null = null;
  #stagePhase: Float32Array | null = null;
  #timestamps: Float64Array;
  #times: Float64Array;
  /** Time mode: the slot number held at each ring position (NaN when none). */
  #slotAt: Float64Array;
  #ntx = 0;
  #nrx = 0;
  #subcarriers: Int16Array | null = null;
  #size = 0;
  #filled = 0;
  #next = 0;
  #sinceEmit = 0;
  #emitted = false;
  /** Time mode: the link's phase (ms), its first and last slot, the last frame's truth and provenance. */
  #phaseMs = NaN;
  #firstSlot = NaN;
  #lastSlot = NaN;
  #lastFrame: CsiFrame | null = null;
  readonly #stats: WindowerStats = { windows: 0, filledSlots: 0, gapDroppedWindows: 0, lateFrames: 0 };

  constructor(options: WindowOptions) {
    if (!Number.isInteger(options.length) || options.length < 1) throw invalidArgument('window length must be a positive integer');
    if (!Number.isInteger(options.hop) || options.hop < 1) throw invalidArgument('window hop must be a positive integer');
    const rate = options.rateHz ?? 0;
    if (!(Number.isFinite(rate) && rate >= 0)) throw invalidArgument('window rateHz must be a finite number ≥ 0');
    const maxGap = options.maxGapSlots ?? Math.floor(options.length / 2);
    if (!Number.isInteger(maxGap) || maxGap < 0) throw invalidArgument('window maxGapSlots must be an integer ≥ 0');
    this.options = options;
    this.#periodMs = rate > 0 ? 1000 / rate : 0;
    this.#maxGap = maxGap;
    this.#timestamps = new Float64Array(options.length);
    this.#times = new Float64Array(options.length);
    this.#slotAt = new Float64Array(options.length).fill(NaN);
  }

  /** Windows, filled slots and dropped windows of this link so far. */
  stats(): WindowerStats {
    return { ...this.#stats };
  }

  /** Arrays for the next frame of this shape: fill `amplitude`/`phase` at `offset` (ntx·nrx·nsc values), then call `commit`. */
  slot(ntx: number, nrx: number, subcarriers: Int16Array): { amplitude: Float32Array; phase: Float32Array; offset: number } {
    if (ntx !== this.#ntx || nrx !== this.#nrx || !sameIndices(subcarriers, this.#subcarriers)) {
      this.#ntx = ntx;
      this.#nrx = nrx;
      this.#subcarriers = subcarriers;
      this.#size = ntx * nrx * subcarriers.length;
      this.#amplitude = new Float32Array(this.options.length * this.#size);
      this.#phase = new Float32Array(this.options.length * this.#size);
      this.#stageAmplitude = new Float32Array(this.#size);
      this.#stagePhase = new Float32Array(this.#size);
      this.#filled = 0;
      this.#next = 0;
      this.#sinceEmit = 0;
      this.#emitted = false;
      this.#slotAt.fill(NaN);
      this.#phaseMs = NaN;
      this.#firstSlot = NaN;
      this.#lastSlot = NaN;
    }
    return { amplitude: this.#stageAmplitude!, phase: this.#stagePhase!, offset: 0 };
  }

  /** Record the frame written by `slot`; returns the windows now due (usually none or one). */
  commit(frame: CsiFrame): CsiWindow[] {
    return this.#periodMs > 0 ? this.#commitTimed(frame) : this.#commitCounted(frame);
  }

  /** Add a frame: amplitude and (unwrapped, optionally sanitised) phase per stream. */
  push(frame: CsiFrame): CsiWindow[] {
    const { amplitude, phase, offset } = this.slot(frame.ntx, frame.nrx, frame.subcarriers);
    const { re, im } = frame.csi;
    const n = re.length;
    for (let i = 0; i < n; i++) {
      amplitude[offset + i] = Math.hypot(re[i], im[i]);
      phase[offset + i] = Math.atan2(im[i], re[i]);
    }
    for (let s = 0; s < frame.ntx * frame.nrx; s++) {
      unwrapPhase(phase, offset + s * frame.nsc, frame.nsc);
      if (this.options.sanitizePhase) removeLinearPhase(phase, frame.subcarriers, offset + s * frame.nsc, frame.nsc);
    }
    return this.commit(frame);
  }

  #store(position: number): void {
    this.#amplitude!.set(this.#stageAmplitude!, position * this.#size);
    this.#phase!.set(this.#stagePhase!, position * this.#size);
  }

  #commitCounted(frame: CsiFrame): CsiWindow[] {
    const length = this.options.length;
    this.#store(this.#next);
    this.#timestamps[this.#next] = frame.timestamp;
    this.#times[this.#next] = frame.time;
    this.#next = (this.#next + 1) % length;
    if (this.#filled < length) this.#filled++;
    this.#sinceEmit++;
    if (this.#filled < length) return [];
    if (this.#emitted && this.#sinceEmit < this.options.hop) return [];
    this.#emitted = true;
    this.#sinceEmit = 0;
    const size = this.#size;
    const amplitude = new Float32Array(length * size);
    const phase = new Float32Array(length * size);
    const oldest = this.#next;
    const tail = (length - oldest) * size;
    amplitude.set(this.#amplitude!.subarray(oldest * size), 0);
    amplitude.set(this.#amplitude!.subarray(0, oldest * size), tail);
    phase.set(this.#phase!.subarray(oldest * size), 0);
    phase.set(this.#phase!.subarray(0, oldest * size), tail);
    this.#stats.windows++;
    return [this.#window(frame, amplitude, phase, this.#timestamps[oldest], frame.timestamp, frame.time, 0)];
  }

  #commitTimed(frame: CsiFrame): CsiWindow[] {
    const period = this.#periodMs;
    const { length, hop } = this.options;
    if (Number.isNaN(this.#phaseMs)) this.#phaseMs = ((frame.time % period) + period) % period;
    const slot = Math.round((frame.time - this.#phaseMs) / period);
    if (!Number.isNaN(this.#lastSlot) && slot <= this.#lastSlot) {
      this.#stats.lateFrames++;
      return [];
    }
    // Follow slow clock drift; a jittered frame moves the phase by 1/16 of its offset.
    this.#phaseMs += (frame.time - this.#phaseMs - slot * period) / 16;
    if (Number.isNaN(this.#firstSlot)) this.#firstSlot = slot;
    const out: CsiWindow[] = [];
    const previous = Number.isNaN(this.#lastSlot) ? slot - 1 : this.#lastSlot;
    // Windows start on the hop grid (slot ≡ 0 mod hop), so they end at slots ≡ length − 1 (mod hop).
    const endPhase = (length - 1) % hop;
    const isEnd = (k: number) => (((k - endPhase) % hop) + hop) % hop === 0;
    // Grid ends passed over by this frame (their own slot lost): windowed before the ring moves on.
    let end = previous + 1 + ((((endPhase - previous - 1) % hop) + hop) % hop);
    const lastUseful = Math.min(slot - 1, previous + length - 1);
    for (; end <= lastUseful; end += hop) this.#emitTimed(end, out);
    // Ends where the link was silent for the whole window: nothing to window there.
    if (end < slot && end - length + 1 >= this.#firstSlot) this.#stats.gapDroppedWindows += Math.floor((slot - 1 - end) / hop) + 1;
    const position = ((slot % length) + length) % length;
    this.#store(position);
    this.#slotAt[position] = slot;
    this.#timestamps[position] = frame.timestamp;
    this.#times[position] = frame.time;
    this.#lastSlot = slot;
    this.#lastFrame = frame;
    if (isEnd(slot)) this.#emitTimed(slot, out);
    return out;
  }

  /** Window the slots end − length + 1 … end, holding neighbours for lost slots, into `out`. */
  #emitTimed(end: number, out: CsiWindow[]): void {
    const length = this.options.length;
    const start = end - length + 1;
    if (start < this.#firstSlot) return;
    const size = this.#size;
    const at = (s: number) => ((s % length) + length) % length;
    let firstReceived = -1;
    let run = 0;
    let longest = 0;
    for (let s = start; s <= end; s++) {
      if (this.#slotAt[at(s)] === s) {
        if (firstReceived < 0) firstReceived = s;
        run = 0;
      } else if (++run > longest) longest = run;
    }
    if (firstReceived < 0 || longest > this.#maxGap) {
      this.#stats.gapDroppedWindows++;
      return;
    }
    const amplitude = new Float32Array(length * size);
    const phase = new Float32Array(length * size);
    let held = at(firstReceived);
    let filled = 0;
    for (let s = start, i = 0; s <= end; s++, i++) {
      const position = at(s);
      if (this.#slotAt[position] === s) held = position;
      else filled++;
      amplitude.set(this.#amplitude!.subarray(held * size, held * size + size), i * size);
      phase.set(this.#phase!.subarray(held * size, held * size + size), i * size);
    }
    const period = this.#periodMs;
    const last = this.#lastFrame!;
    // The grid instant on the wall clock, and on the link's device clock (the last frame's offset between them).
    const time = end * period;
    const endTimestamp = Math.round(last.timestamp + (time - last.time) * 1000);
    const startTimestamp = endTimestamp - Math.round((length - 1) * period * 1000);
    this.#stats.windows++;
    this.#stats.filledSlots += filled;
    out.push(this.#window(last, amplitude, phase, startTimestamp, endTimestamp, time, filled));
  }

  #window(last: CsiFrame, amplitude: Float32Array, phase: Float32Array, startTimestamp: number, endTimestamp: number, time: number, filled: number): CsiWindow {
    const window: CsiWindow = {
      sourceId: last.sourceId,
      link: last.link,
      environmentId: this.options.environmentId,
      startTimestamp,
      endTimestamp,
      time,
      length: this.options.length,
      ntx: this.#ntx,
      nrx: this.#nrx,
      nsc: this.#subcarriers!.length,
      subcarriers: this.#subcarriers!,
      centerFrequencyHz: last.centerFrequencyHz,
      amplitude,
      phase,
      features: this.options.features ?? ['amplitude', 'phase:unwrapped'],
      provenance: last.provenance,
    };
    if (this.#periodMs > 0) window.filledSlots = filled;
    if (last.truth) window.truth = last.truth;
    return window;
  }
}

/** Windows frames of many links (one `LinkWindower` per link). */
export class CsiWindower {
  readonly options: WindowOptions;
  #links = new Map<string, LinkWindower>();

  constructor(options: WindowOptions) {
    new LinkWindower(options); // validates the options now rather than at the first frame
    this.options = options;
  }

  /** The windower of a frame's link. */
  link(frame: CsiFrame): LinkWindower {
    const key = linkKey(frame);
    let windower = this.#links.get(key);
    if (!windower) {
      windower = new LinkWindower(this.options);
      this.#links.set(key, windower);
    }
    return windower;
  }

  /** Add a frame; returns the windows of its link now due (usually none or one). */
  push(frame: CsiFrame): CsiWindow[] {
    return this.link(frame).push(frame);
  }

  /** Number of links seen. */
  get links(): number {
    return this.#links.size;
  }

  /** Figures summed over the links. */
  stats(): WindowerStats {
    return sumWindowerStats([...this.#links.values()]);
  }
}

/** Figures of many link windowers, summed. */
export function sumWindowerStats(windowers: Iterable<LinkWindower>): WindowerStats {
  const total: WindowerStats = { windows: 0, filledSlots: 0, gapDroppedWindows: 0, lateFrames: 0 };
  for (const w of windowers) {
    const s = w.stats();
    total.windows += s.windows;
    total.filledSlots += s.filledSlots;
    total.gapDroppedWindows += s.gapDroppedWindows;
    total.lateFrames += s.lateFrames;
  }
  return total;
}
