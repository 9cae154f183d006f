import type { ScenarioInput } from './schema.js';

/** Options of {@link hallScenario}. */
export interface HallScenarioOptions {
  /** Seconds to script (default: the scenario schema's). */
  durationS?: number;
  /** A third receiver, `tv-box`, on the near wall (default false). */
  tvBox?: boolean;
  /**
   * The bench the empty-room reference saw at the far wall was moved since (default false): with
   * it the hall carries clutter, real-hardware timing and AGC impairments and a drift, so a reference
   * recorded before the move is stale.
   */
  movedBench?: boolean;
}

/**
 * The installer's hall: 5 × 4 × 2.7 m, an Intel 5300 router and laptop (3 antennas each) facing
 * each other along y = 2, nobody in it. The rooms the empty-room reference tests record and check.
 */
export function hallScenario(options: HallScenarioOptions = {}): ScenarioInput {
  const radios: ScenarioInput['radios'] = [
    { id: 'router', role: 'tx', device: 'intel5300', position: [0.5, 2, 1.8], yawDeg: 0, antennas: 3 },
    { id: 'laptop', role: 'rx', device: 'intel5300', position: [4.5, 2, 1], yawDeg: 180, antennas: 3 },
  ];
  if (options.tvBox) radios.push({ id: 'tv-box', role: 'rx', device: 'intel5300', position: [2.5, 0.2, 0.8], yawDeg: 90, antennas: 3 });
  return {
    version: 1,
    name: 'hall',
    environmentId: 'hall',
    seed: 11,
    ...(options.durationS === undefined ? {} : { durationS: options.durationS }),
    room: { width: 5, depth: 4, height: 2.7 },
    channel: { centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 20, txPowerDbm: 20 },
    radios,
    ...(options.movedBench
      ? {
          impairments: { snrDb: 25, timingOffsetNs: 40, agcJitterDb: 0.5 },
          clutter: [{ label: 'bench', position: [1.5, 3.2, 0.4], rcs: 1.5 }],
          drift: { referenceSeed: 9, moved: [{ clutter: 'bench', to: [3.8, 0.6, 0.4] }] },
        }
      : { impairments: { snrDb: 25 } }),
  };
}
