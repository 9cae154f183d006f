import { Prng } from '../random/prng.js';
import type { ScenarioInput } from './schema.js';

/** How real the randomiser's rooms are: 'none' (the rooms as before issue 20) or 'v2' (distractors, drift, radios as they are). */
export type RealismLevel = 'none' | 'v2';

/** Realism levels, for options and errors. */
export const REALISM_LEVELS: readonly RealismLevel[] = ['none', 'v2'];

/** The groups of effects level 'v2' draws; any subset can be kept (ablations). */
export type RealismEffect = 'distractors' | 'drift' | 'radios';

/** Every effect group. */
export const REALISM_EFFECTS: readonly RealismEffect[] = ['distractors', 'drift', 'radios'];

const round = (v: number, step = 0.01) => Math.round(v / step) * step;

/**
 * Realism level 'v2' for a drawn scenario: every effect of issue 20 drawn per session from its
 * own generator (so the room, people and hardware draws of level 'none' stay exactly as they
 * were). Radios: dipole or patch patterns, a late-detection timing offset, cyclic shifts,
 * baseband ripple, AGC steps, glitches and bursty loss. Distractors: a fan (35 %), a door
 * (60 %: left in another state than at installation 30 %, swinging during the session 30 %),
 * curtains (40 %; cloth reflects weakly, |Γ|² of a few per cent: 0.02–0.2 m²), a plant (30 %), a pet (25 %), someone next door (30 %). Drift: the reference
 * always has its own draws and AGC state; furniture moved (30 %), a receiver re-plugged (15 %),
 * temperature/humidity drift over 10 min to a day. `effects` keeps a subset of the three groups.
 */
