import { Prng } from '../random/prng.js';
import { applyProfile } from '../radio/profiles.js';
import type { ScenarioInput } from './schema.js';

type Distractors = NonNullable<ScenarioInput['distractors']>;
type Step = NonNullable<NonNullable<ScenarioInput['people']>[number]['script']>[number];

/** Common options of the sensing scenarios. */
export interface SensingScenarioOptions {
  /** Seconds to script (default 60). */
  durationS?: number;
  /** A hardware profile for the radios (default: Intel 5300 HT20, 1 × 3, at `rateHz`). */
  profile?: string;
  /** Packets per second (default 100). */
  rateHz?: number;
  distractors?: Distractors;
  seed?: number;
}

/**
 * The room the sensing scenarios share: 6 × 5 × 2.7 m, plasterboard walls, a concrete floor,
 * two pieces of furniture, one link along y = 2.5 from x = 1 to x = 5 at 1 m height (4 m).
 */
function sensingRoom(name: string, options: SensingScenarioOptions): ScenarioInput {
  const base: ScenarioInput = {
    name,
    environmentId: name,
    seed: options.seed ?? 1,
    durationS: options.durationS ?? 60,
    room: { width: 6, depth: 5, height: 2.7, materials: { walls: 'plasterboard', floor: 'concrete', ceiling: 'plasterboard' } },
    clutter: [{ label: 'sofa', position: [1.2, 4.4, 0.4], rcs: 1.5 }, { label: 'table', position: [4.6, 0.8, 0.7], rcs: 1 }],
    channel: { centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: options.rateHz ?? 100, txPowerDbm: 20 },
    radios: [
      { id: 'tx', role: 'tx', device: 'intel5300', position: [1, 2.5, 1], yawDeg: 0, antennas: 1 },
      { id: 'rx', role: 'rx', device: 'intel5300', position: [5, 2.5, 1], yawDeg: 180, antennas: 3 },
    ],
    ...(options.distractors ? { distractors: options.distractors } : {}),
    people: [],
  };
  return options.profile ? applyProfile(base, options.profile) : base;
}

/**
 * One still person breathing at a known rate, `distanceM` from the link's line (beside its
 * middle), sitting (reading), lying (asleep on a bed) or standing, still from 3 s on; small
 * fidgets now and then when `fidgetEveryS` is given. The truth labels the posture; the scenario's
 * `people[0].breathingRateBpm` is the long-run mean rate (breaths vary one to the next; the rate over a window
 * is `Simulator.breathingRateBetween`).
 */
export function stillPersonScenario(options: SensingScenarioOptions & { breathingRateBpm?: number; breathingDepthM?: number; distanceM?: number; posture?: 'sit' | 'lie' | 'stand'; fidgetEveryS?: number } = {}): ScenarioInput {
  const s = sensingRoom('still-person', options);
  const duration = (options.durationS ?? 60) + 10;
  const posture = options.posture ?? 'sit';
  const y = 2.5 + (options.distanceM ?? 1.5);
  const fidget = options.fidgetEveryS ? { fidgetEveryS: options.fidgetEveryS } : {};
  const step: Step = posture === 'lie' ? { action: 'lie', duration, surfaceHeight: 0.5, side: 'back', ...fidget } : posture === 'stand' ? { action: 'stand', duration, ...fidget } : { action: 'sit', duration, ...fidget };
  // The person stands at t = 0 and settles into the posture (sitting 1.6 s, lying 3 s): still from 3 s on.
  return { ...s, people: [{ id: 1, breathingRateBpm: options.breathingRateBpm ?? 15, breathingDepthM: options.breathingDepthM ?? 0.005, start: { x: 3, y: Math.min(4.6, y), yawDeg: -90 }, script: [step] }] };
}

/**
 * A person walks into the middle of the room and falls (`type`) at about `atS`; the truth has
 * `fall_start` / `fall_end` events with their times. With `fallLike` instead, the same walk
 * ends in a movement that looks like a fall and is not one (`fall_like_start` / `fall_like_end`).
 * `standBeforeFallS` (default 0: the walk runs straight into the fall) puts that many seconds of
 * standing still between the walk's end and the fall.
 */
