import type { Prng } from '../random/prng.js';
import type { DeviceKind } from './grids.js';

/** Hardware impairments of a receiver (all optional; `impairmentsOff` disables them). */
export interface ImpairmentSettings {
  /** Signal-to-noise ratio of the CSI estimate, dB (complex Gaussian noise). */
  snrDb: number;
  /** Standard deviation of the per-packet timing offset (symbol timing / detection delay), ns. */
  timingOffsetNs: number;
  /** Draw a uniform per-packet phase shared by the receiver's chains (carrier phase / CFO residue). */
  randomPhase: boolean;
  /** Give every receive and transmit chain a fixed random phase (PLL / cable offsets). */
  chainPhase: boolean;
  /** Standard deviation of the per-packet automatic gain control error, dB. */
  agcJitterDb: number;
  /** Quantise as the chip does ('device') or keep floating point ('none'). */
  quantisation: 'device' | 'none';
  /** Probability that a packet is lost. */
  packetLoss: number;
  /** Standard deviation of the packet arrival time around the nominal rate, µs. */
  timingJitterUs: number;
  /** Mean of the per-packet timing offset, ns (real chips detect packets late by a roughly constant delay; default 0). */
  timingOffsetMeanNs?: number;
  /** Realism options of the radio (cyclic shifts, mapping, ripple, AGC steps, glitches, loss bursts): see `RadioRealism`. */
  csd?: boolean;
  spatialMapping?: 'direct' | 'hadamard' | 'fourier';
  rippleDb?: number;
  glitchChance?: number;
  agcStepChance?: number;
  agcStepDb?: number;
  agcOffsetDb?: number;
  lossBurstPackets?: number;
  /**
   * Per packet, each receive chain's phase takes a fresh random multiple of this angle (degrees;
   * absent or 0: none). The Intel 5300 at 40 MHz does this with 90° (docs/simulator.md).
   */
  chainPhaseStepDeg?: number;
  /** Per packet, each receive chain's gain takes its own error of this standard deviation, dB (beside the packet's `agcJitterDb`). */
  chainGainJitterDb?: number;
  /**
   * Per packet, each receive chain's reported RSSI gets its own Gaussian error of this standard deviation, dB
   * (absent: none). Drawn from a stream of its own, so the CSI keeps its bytes.
   */
  rssiNoiseDb?: number;
  /** The reported RSSI is rounded to multiples of this step, dB (real cards report whole dB; absent: 0.01). */
  rssiStepDb?: number;
}

/** Typical commodity-hardware impairments. */
export const DEFAULT_IMPAIRMENTS: ImpairmentSettings = {
  snrDb: 25,
  timingOffsetNs: 40,
  randomPhase: true,
  chainPhase: true,
  agcJitterDb: 0.5,
  quantisation: 'device',
  packetLoss: 0.01,
  timingJitterUs: 200,
};

/** No impairments at all: the clean channel, exactly. */
export const IMPAIRMENTS_OFF: ImpairmentSettings = {
  snrDb: Infinity,
  timingOffsetNs: 0,
  randomPhase: false,
  chainPhase: false,
  agcJitterDb: 0,
  quantisation: 'none',
  packetLoss: 0,
  timingJitterUs: 0,
};

/** How a chip reports CSI values. */
interface QuantiserSpec {
  /** Largest magnitude of a real or imaginary part. */
  limit: number;
  /** RMS magnitude the receiver's AGC aims for, in reported units (null: per-packet auto-scaling to `limit`). */
  targetRms: number | null;
}

/**
 * Value formats: Intel 5300 and ESP32 report signed 8-bit parts, Atheros 10-bit two's
 * complement, Nexmon (bcm4358/4366) a per-packet auto-scaled mantissa/exponent pair that
 * decodes to integers up to ±2^10 (so the AGC level cancels). The target levels match the
 * magnitudes seen in real captures (Intel 5300 ≈ 10–35, Atheros ≈ 100–300).
 */
const QUANTISERS: Record<Exclude<DeviceKind, 'ideal'>, QuantiserSpec> = {
  intel5300: { limit: 127, targetRms: 20 },
  esp32: { limit: 127, targetRms: 20 },
  atheros: { limit: 511, targetRms: 200 },
  nexmon: { limit: 1023, targetRms: null },
};

/** Fixed per-chain phases of one radio, drawn once. */
export function drawChainPhases(prng: Prng, count: number, enabled: boolean): Float64Array {
  const out = new Float64Array(count);
  if (enabled) for (let i = 0; i < count; i++) out[i] = prng.uniform(-Math.PI, Math.PI);
  return out;
}

/** Per-packet draws shared by all chains of the receiver for one packet. */
export interface PacketImpairment {
  /** Timing offset δ (s). */
  timingOffsetS: number;
  /** Common phase β (rad). */
  phase: number;
  /** Linear AGC gain error. */
  gain: number;
  /** Per receive chain: this packet's own phase (rad) and linear gain, when the chip has them (`chainPhaseStepDeg`, `chainGainJitterDb`). */
  rxChain?: { phase: Float64Array; gain: Float64Array };
}

