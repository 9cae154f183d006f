import { DataTypes, defineNode, type CsiFrame, type CsiWindow } from '@wiflow/core';
import { z } from 'zod';
import { SignalChain } from '../signal/chain.js';
import { conjugateMultiply } from '../signal/conjugate.js';
import { dopplerSpectrum } from '../signal/doppler.js';
import { CANONICAL_GRIDS, resampleFrame, type CanonicalGridName } from '../signal/grid.js';
import { HampelState, hampelFrame } from '../signal/hampel.js';
import { normalizeAmplitude } from '../signal/normalize.js';
import { sanitizePhase } from '../signal/phase.js';
import { CsiWindower, linkKey } from '../signal/window.js';

/** Data type id of Doppler spectra on ports. */
export const DOPPLER_SPECTRUM_TYPE = 'DopplerSpectrum';

const gridNames = Object.keys(CANONICAL_GRIDS) as [CanonicalGridName, ...CanonicalGridName[]];
const GridSchema = z.enum(gridNames).default('ht20').describe('Canonical subcarrier grid (physical indices)');
const frameIn = { frames: { type: DataTypes.CsiFrame, description: 'CSI frames' } };
const frameOut = { frames: { type: DataTypes.CsiFrame, description: 'Processed CSI frames' } };

/** Resample frames onto a canonical subcarrier grid by physical index. */
export const resampleNode = defineNode({
  type: 'csi.resample',
  title: 'Resample subcarriers',
  category: 'signal',
  description: 'Interpolates each frame linearly by physical subcarrier index onto a canonical grid, so frames of different devices line up.',
  inputs: frameIn,
  outputs: frameOut,
  config: z.object({ grid: GridSchema }),
  create(ctx) {
    return { receive: (_port, value) => ctx.emit('frames', resampleFrame(value as CsiFrame, ctx.config.grid)) };
  },
});

/** Phase sanitising: unwrap across subcarriers and remove the linear term. */
export const sanitizePhaseNode = defineNode({
  type: 'csi.sanitize-phase',
  title: 'Sanitise phase',
  category: 'signal',
  description: 'Unwraps the phase across subcarriers and removes its linear fit (timing offset and phase offset); amplitudes are kept.',
  inputs: frameIn,
  outputs: frameOut,
  config: z.object({}),
  create(ctx) {
    return { receive: (_port, value) => ctx.emit('frames', sanitizePhase(value as CsiFrame)) };
  },
});

/** Hampel outlier filter on amplitudes over time, per link. */
export const hampelNode = defineNode({
  type: 'csi.hampel',
  title: 'Hampel filter',
  category: 'signal',
  description: 'Replaces amplitude outliers (more than nSigmas · 1.4826 · MAD from the median of the last `window` frames of the link) by that median.',
  inputs: frameIn,
  outputs: frameOut,
  config: z.object({ window: z.number().int().min(3).max(101).default(9), nSigmas: z.number().positive().default(3) }),
  create(ctx) {
    const states = new Map<string, HampelState>();
    return {
      receive(_port, value) {
        const frame = value as CsiFrame;
        const key = `${linkKey(frame)}\u0000${frame.nsc}`;
        let state = states.get(key);
        if (!state) states.set(key, (state = new HampelState(ctx.config.window, ctx.config.nSigmas)));
        return ctx.emit('frames', hampelFrame(frame, state));
      },
      stats() {
        let replaced = 0;
        for (const s of states.values()) replaced += s.replaced;
        return { links: states.size, replaced };
      },
    };
  },
});

/** Conjugate multiplication between receive chains. */
export const conjugateNode = defineNode({
  type: 'csi.conjugate',
  title: 'Conjugate multiplication',
  category: 'signal',
  description: 'Multiplies each receive chain by the conjugate of a reference chain of the same receiver, cancelling the per-packet offsets they share. Frames with one chain fail.',
  inputs: frameIn,
  outputs: frameOut,
  config: z.object({ reference: z.number().int().min(0).max(7).default(0) }),
  create(ctx) {
    return { receive: (_port, value) => ctx.emit('frames', conjugateMultiply(value as CsiFrame, ctx.config.reference)) };
  },
});

/** Amplitude normalisation per stream. */
export const normalizeNode = defineNode({
  type: 'csi.normalize',
  title: 'Normalise amplitude',
  category: 'signal',
  description: 'Scales each stream of each frame so its amplitudes have mean (or max) 1, removing AGC and path-loss scale.',
  inputs: frameIn,
  outputs: frameOut,
  config: z.object({ mode: z.enum(['mean', 'max', 'none']).default('mean') }),
  create(ctx) {
    return { receive: (_port, value) => ctx.emit('frames', normalizeAmplitude(value as CsiFrame, ctx.config.mode)) };
  },
});

const RateHz = z.number().min(0).max(100_000).default(0).describe("Links' nominal frame rate (Hz): windows end on a time grid shared by every link, lost packets filled; 0 counts frames");
const MaxGapSlots = z.number().int().min(0).max(4096).optional().describe('Time grid: longest run of lost slots a window may fill (default half the window); longer drops the window');