export function drawRealism(prng: Prng, input: ScenarioInput, durationS: number, effects: readonly RealismEffect[] = REALISM_EFFECTS): ScenarioInput {
  const room = input.room;
  const width = room.width;
  const depth = room.depth;
  const height = room.height ?? 2.7;
  const spot = (margin = 0.4): [number, number] => [round(prng.uniform(margin, width - margin)), round(prng.uniform(margin, depth - margin))];
  const wallPoint = (): { at: [number, number]; wall: 'west' | 'east' | 'south' | 'north'; inward: number } => {
    const w = prng.pick(['west', 'east', 'south', 'north'] as const);
    const a = prng.uniform(0.2, 0.8);
    switch (w) {
      case 'west': return { at: [0, round(a * depth)], wall: w, inward: 0 };
      case 'east': return { at: [width, round(a * depth)], wall: w, inward: 180 };
      case 'south': return { at: [round(a * width), 0], wall: w, inward: 90 };
      default: return { at: [round(a * width), depth], wall: w, inward: -90 };
    }
  };
  const base = input.impairments ?? {};
  const ntx = input.radios.find((r) => r.role === 'tx')?.antennas ?? 3;
  const impairments = {
    ...base,
    timingOffsetMeanNs: round(prng.uniform(20, 150), 0.1),
    csd: ntx > 1,
    rippleDb: round(prng.uniform(0.5, 2), 0.01),
    glitchChance: round(prng.uniform(0, 0.003), 0.0001),
    agcStepChance: round(prng.uniform(0, 0.002), 0.0001),
    agcStepDb: round(prng.uniform(1, 3), 0.1),
    lossBurstPackets: round(prng.uniform(1, 4), 0.1),
  };
  const pattern = prng.chance(0.7) ? { kind: 'dipole' as const } : { kind: 'patch' as const, beamwidthDeg: round(prng.uniform(70, 140), 1), frontToBackDb: round(prng.uniform(6, 20), 0.1) };
  const radios = input.radios.map((r) => ({ ...r, pattern }));
  const distractors: NonNullable<ScenarioInput['distractors']> = [];
  if (prng.chance(0.35)) {
    const ceiling = prng.chance(0.7);
    const [x, y] = spot(0.8);
    distractors.push(ceiling
      ? { kind: 'fan', mount: 'ceiling', position: [x, y, round(Math.max(0.3, height - prng.uniform(0.25, 0.5)))], blades: prng.int(3, 5), bladeLengthM: round(prng.uniform(0.4, 0.65)), rpm: round(prng.uniform(60, 200), 1), bladeRcs: round(prng.uniform(0.01, 0.05), 0.001), onInReference: prng.chance(0.5) }
      : { kind: 'fan', mount: 'standing', position: [x, y, round(Math.min(height - 0.2, prng.uniform(0.8, 1.3)))], yawDeg: round(prng.uniform(-180, 180), 1), blades: prng.int(3, 5), bladeLengthM: round(prng.uniform(0.15, 0.25)), rpm: round(prng.uniform(300, 900), 1), bladeRcs: round(prng.uniform(0.005, 0.02), 0.001), onInReference: prng.chance(0.5) });
  }
  if (prng.chance(0.6)) {
    const { at, inward } = wallPoint();
    const openDeg = round(prng.uniform(0, 100), 1);
    const leftOtherwise = prng.chance(0.3);
    const swings = prng.chance(0.3) ? [{ at: round(prng.uniform(0, durationS * 0.8), 0.1), toDeg: round(prng.uniform(0, 100), 1), durationS: round(prng.uniform(0.8, 3), 0.1) }] : [];
    distractors.push({ kind: 'door', hinge: at, closedYawDeg: inward + 90, widthM: round(prng.uniform(0.75, 0.95)), openDeg, referenceOpenDeg: leftOtherwise ? round(prng.uniform(0, 100), 1) : openDeg, material: prng.pick(['wood', 'wood', 'glass', 'metal'] as const), swings });
  }
  if (prng.chance(0.4)) {
    const { at } = wallPoint();
    const x = Math.min(width - 0.1, Math.max(0.1, at[0]));
    const y = Math.min(depth - 0.1, Math.max(0.1, at[1]));
    distractors.push({ kind: 'curtain', position: [round(x), round(y), round(Math.min(height - 0.3, prng.uniform(1.2, 1.8)))], rcs: round(prng.uniform(0.02, 0.2), 0.01), swayM: round(prng.uniform(0.005, 0.04), 0.001), periodS: round(prng.uniform(2, 8), 0.1) });
  }
  if (prng.chance(0.3)) {
    const [x, y] = spot(0.3);
    distractors.push({ kind: 'plant', position: [x, y, round(Math.min(height - 0.2, prng.uniform(0.4, 1.4)))], rcs: round(prng.uniform(0.02, 0.1), 0.01), swayM: round(prng.uniform(0.002, 0.02), 0.001), periodS: round(prng.uniform(1.5, 6), 0.1) });
  }
  if (prng.chance(0.25)) {
    distractors.push({ kind: 'pet', species: prng.chance(0.5) ? 'cat' : 'dog', path: Array.from({ length: prng.int(2, 3) }, () => spot(0.3)), speed: round(prng.uniform(0.3, 1), 0.01), restS: round(prng.uniform(2, 30), 0.1), breathingRateBpm: round(prng.uniform(20, 40), 0.1) });
  }
  if (prng.chance(0.3)) {
    const wall = prng.pick(['west', 'east', 'south', 'north'] as const);
    const length = wall === 'west' || wall === 'east' ? depth : width;
    distractors.push({ kind: 'neighbour', wall, distanceM: round(prng.uniform(0.5, 3)), from: round(prng.uniform(0.1, length / 2)), to: round(prng.uniform(length / 2, length - 0.1)), speed: round(prng.uniform(0.5, 1.4)), wallLossDb: round(prng.uniform(6, 20), 0.1), rcs: round(prng.uniform(0.5, 1.5), 0.01) });
  }
  const clutter = input.clutter ?? [];
  const moved = clutter.length && prng.chance(0.3)
    ? (() => {
        const i = prng.int(0, clutter.length - 1);
        const [x, y, z] = clutter[i].position;
        const angle = prng.uniform(0, 2 * Math.PI);
        const d = prng.uniform(0.3, 1.5);
        const clamp = (v: number, hi: number) => round(Math.min(hi - 0.2, Math.max(0.2, v)));
        return [{ clutter: i, to: [clamp(x + d * Math.cos(angle), width), clamp(y + d * Math.sin(angle), depth), z] as [number, number, number] }];
      })()
    : [];
  const replugged = input.radios.filter((r) => r.role === 'rx' && prng.chance(0.15)).map((r) => r.id);
  const drift: NonNullable<ScenarioInput['drift']> = {
    referenceSeed: prng.nextUint32() & 0x7fffffff,
    reference: { timingOffsetMeanNs: round(impairments.timingOffsetMeanNs + prng.uniform(-30, 30), 0.1), agcOffsetDb: round(prng.uniform(-3, 3), 0.01) },
    moved,
    replugged,
    staticDrift: { gainDb: round(prng.uniform(0.1, 0.5), 0.01), phaseRad: round(prng.uniform(0.05, 0.3), 0.01), periodS: round(prng.uniform(1800, 7200), 1), elapsedS: round(prng.uniform(600, 86400), 1) },
  };
  // Everything is drawn whatever is kept, so a subset keeps the other groups' draws (ablations compare like with like).
  return {
    ...input,
    ...(effects.includes('radios') ? { radios, impairments } : {}),
    ...(effects.includes('distractors') ? { distractors } : {}),
    ...(effects.includes('drift') ? { drift } : {}),
  };
}
