import { Prng } from '../random/prng.js';
import type { DriftSpec } from '../scenario/schema.js';

/**
 * Slow temperature and humidity drift of a link's static channel: the moisture and temperature
 * of walls and furniture change their permittivity, so each reflected or scattered path's
 * complex gain wanders: gain (dB) = gainDb · n · sin(2π t / T₁ + φ₁), phase = phaseRad · n ·
 * sin(2π t / T₂ + φ₂), n the path's bounces (line of sight 0: it touches nothing), periods
 * within 0.7–1.4 × periodS. The reference samples the process at t, the recording at
 * elapsedS + t, so the two see the room in different states.
 */
export class StaticDrift {
  readonly #gainAmp: Float64Array;
  readonly #gainW: Float64Array;
  readonly #gainPhase: Float64Array;
  readonly #phaseAmp: Float64Array;
  readonly #phaseW: Float64Array;
  readonly #phasePhase: Float64Array;
  readonly #out: { re: Float64Array; im: Float64Array; version: number };
  #second = Number.NaN;

  constructor(orders: readonly number[], spec: NonNullable<DriftSpec['staticDrift']>, seed: string) {
    const prng = new Prng(seed);
    const n = orders.length;
    this.#gainAmp = new Float64Array(n);
    this.#gainW = new Float64Array(n);
    this.#gainPhase = new Float64Array(n);
    this.#phaseAmp = new Float64Array(n);
    this.#phaseW = new Float64Array(n);
    this.#phasePhase = new Float64Array(n);
    for (let p = 0; p < n; p++) {
      this.#gainAmp[p] = spec.gainDb * orders[p];
      this.#gainW[p] = (2 * Math.PI) / (spec.periodS * prng.uniform(0.7, 1.4));
      this.#gainPhase[p] = prng.uniform(0, 2 * Math.PI);
      this.#phaseAmp[p] = spec.phaseRad * orders[p];
      this.#phaseW[p] = (2 * Math.PI) / (spec.periodS * prng.uniform(0.7, 1.4));
      this.#phasePhase[p] = prng.uniform(0, 2 * Math.PI);
    }
    this.#out = { re: new Float64Array(n), im: new Float64Array(n), version: 0 };
  }

  /**
   * Each static path's complex gain at absolute drift time t (s), held for a whole second (periods
   * are tens of minutes, so within a second it moves by under 10⁻³ of its swing); `version`
   * changes when the gains do, so the channel re-sums its static paths once a second, not per
   * packet. The arrays are reused.
   */
  gainsAt(t: number): { re: Float64Array; im: Float64Array; version: number } {
    const second = Math.floor(t);
    if (second === this.#second) return this.#out;
    this.#second = second;
    this.#out.version++;
    const { re, im } = this.#out;
    for (let p = 0; p < re.length; p++) {
      const g = Math.pow(10, (this.#gainAmp[p] * Math.sin(this.#gainW[p] * second + this.#gainPhase[p])) / 20);
      const ph = this.#phaseAmp[p] * Math.sin(this.#phaseW[p] * second + this.#phasePhase[p]);
      re[p] = g * Math.cos(ph);
      im[p] = g * Math.sin(ph);
    }
    return this.#out;
  }
}