const WindowConfig = z.object({
  length: z.number().int().min(1).max(4096).default(64).describe('Frames (time slots) per window'),
  hop: z.number().int().min(1).max(4096).default(16).describe('Frames (time slots) between window ends'),
  rateHz: RateHz,
  maxGapSlots: MaxGapSlots,
  environmentId: z.string().default('default'),
  sanitizePhase: z.boolean().default(false).describe('Remove the linear phase term while windowing'),
});

/** Emit windows on `windows`, staying synchronous for the many frames that complete none. */
function emitWindows(ctx: { emit(port: string, value: unknown): void | Promise<void> }, windows: CsiWindow[]): void | Promise<void> {
  if (windows.length === 0) return;
  if (windows.length === 1) return ctx.emit('windows', windows[0]);
  return (async () => {
    for (const window of windows) await ctx.emit('windows', window);
  })();
}

/** Window frames into CsiWindows. */
export const windowNode = defineNode({
  type: 'csi.window',
  title: 'Window',
  category: 'signal',
  description: 'Collects consecutive frames of each link into windows of amplitude and unwrapped phase ([time][tx][rx][sc]); with rateHz, on a time grid shared by all links (lost packets filled, long gaps dropped); the window carries the truth of its last frame.',
  inputs: frameIn,
  outputs: { windows: { type: DataTypes.CsiWindow, description: 'CSI windows' } },
  config: WindowConfig,
  create(ctx) {
    const windower = new CsiWindower({ ...ctx.config, features: ['amplitude', ctx.config.sanitizePhase ? 'phase:sanitised' : 'phase:unwrapped'] });
    return {
      receive: (_port, value) => emitWindows(ctx, windower.push(value as CsiFrame)),
      stats: () => ({ links: windower.links, ...windower.stats() }),
    };
  },
});

/** Doppler spectrum of each window. */
export const dopplerNode = defineNode({
  type: 'csi.doppler',
  title: 'Doppler spectrum',
  category: 'signal',
  description: 'Fourier transform over time of each subcarrier (static part removed, Hann window), power averaged over subcarriers, from −fs/2 to +fs/2 (fft.js).',
  inputs: { windows: { type: DataTypes.CsiWindow, description: 'CSI windows' } },
  outputs: { spectra: { type: DOPPLER_SPECTRUM_TYPE, description: 'Doppler spectra' } },
  config: z.object({ fftSize: z.number().int().min(4).max(65536).optional(), removeStatic: z.boolean().default(true) }),
  create(ctx) {
    return { receive: (_port, value) => ctx.emit('spectra', dopplerSpectrum(value as CsiWindow, ctx.config)) };
  },
});

/** The config of `csi.signal-chain`. */
export const SignalChainConfig = z.object({
  grid: GridSchema,
  sanitize: z.boolean().default(true).describe('Remove the linear phase term'),
  hampelWindow: z.number().int().min(0).max(101).default(9).describe('Hampel window in frames; 0 turns the filter off'),
  hampelSigmas: z.number().positive().default(3),
  normalize: z.enum(['mean', 'max', 'none']).default('mean'),
  windowLength: z.number().int().min(1).max(4096).default(64),
  hop: z.number().int().min(1).max(4096).default(16),
  rateHz: RateHz,
  maxGapSlots: MaxGapSlots,
  environmentId: z.string().default('default'),
});

/** resample → sanitise → Hampel → normalise → window, in one fused node (the pose model's input). */
export const signalChainNode = defineNode({
  type: 'csi.signal-chain',
  title: 'CSI signal chain',
  category: 'signal',
  description: 'Resamples onto a canonical grid, sanitises phase, Hampel-filters amplitudes, normalises and windows, in one pass per frame: the input of the pose model.',
  inputs: frameIn,
  outputs: { windows: { type: DataTypes.CsiWindow, description: 'CSI windows' } },
  config: SignalChainConfig.refine((c) => c.hampelWindow === 0 || c.hampelWindow >= 3, { message: 'hampelWindow must be 0 (off) or at least 3', path: ['hampelWindow'] }),
  create(ctx) {
    const c = ctx.config;
    const chain = new SignalChain({
      grid: c.grid,
      sanitize: c.sanitize,
      hampel: c.hampelWindow === 0 ? false : { window: c.hampelWindow, nSigmas: c.hampelSigmas },
      normalize: c.normalize,
      window: { length: c.windowLength, hop: c.hop, rateHz: c.rateHz, ...(c.maxGapSlots === undefined ? {} : { maxGapSlots: c.maxGapSlots }) },
      environmentId: c.environmentId,
    });
    return {
      receive: (_port, value) => emitWindows(ctx, chain.push(value as CsiFrame)),
      stats: () => ({ ...chain.stats() }),
    };
  },
});

/** Every signal node type. */
export const signalNodes = [resampleNode, sanitizePhaseNode, hampelNode, conjugateNode, normalizeNode, windowNode, dopplerNode, signalChainNode];