export function fallScenario(options: SensingScenarioOptions & { type?: 'forward' | 'backward' | 'sideways' | 'slump' | 'trip' | 'knees'; fallLike?: 'sit-hard' | 'lie-down' | 'into-bed'; lieDurationS?: number; getUp?: boolean; standBeforeFallS?: number } = {}): ScenarioInput {
  const s = sensingRoom(options.fallLike ? `fall-like-${options.fallLike}` : `fall-${options.type ?? 'forward'}`, options);
  const script: Step[] = [{ action: 'stand', duration: 2 }, { action: 'walk', path: [[3, 3.2]], speed: 1 }];
  if (options.standBeforeFallS) script.push({ action: 'stand', duration: options.standBeforeFallS });
  if (options.fallLike) script.push({ action: 'fall-like', kind: options.fallLike, duration: options.lieDurationS ?? 20 });
  else script.push({ action: 'fall', type: options.type ?? 'forward', lieDuration: options.lieDurationS ?? 20, getUp: options.getUp ?? false });
  return { ...s, people: [{ id: 1, start: { x: 1.5, y: 4.2, yawDeg: 0 }, script }] };
}

/** An empty room, with whatever distractors are given (a fan, a pet, a door...): what presence must call empty. */
export function emptyRoomScenario(options: SensingScenarioOptions = {}): ScenarioInput {
  return sensingRoom('empty-room', options);
}

/** Kinds of day the simulator scripts. */
export type DayKind = 'home' | 'shop' | 'office';

/**
 * A day (or `hours` of one, from `startHour`) in a home, a shop or an office, compressed to
 * real durations: every hour is scripted as it would be lived, so a full day is 86,400 s of
 * simulation. Home: one or two residents sleeping at night (lying in bed, fidgeting), getting
 * up, walking about, desk work, going out and back, reading on the sofa, getting into bed; a
 * cat, a ceiling fan, the front door. Shop: a shopkeeper behind the counter, customers coming in through the door and
 * leaving, a door that swings with every visit. Office: three people at desks (long still
 * periods with fidgets), meetings, coffee walks, a neighbour's office behind the wall.
 */
