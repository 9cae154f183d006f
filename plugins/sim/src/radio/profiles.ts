import { SimErrors } from '../errors.js';
import type { AntennaPatternSpec, ImpairmentSpec, ScenarioInput } from '../scenario/schema.js';
import type { DeviceKind } from './grids.js';

/** The radios users own, as the simulator imitates them. */
export interface HardwareProfile {
  name: string;
  description: string;
  device: DeviceKind;
  bandwidthMHz: 20 | 40 | 80;
  txAntennas: number;
  rxAntennas: number;
  /** Transmit antennas a profile allows (Intel 5300: 1–3). */
  txRange: readonly [number, number];
  pattern: AntennaPatternSpec;
  /** Impairments typical of the chip and its usual driver setup (replacing the scenario's). */
  impairments: Partial<ImpairmentSpec>;
}

const esp32: Partial<ImpairmentSpec> = {
  // One PCB antenna, 8-bit CSI; packets come from a ping loop: jitter of milliseconds, losses in bursts.
  snrDb: 22, timingOffsetNs: 25, timingOffsetMeanNs: 60, agcJitterDb: 0.8, quantisation: 'device',
  packetLoss: 0.03, lossBurstPackets: 4, timingJitterUs: 2500, rippleDb: 1.5, agcStepChance: 0.002, agcStepDb: 2,
  // RSSI is a whole dBm; its error is not measured (the real ESP32 captures carry a constant RSSI).
  rssiStepDb: 1,
};
const intel5300: Partial<ImpairmentSpec> = {
  // Injected packets at a fixed rate; the card detects packets late by ~100 ns, sends with cyclic shifts,
  // now and then reports its antennas rotated and steps its gain.
  snrDb: 25, timingOffsetNs: 40, timingOffsetMeanNs: 100, agcJitterDb: 0.5, quantisation: 'device',
  packetLoss: 0.02, lossBurstPackets: 2, timingJitterUs: 300, csd: true, spatialMapping: 'direct', rippleDb: 1,
  glitchChance: 0.002, agcStepChance: 0.001, agcStepDb: 1.5,
  // RSSI in whole dB with 0.22 dB of error before rounding: measured on the real still-person captures
  // (`node plugins/sim/scripts/rssi-still.mjs`, docs/simulator.md "Hardware profiles").
  rssiNoiseDb: 0.22, rssiStepDb: 1,
};
/**
 * The Intel 5300 at 40 MHz also gives each receive chain, packet by packet, a phase that is a
 * random multiple of 90° and a gain of its own. Measured on 7 real HT40 takes (2×3, about 20
 * packets/s; `node plugins/sim/scripts/ht40-chains.mjs`, docs/simulator.md "Hardware profiles"):
 * relative to chain 0, 84–100 % of packets within 20° of a multiple of 90° in 6 takes (61 % in the
 * seventh), the quarter changing
 * between consecutive packets 70–75 % of the time (75 % for a fresh uniform draw), and a per-packet
 * per-chain gain spread of 0.22–1.62 dB; the stillest take (0.22 dB) bounds what the chip
 * itself adds.
 */
const intel5300Ht40: Partial<ImpairmentSpec> = { ...intel5300, chainPhaseStepDeg: 90, chainGainJitterDb: 0.22 };
const nexmon: Partial<ImpairmentSpec> = {
  // bcm43xx cores via Nexmon: per-packet auto-scaled values, strong band-edge roll-off at 80 MHz, monitor-mode loss.
  snrDb: 25, timingOffsetNs: 30, timingOffsetMeanNs: 50, agcJitterDb: 0.5, quantisation: 'device',
  packetLoss: 0.05, lossBurstPackets: 3, timingJitterUs: 1500, rippleDb: 2, agcStepChance: 0.001, agcStepDb: 2,
  // RSSI is a whole dBm; its error is not measured (no Nexmon capture).
  rssiStepDb: 1,
};

