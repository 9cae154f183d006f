import type { CsiFrame, CsiWindow } from '@wiflow/core';
import { invalidArgument } from '../errors.js';
import { removeLinearPhase, unwrapPhase } from './phase.js';

/** Options of a windower. */
export interface WindowOptions {
  /** Frames per window. */
  length: number;
  /** Frames between the starts of consecutive windows (hop ≤ length overlaps). */
  hop: number;
  /** Environment (room) id written on the windows. */
  environmentId: string;
  /** Processing steps already applied, recorded in `features`. */
  features?: string[];
  /** Remove the linear phase term while computing phases (when the frames were not sanitised already). */
  sanitizePhase?: boolean;
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
 */
export class LinkWindower {
  readonly options: WindowOptions;
  #amplitude: Float32Array | null = null;
  #phase: Float32Array | null = null;
  #timestamps: Float64Array;
  #times: Float64Array;
  #ntx = 0;
  #nrx = 0;
  #subcarriers: Int16Array | null = null;
  #size = 0;
  #filled = 0;
  #next = 0;
  #sinceEmit = 0;
  #emitted = false;

  constructor(options: WindowOptions) {
    if (!Number.isInteger(options.length) || options.length < 1) throw invalidArgument('window length must be a positive integer');
    if (!Number.isInteger(options.hop) || options.hop < 1) throw invalidArgument('window hop must be a positive integer');
    this.options = options;
    this.#timestamps = new Float64Array(options.length);
    this.#times = new Float64Array(options.length);
  }

  /** Slot arrays for the next frame of this shape: fill `amplitude`/`phase` at `offset` (ntx·nrx·nsc values), then call `commit`. */
  slot(ntx: number, nrx: number, subcarriers: Int16Array): { amplitude: Float32Array; phase: Float32Array; offset: number } {
    if (ntx !== this.#ntx || nrx !== this.#nrx || !sameIndices(subcarriers, this.#subcarriers)) {
      this.#ntx = ntx;
      this.#nrx = nrx;
      this.#subcarriers = subcarriers;
      this.#size = ntx * nrx * subcarriers.length;
      this.#amplitude = new Float32Array(this.options.length * this.#size);
      this.#phase = new Float32Array(this.options.length * this.#size);
      this.#filled = 0;
      this.#next = 0;
      this.#sinceEmit = 0;
      this.#emitted = false;
    }
    return { amplitude: this.#amplitude!, phase: this.#phase!, offset: this.#next * this.#size };
  }

  /** Record the frame written into the slot; returns a window when one is due. */
  commit(frame: CsiFrame): CsiWindow | null {
    const length = this.options.length;
    this.#timestamps[this.#next] = frame.timestamp;
    this.#times[this.#next] = frame.time;
    this.#next = (this.#next + 1) % length;
    if (this.#filled < length) this.#filled++;
    this.#sinceEmit++;
    if (this.#filled < length) return null;
    if (this.#emitted && this.#sinceEmit < this.options.hop) return null;
    this.#emitted = true;
    this.#sinceEmit = 0;
    return this.#window(frame);
  }

  /** Add a frame: amplitude and (unwrapped, optionally sanitised) phase per stream. */
  push(frame: CsiFrame): CsiWindow | null {
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

  #window(last: CsiFrame): CsiWindow {
    const length = this.options.length;
    const size = this.#size;
    const amplitude = new Float32Array(length * size);
    const phase = new Float32Array(length * size);
    const oldest = this.#next;
    const tail = (length - oldest) * size;
    amplitude.set(this.#amplitude!.subarray(oldest * size), 0);
    amplitude.set(this.#amplitude!.subarray(0, oldest * size), tail);
    phase.set(this.#phase!.subarray(oldest * size), 0);
    phase.set(this.#phase!.subarray(0, oldest * size), tail);
    const window: CsiWindow = {
      sourceId: last.sourceId,
      link: last.link,
      environmentId: this.options.environmentId,
      startTimestamp: this.#timestamps[oldest],
      endTimestamp: last.timestamp,
      time: last.time,
      length,
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

  /** Add a frame; returns a window of its link when one is due. */
  push(frame: CsiFrame): CsiWindow | null {
    return this.link(frame).push(frame);
  }

  /** Number of links seen. */
  get links(): number {
    return this.#links.size;
  }
}
