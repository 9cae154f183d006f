import { SimErrors } from '../errors.js';
import { validateScenario } from '../scenario/load.js';
import type { Scenario, ScenarioInput } from '../scenario/schema.js';
import { applyProfile } from './profiles.js';

/*
 * What an installer buys and how they place it, as `wiflow eval-e2e --profile`, `plan-hardware`
 * and `wiflow locate fit|eval --profile` apply it to a room: one definition, here beside the chip
 * profiles it names, so the evaluation and the locator's fit read the same radios.
 */

/** What a user buys: a simulator hardware profile and its transmit antennas, or the rooms as drawn. */
export interface HardwareChoice {
  description: string;
  /** @wiflow/plugin-sim profile; absent: the radios as the scenario draws them. */
  simProfile?: string;
  txAntennas?: number;
}

/**
 * The hardware of `wiflow eval-e2e --profile NAME`. `recipe` is the test rooms as the
 * training recipe draws them (Intel 5300, three transmit × three receive antennas per link
 * (`DEFAULT_RANDOM_RANGES.txAntennas`), HT20, 30 grouped subcarriers, one transmitter and three
 * receivers): what the estimator's card reports. The others replace every radio by a chip profile of the simulator.
 */
export const HARDWARE_CHOICES: Readonly<Record<string, HardwareChoice>> = {
  recipe: { description: 'rooms as drawn: Intel 5300 3×3 HT20 (3 transmit × 3 receive antennas a link), 30 subcarriers, recipe impairments' },
  'esp32-ht20': { description: 'ESP32 1×1 HT20 (56 tones)', simProfile: 'esp32-ht20' },
  'esp32-ht40': { description: 'ESP32 1×1 HT40 (114 tones)', simProfile: 'esp32-ht40' },
  'intel5300-1x3-ht20': { description: 'Intel 5300 1×3 HT20 (30 grouped)', simProfile: 'intel5300-ht20', txAntennas: 1 },
  'intel5300-1x3-ht40': { description: 'Intel 5300 1×3 HT40 (30 grouped)', simProfile: 'intel5300-ht40', txAntennas: 1 },
  'intel5300-3x3-ht20': { description: 'Intel 5300 3×3 HT20 (30 grouped)', simProfile: 'intel5300-ht20', txAntennas: 3 },
  'intel5300-3x3-ht40': { description: 'Intel 5300 3×3 HT40 (30 grouped)', simProfile: 'intel5300-ht40', txAntennas: 3 },
  'nexmon-1x4-80': { description: 'Nexmon 1×4 at 80 MHz (242 tones)', simProfile: 'nexmon-80' },
};

/** Placements a profile name may add with a suffix: `+4rx` a fourth receiver, `+2tx` a second transmitter. */
export const PLACEMENTS = {
  '': 'one transmitter, the scenario\'s receivers (3 links in the test rooms)',
  '+4rx': 'one more receiver on the free wall (4 links)',
  '+2tx': 'a second transmitter on the free wall (6 links)',
} as const;

/** A parsed `--profile` value. */
export interface EvaluationProfile {
  name: string;
  hardware: HardwareChoice;
  placement: keyof typeof PLACEMENTS;
  /**
   * `~clean`: the chip's grid, antennas and bandwidth with the rooms' own impairments instead of
   * the chip's (AGC steps, ripple, glitches, late detection): what the aperture gives, apart from
   * how the estimator copes with the chip's non-idealities.
   */
  clean: boolean;
}

/** Parse `NAME[+4rx|+2tx][~clean]`; unknown names give WIFLOW_SIM_PROFILE_UNKNOWN with the known ones. */
export function parseProfile(name: string): EvaluationProfile {
  const match = /^([a-z0-9-]+)(\+4rx|\+2tx)?(~clean)?$/.exec(name);
  const hardware = match ? HARDWARE_CHOICES[match[1]] : undefined;
  if (!match || !hardware) throw SimErrors.profileUnknown(name, Object.keys(HARDWARE_CHOICES).join(', '));
  return { name, hardware, placement: (match[2] ?? '') as EvaluationProfile['placement'], clean: match[3] !== undefined };
}

type Point3 = [number, number, number];

/**
 * One more radio of `role` at the middle of the wall farthest from every radio already
 * there, 0.2 m inside, facing the room: where an installer with one more device would put it.
 */
function addRadio(scenario: Scenario, role: 'tx' | 'rx'): ScenarioInput {
  const { width, depth } = scenario.room;
  const height = role === 'tx' ? Math.min(2.0, scenario.room.height - 0.2) : 1.2;
  const candidates: { position: Point3; yawDeg: number }[] = [
    { position: [0.2, depth / 2, height], yawDeg: 0 },
    { position: [width - 0.2, depth / 2, height], yawDeg: 180 },
    { position: [width / 2, 0.2, height], yawDeg: 90 },
    { position: [width / 2, depth - 0.2, height], yawDeg: -90 },
  ];
  const clearance = (p: Point3) => Math.min(...scenario.radios.map((r) => Math.hypot(r.position[0] - p[0], r.position[1] - p[1])));
  const best = candidates.reduce((a, b) => (clearance(b.position) > clearance(a.position) ? b : a));
  const model = scenario.radios.find((r) => r.role === role) ?? scenario.radios[0];
  const id = `added-${role}`;
  const radio = { ...model, id, role, position: best.position, yawDeg: best.yawDeg };
  const others = scenario.radios.filter((r) => r.role !== role).map((r) => r.id);
  const links = scenario.links ? [...scenario.links, ...others.map((o) => (role === 'tx' ? { tx: id, rx: o } : { tx: o, rx: id }))] : undefined;
  return { ...scenario, radios: [...scenario.radios, radio], ...(links ? { links } : {}) } as ScenarioInput;
}

/** A scenario with the profile's placement and hardware applied (validated by the simulator). */
export function applyEvaluationProfile(scenario: ScenarioInput, profile: EvaluationProfile): Scenario {
  let out = validateScenario(scenario, profile.name);
  if (profile.placement === '+4rx') out = validateScenario(addRadio(out, 'rx'), profile.name);
  if (profile.placement === '+2tx') out = validateScenario(addRadio(out, 'tx'), profile.name);
  if (profile.hardware.simProfile) {
    const chip = applyProfile(out, profile.hardware.simProfile, { txAntennas: profile.hardware.txAntennas });
    out = validateScenario(profile.clean ? { ...chip, impairments: out.impairments } : chip, profile.name);
  }
  return out;
}