export function dayScenario(kind: DayKind, options: { seed?: number; hours?: number; startHour?: number; profile?: string; rateHz?: number } = {}): ScenarioInput {
  const prng = new Prng(`day:${kind}:${options.seed ?? 1}`);
  const hours = options.hours ?? 24;
  const startHour = options.startHour ?? 0;
  const durationS = hours * 3600;
  const jitter = (v: number, f = 0.2) => Math.round(v * prng.uniform(1 - f, 1 + f) * 10) / 10;
  const s = sensingRoom(`day-${kind}`, { durationS, profile: options.profile, rateHz: options.rateHz ?? 20, seed: options.seed });
  const people: NonNullable<ScenarioInput['people']> = [];
  /** Script a day for one person: a schedule of (hour, activity) pairs, each lasting until the next. */
  const day = (plan: [number, (seconds: number) => Step[]][]): Step[] => {
    const out: Step[] = [];
    const end = startHour + hours;
    for (let i = 0; i < plan.length; i++) {
      const [h, make] = plan[i];
      const next = i + 1 < plan.length ? plan[i + 1][0] : 24;
      const from = Math.max(h, startHour);
      const to = Math.min(next, end);
      if (to <= from) continue;
      out.push(...make((to - from) * 3600));
    }
    return out;
  };
  const walkAbout = (seconds: number): Step[] => {
    const steps: Step[] = [];
    for (let t = 0; t < seconds; ) {
      steps.push({ action: 'walk', path: [[jitter(3, 0.5), jitter(2.5, 0.4)]], speed: jitter(1) });
      const pause = jitter(30, 0.8);
      steps.push({ action: 'stand', duration: pause, fidgetEveryS: 15 });
      t += pause + 4;
    }
    return steps;
  };
  const away = (seconds: number): Step[] => [{ action: 'leave', path: [[0, 1]], speed: 1 }, { action: 'absent', duration: seconds }, { action: 'enter', at: [0, 1], yawDeg: 0 }];
  if (kind === 'home') {
    s.distractors = [
      { kind: 'fan', id: 'ceiling-fan', position: [3, 2.5, 2.4], rpm: 120, onInReference: false },
      { kind: 'pet', id: 'cat', species: 'cat', path: [[0.6, 0.6], [2.5, 1], [5.2, 4.3]], speed: 0.4, restS: 900, breathingRateBpm: 28 },
      { kind: 'door', id: 'front-door', hinge: [0, 0.6], closedYawDeg: 90, openDeg: 0, swings: [] },
    ];
    people.push({
      id: 1, breathingRateBpm: jitter(14), start: { x: 5.2, y: 4.3, yawDeg: 180 },
      script: day([
        [0, (sec) => [{ action: 'lie', duration: sec, surfaceHeight: 0.5, side: 'left', fidgetEveryS: 600 }]],
        [7, (sec) => walkAbout(sec)],
        [8.5, (sec) => [{ action: 'walk', path: [[4.6, 1.3]], speed: 1 }, { action: 'sit', duration: sec, fidgetEveryS: 40 }]],
        [12, (sec) => walkAbout(sec)],
        [13, (sec) => away(sec)],
        [17, (sec) => walkAbout(sec)],
        [19, (sec) => [{ action: 'walk', path: [[1.2, 3.9]], speed: 0.9 }, { action: 'sit', duration: sec, fidgetEveryS: 90 }]],
        [23, (sec) => [{ action: 'walk', path: [[5.2, 4.3]], speed: 0.9 }, { action: 'fall-like', kind: 'into-bed', duration: sec, fidgetEveryS: 600 }]],
      ]),
    });
  } else if (kind === 'shop') {
    s.distractors = [{ kind: 'door', id: 'shop-door', hinge: [0, 0.6], closedYawDeg: 90, openDeg: 0, swings: [] }];
    people.push({ id: 1, breathingRateBpm: jitter(15), start: { x: 4.6, y: 1.3, yawDeg: 90 }, script: day([[0, (sec) => [{ action: 'stand', duration: sec, fidgetEveryS: 20 }]]]) });
    // Customers: one at a time through the door while the shop is open (9–18 h).
    const visits: Step[] = [];
    const swings: { at: number; toDeg: number; durationS: number }[] = [];
    let t = Math.max(0, (9 - startHour) * 3600);
    const close = Math.min(durationS, (18 - startHour) * 3600);
    while (t < close - 300) {
      const gap = Math.round(-Math.log(1 - prng.next()) * 600);
      const stay = Math.round(prng.uniform(60, 300));
      visits.push({ action: 'absent', duration: Math.max(1, gap) }, { action: 'enter', at: [0.05, 1], yawDeg: 0 });
      visits.push(...walkAbout(stay));
      visits.push({ action: 'leave', path: [[0, 1]], speed: 1 });
      swings.push({ at: t + gap - 1, toDeg: 85, durationS: 1.2 }, { at: t + gap + 3, toDeg: 0, durationS: 1.5 });
      t += gap + stay + 15;
    }
    if (visits.length) people.push({ id: 2, breathingRateBpm: jitter(16), script: visits });
    (s.distractors[0] as { swings: typeof swings }).swings = swings;
  } else {
    s.distractors = [
      { kind: 'fan', id: 'desk-fan', mount: 'standing', position: [5.6, 0.5, 1], yawDeg: 135, bladeLengthM: 0.18, rpm: 600 },
      { kind: 'neighbour', id: 'next-office', wall: 'north', distanceM: 2, from: 0.5, to: 5.5, speed: 1.1, wallLossDb: 10 },
    ];
    const desks: [number, number][] = [[1.5, 1.2], [3, 1.2], [4.5, 3.8]];
    desks.forEach(([x, y], i) => {
      people.push({
        id: i + 1, breathingRateBpm: jitter(15), start: { x, y, yawDeg: 90 },
        script: day([
          [0, (sec) => away(sec)],
          [8.5 + 0.25 * i, (sec) => [{ action: 'sit', duration: sec, fidgetEveryS: 45 }]],
          [10.5, (sec) => walkAbout(Math.min(sec, 900)).concat([{ action: 'walk', path: [[x, y]], speed: 1 }, { action: 'sit', duration: Math.max(1, sec - 900), fidgetEveryS: 45 }])],
          [12, (sec) => away(sec)],
          [13, (sec) => [{ action: 'walk', path: [[x, y]], speed: 1 }, { action: 'sit', duration: sec, fidgetEveryS: 45 }]],
          [17.5, (sec) => away(sec)],
        ]),
      });
    });
  }
  return { ...s, people };
}