/** Draw the per-packet impairments (`nrx`: receive chains, for the per-chain draws). */
export function drawPacketImpairment(prng: Prng, s: ImpairmentSettings, nrx = 0): PacketImpairment {
  const packet: PacketImpairment = {
    timingOffsetS: s.timingOffsetNs > 0 ? prng.normal((s.timingOffsetMeanNs ?? 0) * 1e-9, s.timingOffsetNs * 1e-9) : (s.timingOffsetMeanNs ?? 0) * 1e-9,
    phase: s.randomPhase ? prng.uniform(-Math.PI, Math.PI) : 0,
    gain: s.agcJitterDb > 0 ? Math.pow(10, prng.normal(0, s.agcJitterDb) / 20) : 1,
  };
  // Drawn after the shared values and only when set, so other chips' random streams stay as they were.
  const step = (s.chainPhaseStepDeg ?? 0) * (Math.PI / 180);
  const gainDb = s.chainGainJitterDb ?? 0;
  if (nrx > 0 && (step > 0 || gainDb > 0)) {
    const phase = new Float64Array(nrx);
    const gain = new Float64Array(nrx).fill(1);
    const steps = step > 0 ? Math.max(1, Math.round((2 * Math.PI) / step)) : 1;
    for (let r = 0; r < nrx; r++) {
      if (step > 0) phase[r] = step * Math.min(steps - 1, Math.floor(prng.uniform(0, steps)));
      if (gainDb > 0) gain[r] = Math.pow(10, prng.normal(0, gainDb) / 20);
    }
    packet.rxChain = { phase, gain };
  }
  return packet;
}

/**
 * Apply the receiver's impairments to a clean channel in place (re/im over [tx][rx][sc]):
 *   Ĥ = g · exp(−j (2π m_k Δf δ + β + ψ_rx + ψ_tx)) · H + n
 * then AGC scaling and quantisation as the device does. Returns the mean clean power per
 * entry (before AGC), for RSSI.
 */
export function applyImpairments(
  re: Float64Array,
  im: Float64Array,
  ntx: number,
  nrx: number,
  indices: Int16Array,
  subcarrierSpacingHz: number,
  packet: PacketImpairment,
  rxChainPhase: Float64Array,
  txChainPhase: Float64Array,
  settings: ImpairmentSettings,
  device: DeviceKind,
  prng: Prng,
): number {
  const nsc = indices.length;
  const total = ntx * nrx * nsc;
  let power = 0;
  for (let i = 0; i < total; i++) power += re[i] * re[i] + im[i] * im[i];
  power /= total;
  // e^{−j 2π m_k Δf δ} once per subcarrier, then one common rotation per chain pair.
  const slope = 2 * Math.PI * subcarrierSpacingHz * packet.timingOffsetS;
  const rotRe = scratch(nsc, 0);
  const rotIm = scratch(nsc, 1);
  for (let k = 0; k < nsc; k++) {
    rotRe[k] = Math.cos(-slope * indices[k]);
    rotIm[k] = Math.sin(-slope * indices[k]);
  }
  for (let t = 0; t < ntx; t++) {
    for (let r = 0; r < nrx; r++) {
      const base = (t * nrx + r) * nsc;
      const common = -(packet.phase + rxChainPhase[r] + txChainPhase[t] + (packet.rxChain?.phase[r] ?? 0));
      const g = packet.gain * (packet.rxChain?.gain[r] ?? 1);
      const cr = g * Math.cos(common);
      const ci = g * Math.sin(common);
      for (let k = 0; k < nsc; k++) {
        const c = rotRe[k] * cr - rotIm[k] * ci;
        const s = rotRe[k] * ci + rotIm[k] * cr;
        const i = base + k;
        const a = re[i];
        const b = im[i];
        re[i] = a * c - b * s;
        im[i] = a * s + b * c;
      }
    }
  }
  if (Number.isFinite(settings.snrDb) && power > 0) {
    const sigma = Math.sqrt((power * packet.gain * packet.gain) / Math.pow(10, settings.snrDb / 10) / 2);
    for (let i = 0; i < total; i++) {
      re[i] += prng.normal(0, sigma);
      im[i] += prng.normal(0, sigma);
    }
  }
  if (settings.quantisation === 'device' && device !== 'ideal') quantise(re, im, QUANTISERS[device], power);
  return power;
}

function quantise(re: Float64Array, im: Float64Array, spec: QuantiserSpec, cleanPower: number): void {
  const total = re.length;
  let scale: number;
  if (spec.targetRms === null) {
    let max = 0;
    for (let i = 0; i < total; i++) max = Math.max(max, Math.abs(re[i]), Math.abs(im[i]));
    scale = max > 0 ? spec.limit / max : 0;
  } else {
    // The AGC sets the gain from the expected power; the packet's gain error is already in the values.
    scale = cleanPower > 0 ? spec.targetRms / Math.sqrt(cleanPower) : 0;
  }
  const lim = spec.limit;
  const low = -lim - 1;
  for (let i = 0; i < total; i++) {
    re[i] = Math.min(lim, Math.max(low, Math.round(re[i] * scale)));
    im[i] = Math.min(lim, Math.max(low, Math.round(im[i] * scale)));
  }
}

const scratchBuffers: Float64Array[] = [new Float64Array(0), new Float64Array(0)];

/** Reusable per-subcarrier buffers (the simulator is single-threaded). */
function scratch(n: number, which: 0 | 1): Float64Array {
  if (scratchBuffers[which].length < n) scratchBuffers[which] = new Float64Array(n);
  return scratchBuffers[which];
}
