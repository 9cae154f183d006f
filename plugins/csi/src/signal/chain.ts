import type { CsiFrame, CsiWindow } from '@wiflow/core';
import { HampelState } from './hampel.js';
import { planResample, resampleStream, resolveGrid, type CanonicalGridName } from './grid.js';
import { normalizeInPlace, type AmplitudeNormalization } from './normalize.js';
import { removeLinearPhase, unwrapPhase } from './phase.js';
import { LinkWindower, linkKey } from './window.js';

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
  /** Frames per window and hop (default 64 and 16). */
  window?: { length: number; hop: number };
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
      `window(length=${o.window.length},hop=${o.window.hop})`,
    ];
    // Validate the window and Hampel options now.
    new LinkWindower({ ...o.window, environmentId: o.environmentId });
    if (o.hampel) new HampelState(o.hampel.window, o.hampel.nSigmas);
  }

  /** Push one frame; returns a window of its link when one is due. */
  push(frame: CsiFrame): CsiWindow | null {
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
    const window = state.windower.commit(frame);
    if (window) this.#windows++;
    return window;
  }

  /** Frames, windows and links so far. */
  stats(): SignalChainStats {
    let hampelReplaced = 0;
    for (const state of this.#links.values()) hampelReplaced += state.hampel?.replaced ?? 0;
    return { frames: this.#frames, windows: this.#windows, links: this.#links.size, hampelReplaced };
  }
}
