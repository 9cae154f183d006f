import { Prng } from '../random/prng.js';

/** Offsets postural sway adds to a still posture: pelvis (m) and trunk lean (rad). */
export interface SwayOffsets {
  x: number;
  y: number;
  trunkFlex: number;
}

/**
 * RMS of quiet standing sway: pelvis 4.2 mm front-back and 3.5 mm sideways, trunk 7 mrad: what the old
 * 6 / 5 mm, 10 mrad sines gave, so only the spectrum changes (a few millimetres, as body sway in quiet stance).
 */
export const STANDING_SWAY: SwayOffsets = { x: 0.0042, y: 0.0035, trunkFlex: 0.007 };
/** RMS of seated trunk sway: 10.6 mrad (about 5 mm at the shoulders; the old 15 mrad sine's RMS). */
export const SITTING_SWAY: SwayOffsets = { x: 0, y: 0, trunkFlex: 0.0106 };

/**
 * The band the sway's power spreads over (Hz). The body's centre of gravity sways in 0–0.5 Hz, the faster
 * stabilising corrections lie above (Błaszczyk 2008, as summarised in J Hum Kinet, "Posturographic standards
 * for optimal control of human standing posture"); centre-of-pressure spectra are broadband, no single line
 * (Vieira et al. 2009, Braz J Med Biol Res 42:665; Singh et al. 2012, J Electromyogr Kinesiol 22:131).
 */
export const SWAY_BAND_HZ: readonly [number, number] = [0.02, 0.7];
/** Corner of the sway's low-pass spectrum, S(f) ∝ 1 / (1 + (f / corner)²): 93 % of the power below 0.5 Hz. */
export const SWAY_CORNER_HZ = 0.15;
/** Components per axis: enough that none holds more than a few per cent of the power. */
const COMPONENTS = 48;

interface Component {
  frequency: number;
  phase: number;
  amplitude: number;
}

/**
 * Broadband postural sway: per axis a sum of many sines with frequencies spread log-uniformly (each jittered
 * inside its bin) over `SWAY_BAND_HZ`, random phases and amplitudes following a low-pass spectrum, scaled to
 * unit RMS. No single component holds much of the power, so no spectral line stands out (the old pure
 * 0.13 Hz seated sine read as a 7.8 bpm breathing line). Deterministic for a seed, any t in any order.
 */
export class PosturalSway {
  readonly #axes: Component[][];

  constructor(seed: string) {
    const prng = new Prng(seed);
    const [lo, hi] = SWAY_BAND_HZ;
    const step = Math.log(hi / lo) / COMPONENTS;
    this.#axes = [0, 1, 2].map(() => {
      const parts: Component[] = [];
      for (let k = 0; k < COMPONENTS; k++) {
        const f0 = lo * Math.exp(step * k);
        const frequency = f0 * Math.exp(step * prng.next());
        const width = f0 * (Math.exp(step) - 1);
        const density = 1 / (1 + (frequency / SWAY_CORNER_HZ) ** 2);
        parts.push({ frequency, phase: prng.uniform(0, 2 * Math.PI), amplitude: Math.sqrt(2 * density * width) });
      }
      const rms = Math.sqrt(parts.reduce((s, p) => s + (p.amplitude * p.amplitude) / 2, 0));
      for (const p of parts) p.amplitude /= rms;
      return parts;
    });
  }

  /** The sway at time t scaled by `scale` (each axis has unit RMS before scaling). */
  at(t: number, scale: SwayOffsets): SwayOffsets {
    const axis = (i: number) => {
      let v = 0;
      for (const p of this.#axes[i]) v += p.amplitude * Math.sin(2 * Math.PI * p.frequency * t + p.phase);
      return v;
    };
    return { x: scale.x ? scale.x * axis(0) : 0, y: scale.y ? scale.y * axis(1) : 0, trunkFlex: scale.trunkFlex ? scale.trunkFlex * axis(2) : 0 };
  }
}