/** Every profile by name (`wiflow simulate --profile NAME`). */
export const HARDWARE_PROFILES: Readonly<Record<string, HardwareProfile>> = {
  'esp32-ht20': { name: 'esp32-ht20', description: 'ESP32, 1×1, HT20 (56 HT-LTF tones)', device: 'esp32', bandwidthMHz: 20, txAntennas: 1, rxAntennas: 1, txRange: [1, 1], pattern: { kind: 'dipole' }, impairments: esp32 },
  'esp32-ht40': { name: 'esp32-ht40', description: 'ESP32, 1×1, HT40 (114 HT-LTF tones)', device: 'esp32', bandwidthMHz: 40, txAntennas: 1, rxAntennas: 1, txRange: [1, 1], pattern: { kind: 'dipole' }, impairments: esp32 },
  'intel5300-ht20': { name: 'intel5300-ht20', description: 'Intel 5300, 1–3 tx × 3 rx, HT20, 30 grouped subcarriers', device: 'intel5300', bandwidthMHz: 20, txAntennas: 3, rxAntennas: 3, txRange: [1, 3], pattern: { kind: 'dipole' }, impairments: intel5300 },
  'intel5300-ht40': { name: 'intel5300-ht40', description: 'Intel 5300, 1–3 tx × 3 rx, HT40, 30 grouped subcarriers, per-chain phase jumps of 90°', device: 'intel5300', bandwidthMHz: 40, txAntennas: 3, rxAntennas: 3, txRange: [1, 3], pattern: { kind: 'dipole' }, impairments: intel5300Ht40 },
  'nexmon-80': { name: 'nexmon-80', description: 'Nexmon (bcm4366c0), 1 tx × 4 cores, 80 MHz, 242 tones', device: 'nexmon', bandwidthMHz: 80, txAntennas: 1, rxAntennas: 4, txRange: [1, 1], pattern: { kind: 'dipole' }, impairments: nexmon },
};

/** Profile names, for help texts and errors. */
export const HARDWARE_PROFILE_NAMES: readonly string[] = Object.keys(HARDWARE_PROFILES);

/**
 * A scenario with every radio replaced by a hardware profile: the receivers' chip, grid and
 * antennas, the transmitters' antennas (`txAntennas` within the profile's range), the channel
 * width, antenna patterns and the chip's impairments (per-receiver overrides dropped).
 */
export function applyProfile(input: ScenarioInput, name: string, options: { txAntennas?: number } = {}): ScenarioInput {
  const profile = HARDWARE_PROFILES[name];
  if (!profile) throw SimErrors.scenarioInvalid('', `unknown hardware profile ${JSON.stringify(name)} (known: ${HARDWARE_PROFILE_NAMES.join(', ')})`);
  const ntx = options.txAntennas ?? profile.txAntennas;
  if (!Number.isInteger(ntx) || ntx < profile.txRange[0] || ntx > profile.txRange[1]) {
    throw SimErrors.scenarioInvalid('', `profile ${name} takes ${profile.txRange[0]}–${profile.txRange[1]} transmit antennas, not ${ntx}`);
  }
  const channel = { centerFrequencyHz: 5.32e9, rateHz: 100, txPowerDbm: 20, ...(input.channel ?? {}), bandwidthMHz: profile.bandwidthMHz };
  if (profile.bandwidthMHz === 80 && channel.centerFrequencyHz < 5e9) channel.centerFrequencyHz = 5.21e9;
  return {
    ...input,
    channel,
    radios: (input.radios ?? []).map((r) => {
      const { impairments: _ignored, ...radio } = r;
      return r.role === 'rx'
        ? { ...radio, device: profile.device, antennas: profile.rxAntennas, pattern: profile.pattern, ...(profile.device === 'esp32' ? { esp32Field: 'htltf' as const } : {}) }
        : { ...radio, device: profile.device, antennas: ntx, pattern: profile.pattern };
    }),
    impairments: { ...(input.impairments ?? {}), ...profile.impairments },
  };
}
