import type { CsiFrame, CsiWindow } from '@wiflow/core';
import { HampelState } from './hampel.js';
import { planResample, resampleStream, resolveGrid, type CanonicalGridName } from './grid.js';
import { normalizeInPlace, type AmplitudeNormalization } from './normalize.js';
import { removeLinearPhase, unwrapPhase } from './phase.js';
import { LinkWindower, linkKey, sumWindowerStats } from './window.js';

/** Options of the composite signal chain. */
export interface SignalChainOptions {
  /** Canonical subcarrier grid (default 'ht20'). */
  grid?: CanonicalGridName | Int16Array;
  /** Remove the linear phase term after unwrapping (default true). */
  sanitize?: boolean;
  /** Causal Hampel filter on amplitudes over time; false to skip (default window 9, 3σ). */
  hampel?: { window: number; nSigmas: number } | false;
  /** Amplitude normalisation per stream (default 'mean'). */
  normalize?: AmplitudeNormalization;
  /**
   * Frames per window and hop (default 64 and 16); with `rateHz` (the links' nominal frame rate)
   * windows are cut on a time grid shared by all links, lost slots filled, gaps over `maxGapSlots`
   * (default ⌊length / 2⌋) dropped (see `LinkWindower`).
   */
  window?: { length: number; hop: number; rateHz?: number; maxGapSlots?: number };
  /** Environment id written on the windows (default 'default'). */
  environmentId?: string;
}

interface LinkState {
  windower: LinkWindower;
  hampel: HampelState | null;
  re: Float32Array;
  im: Float32Array;
}

/** Figures of a chain. */
export interface SignalChainStats {
  frames: number;
  windows: number;
  links: number;
  hampelReplaced: number;
  /** Lost time slots filled in the emitted windows (time grid only). */
  filledSlots: number;
  /** Windows not emitted for a gap longer than the limit (time grid only). */
  gapDroppedWindows: number;
  /** Frames whose time slot was already taken or windowed (time grid only). */
  lateFrames: number;
}

/**
 * resample → sanitise phase → Hampel → normalise → window, fused in one pass per frame (no
 * intermediate frames), per link. The steps are the same functions the single nodes use.
 */
export class SignalChain {
  readonly grid: Int16Array;
  readonly features: string[];
  #options: Required<Omit<SignalChainOptions, 'grid'>>;
  #links = new Map<string, LinkState>();
  #frames = 0;
  #windows = 0;

  constructor(options: SignalChainOptions = {}) {
    this.grid = resolveGrid(options.grid ?? 'ht20');
    this.#options = {
      sanitize: options.sanitize ?? true,
      hampel: options.hampel ?? { window: 9, nSigmas: 3 },
      normalize: options.normalize ?? 'mean',
      window: options.window ?? { length: 64, hop: 16 },
      environmentId: options.environmentId ?? 'default',
    };
    const o = this.#options;
    this.features = [
      `resample:${typeof options.grid === 'string' ? options.grid : options.grid ? 'custom' : 'ht20'}(${this.grid.length})`,
      o.sanitize ? 'phase:sanitised(unwrap,linear-fit-removed)' : 'phase:unwrapped',
      ...(o.hampel ? [`hampel:amplitude(window=${o.hampel.window},nSigmas=${o.hampel.nSigmas},causal)`] : []),
      `amplitude:normalised(${o.normalize})`,
      o.window.rateHz
        ? `window(length=${o.window.length},hop=${o.window.hop},rateHz=${o.window.rateHz},maxGapSlots=${o.window.maxGapSlots ?? Math.floor(o.window.length / 2)},time-grid)`
        : `window(length=${o.window.length},hop=${o.window.hop})`,
    ];
    // Validate the window and Hampel options now.
    new LinkWindower({ ...o.window, environmentId: o.environmentId });
    if (o.hampel) new HampelState(o.hampel.window, o.hampel.nSigmas);
  }

  /** Push one frame; returns the windows of its link now due (usually none or one). */
  push(frame: CsiFrame): CsiWindow[] {
    this.#frames++;
    const key = linkKey(frame);
    let state = this.#links.get(key);
    const o = this.#options;
    const grid = this.grid;
    const n = grid.length;
    if (!state) {
      state = {
        windower: new LinkWindower({ ...o.window, environmentId: o.environmentId, features: this.features }),
        hampel: o.hampel ? new HampelState(o.hampel.window, o.hampel.nSigmas) : null,
        re: new Float32Array(n),
        im: new Float32Array(n),
      };
      this.#links.set(key, state);
    }
    const plan = planResample(frame.subcarriers, grid);
    const streams = frame.ntx * frame.nrx;
    const { amplitude, phase, offset } = state.windower.slot(frame.ntx, frame.nrx, grid);
    const { re, im } = state;
    for (let s = 0; s < streams; s++) {
      resampleStream(plan, frame.csi.re, frame.csi.im, s * frame.nsc, re, im, 0);
      const at = offset + s * n;
      for (let k = 0; k < n; k++) {
        amplitude[at + k] = Math.sqrt(re[k] * re[k] + im[k] * im[k]);
        phase[at + k] = Math.atan2(im[k], re[k]);
      }
      unwrapPhase(phase, at, n);
      if (o.sanitize) removeLinearPhase(phase, grid, at, n);
    }
    if (state.hampel) state.hampel.filter(amplitude, offset, streams * n);
    if (o.normalize !== 'none') for (let s = 0; s < streams; s++) normalizeInPlace(amplitude, offset + s * n, n, o.normalize);
    const windows = state.windower.commit(frame);
    this.#windows += windows.length;
    return windows;
  }

  /** Frames, windows, links and windowing figures so far. */
  stats(): SignalChainStats {
    let hampelReplaced = 0;
    for (const state of this.#links.values()) hampelReplaced += state.hampel?.replaced ?? 0;
    const { filledSlots, gapDroppedWindows, lateFrames } = sumWindowerStats([...this.#links.values()].map((s) => s.windower));
    return { frames: this.#frames, windows: this.#windows, links: this.#links.size, hampelReplaced, filledSlots, gapDroppedWindows, lateFrames };
  }
}
