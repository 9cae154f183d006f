import { emptyRoomDistractors, Prng, randomScenario, validateScenario, type Scenario, type ScenarioInput } from '@wiflow/plugin-sim';

/** Which rooms a session belongs to: fitting, choosing (thresholds, feature sets), or the one final score. */
export type SimSplit = 'train' | 'validation' | 'test';

/** What a simulated session holds for the sensing to find. */
export type SimSessionKind = 'still' | 'empty' | 'fall' | 'fall-like' | 'leave' | 'walk-in';

/** One simulated session: a scenario in a random room and what it is for. */
export interface SimSession {
  split: SimSplit;
  room: number;
  kind: SimSessionKind;
  /** Fall type, fall-like kind, or the still posture. */
  detail: string;
  scenario: Scenario;
  seconds: number;
  /** The person's declared (long-run mean) breathing rate in still sessions, else null; scoring uses the windowed truth (`SimSessionRun.breathingTruth`). */
  breathingBpm: number | null;
}

/** Room seeds of each split: disjoint ranges, so a room (geometry, materials, radios, realism) is in one split only. */
const SPLIT_SEEDS: Record<SimSplit, number> = { train: 71_000, validation: 72_000, test: 73_000 };

const FALLS = ['forward', 'backward', 'sideways', 'slump', 'trip', 'knees'] as const;
const FALL_LIKE = ['sit-hard', 'lie-down', 'into-bed'] as const;

type Step = NonNullable<NonNullable<ScenarioInput['people']>[number]['script']>[number];

/** Session lengths: `small` is the CI run. */
export interface SimSessionSizes {
  rooms: number;
  stillSeconds: number;
  emptySeconds: number;
  /** Falls per room (kinds cycle through all six over the rooms). */
  falls: number;
  /** Fall-like movements per room (cycling through the three kinds). */
  fallLike: number;
  /** A person who walks in, sits this long, and walks out... */
  leaveStaySeconds: number;
  /** ...and the empty room after it (what a presence hold costs once someone has left). */
  leaveAbsentSeconds: number;
  /** A person who walks into the room once its links have warmed up (after `WALK_IN_LEAD_SECONDS` of empty room) and stays still this long. */
  walkInStillSeconds: number;
}

/** The empty lead-in of a walk-in session, drawn per room: longer than the presence floor's 30-s warm-up, so the entry is judged against a trusted floor. */
export const WALK_IN_LEAD_SECONDS: readonly [number, number] = [60, 120];

/** The full evaluation's and the CI subset's sizes. */
export const SIM_SIZES: Record<'full' | 'small', SimSessionSizes> = {
  full: { rooms: 12, stillSeconds: 600, emptySeconds: 1200, falls: 3, fallLike: 2, leaveStaySeconds: 60, leaveAbsentSeconds: 360, walkInStillSeconds: 300 },
  small: { rooms: 3, stillSeconds: 240, emptySeconds: 480, falls: 2, fallLike: 1, leaveStaySeconds: 60, leaveAbsentSeconds: 360, walkInStillSeconds: 180 },
};

const round = (v: number) => Math.round(v * 100) / 100;

/**
 * The sessions of one split: random rooms (the simulator's randomiser with realism 'v2': radio
 * patterns, late detection, AGC steps, loss bursts, drift and its own distractors), Intel 5300-like
 * 1 × 3 links at 20 packets/s, and in each room a still person (sitting or lying with small fidgets,
 * after walking in), an empty room with a running fan, a cat and a door that swings, falls of the
 * six kinds and fall-like movements that are not falls; then (each with its own generator, so the sessions
 * before keep their seeds) a person who sits and leaves, and a person who walks in after 60–120 s of empty room.
 */
export function simSessions(split: SimSplit, sizes: SimSessionSizes): SimSession[] {
  const out: SimSession[] = [];
  for (let room = 0; room < sizes.rooms; room++) {
    const seed = SPLIT_SEEDS[split] + room;
    const prng = new Prng(`sense-sim:${split}:${room}`);
    const base = randomScenario({ seed, durationS: 60, ranges: { realism: 'v2', rateHz: 20, txAntennas: 1, rxAntennas: 3, receivers: [1, 2] } });
    const { width, depth, height } = base.room;
    // The randomiser's own distractors are left out: its neighbour is a person moving behind a wall (which a
    // link through that wall rightly sees), its curtains and plants sway all the time. The sessions place
    // the distractors the evaluation is about: a fan in every other room, and fan, cat and door when empty.
    const spot = () => [round(prng.uniform(0.9, width - 0.9)), round(prng.uniform(0.9, depth - 0.9))] as [number, number];
    const make = (kind: SimSessionKind, detail: string, seconds: number, people: ScenarioInput['people'], distractors: ScenarioInput['distractors'], breathingBpm: number | null) => {
      const input = { ...base, name: `${split} room ${room} ${kind} ${detail}`, seed: (base.seed + out.length * 7919) & 0x7fffffff, durationS: seconds, people, distractors } as ScenarioInput;
      out.push({ split, room, kind, detail, scenario: validateScenario(input, input.name), seconds, breathingBpm });
    };
    // Chest and belly excursion of quiet breathing: 4–12 mm (the simulator's default, 5 mm, is at the low end; docs/simulator.md §7).
    const person = (script: Step[], start: [number, number], bpm = round(prng.uniform(10, 22))) => ({ id: 1, height: round(prng.uniform(1.5, 1.95)), breathingRateBpm: bpm, breathingDepthM: round(prng.uniform(4, 12)) / 1000, start: { x: start[0], y: start[1], yawDeg: 0 }, script });
    // Still: walk in, then sit or lie for the whole session (fidgets now and then, as people do).
    const lying = room % 2 === 1;
    const bpm = round(prng.uniform(10, 22));
    const still: Step = lying ? { action: 'lie', duration: sizes.stillSeconds, surfaceHeight: prng.chance(0.5) ? 0.45 : 0, side: prng.pick(['back', 'left', 'right'] as const), fidgetEveryS: 300 } : { action: 'sit', duration: sizes.stillSeconds, fidgetEveryS: 120 };
    const roomFan: ScenarioInput['distractors'] = room % 2 === 0 ? [{ kind: 'fan', id: 'fan', position: [round(width / 2), round(depth / 2), round(height - 0.3)], rpm: round(prng.uniform(60, 200)) }] : [];
    make('still', lying ? 'lying' : 'sitting', sizes.stillSeconds + 15, [person([{ action: 'walk', path: [spot(), spot(), spot()], speed: 0.9 }, still], spot(), bpm)], roomFan, bpm);
    // Empty room: a ceiling fan running, a cat walking and resting, a door swung now and then.
    const distractors = emptyRoomDistractors(prng, { width, depth, height }, sizes.emptySeconds);
    make('empty', 'fan, cat, door', sizes.emptySeconds, [], distractors, null);
    // Falls: walk to a spot, fall, lie 15 s, get up, stand a while.
    for (let i = 0; i < sizes.falls; i++) {
      const type = FALLS[(room * sizes.falls + i) % FALLS.length];
      const script: Step[] = [{ action: 'stand', duration: 3 }, { action: 'walk', path: [spot(), spot()], speed: round(prng.uniform(0.7, 1.3)) }];
      if (type === 'slump') script.push({ action: 'sit', duration: 5 });
      script.push({ action: 'fall', type, lieDuration: 15, getUp: true }, { action: 'stand', duration: 10 });
      make('fall', type, 60, [person(script, spot())], roomFan, null);
    }
    for (let i = 0; i < sizes.fallLike; i++) {
      const kind = FALL_LIKE[(room * sizes.fallLike + i) % FALL_LIKE.length];
      const script: Step[] = [{ action: 'stand', duration: 3 }, { action: 'walk', path: [spot(), spot()], speed: round(prng.uniform(0.7, 1.3)) }, { action: 'fall-like', kind, duration: 30 }];
      make('fall-like', kind, 55, [person(script, spot())], roomFan, null);
    }
  }
  // Leaving, drawn after every other session with its own generator, so the sessions above keep their seeds.
  const before = out.length;
  for (let room = 0; room < sizes.rooms; room++) {
    const seed = SPLIT_SEEDS[split] + room;
    const prng = new Prng(`sense-sim-leave:${split}:${room}`);
    const base = randomScenario({ seed, durationS: 60, ranges: { realism: 'v2', rateHz: 20, txAntennas: 1, rxAntennas: 3, receivers: [1, 2] } });
    const { width, depth, height } = base.room;
    const spot = () => [round(prng.uniform(0.9, width - 0.9)), round(prng.uniform(0.9, depth - 0.9))] as [number, number];
    const door: [number, number] = [0.3, round(prng.uniform(0.3, depth - 0.3))];
    const bpm = round(prng.uniform(10, 22));
    const seconds = 10 + sizes.leaveStaySeconds + 10 + sizes.leaveAbsentSeconds;
    const script: Step[] = [{ action: 'walk', path: [spot(), spot()], speed: 0.9 }, { action: 'sit', duration: sizes.leaveStaySeconds, fidgetEveryS: 120 }, { action: 'leave', path: [door], speed: 0.9 }, { action: 'absent', duration: sizes.leaveAbsentSeconds + 30 }];
    const people = [{ id: 1, height: round(prng.uniform(1.5, 1.95)), breathingRateBpm: bpm, breathingDepthM: round(prng.uniform(4, 12)) / 1000, start: { x: spot()[0], y: spot()[1], yawDeg: 0 }, script }];
    const distractors: ScenarioInput['distractors'] = room % 2 === 0 ? [{ kind: 'fan', id: 'fan', position: [round(width / 2), round(depth / 2), round(height - 0.3)], rpm: round(prng.uniform(60, 200)) }] : [];
    const input = { ...base, name: `${split} room ${room} leave`, seed: (base.seed + (before + room) * 7919) & 0x7fffffff, durationS: seconds, people, distractors } as ScenarioInput;
    out.push({ split, room, kind: 'leave', detail: 'sits, then leaves', scenario: validateScenario(input, input.name), seconds, breathingBpm: null });
  }
  // Walking in after the warm-up, drawn after the leaving sessions with its own generator (issue 22): the room's
  // usual distractors (the fan of every other room, as in its still sessions) and nobody for 60–120 s, then a
  // person comes in at the wall, walks to a spot and sits (even rooms) or lies (odd rooms) still.
  const beforeWalkIn = out.length;
  for (let room = 0; room < sizes.rooms; room++) {
    const seed = SPLIT_SEEDS[split] + room;
    const prng = new Prng(`sense-sim-walkin:${split}:${room}`);
    const base = randomScenario({ seed, durationS: 60, ranges: { realism: 'v2', rateHz: 20, txAntennas: 1, rxAntennas: 3, receivers: [1, 2] } });
    const { width, depth, height } = base.room;
    const spot = () => [round(prng.uniform(0.9, width - 0.9)), round(prng.uniform(0.9, depth - 0.9))] as [number, number];
    const lead = Math.round(prng.uniform(WALK_IN_LEAD_SECONDS[0], WALK_IN_LEAD_SECONDS[1]));
    const door: [number, number] = [0.3, round(prng.uniform(0.3, depth - 0.3))];
    const lying = room % 2 === 1;
    // Still for longer than the session lasts, whatever the walk took.
    const stay = sizes.walkInStillSeconds + 30;
    const still: Step = lying ? { action: 'lie', duration: stay, surfaceHeight: prng.chance(0.5) ? 0.45 : 0, side: prng.pick(['back', 'left', 'right'] as const), fidgetEveryS: 300 } : { action: 'sit', duration: stay, fidgetEveryS: 120 };
    const script: Step[] = [{ action: 'absent', duration: lead }, { action: 'enter', at: door, yawDeg: 0 }, { action: 'walk', path: [spot(), spot()], speed: 0.9 }, still];
    const people = [{ id: 1, height: round(prng.uniform(1.5, 1.95)), breathingRateBpm: round(prng.uniform(10, 22)), breathingDepthM: round(prng.uniform(4, 12)) / 1000, script }];
    const distractors: ScenarioInput['distractors'] = room % 2 === 0 ? [{ kind: 'fan', id: 'fan', position: [round(width / 2), round(depth / 2), round(height - 0.3)], rpm: round(prng.uniform(60, 200)) }] : [];
    const seconds = lead + 15 + sizes.walkInStillSeconds;
    const input = { ...base, name: `${split} room ${room} walk-in`, seed: (base.seed + (beforeWalkIn + room) * 7919) & 0x7fffffff, durationS: seconds, people, distractors } as ScenarioInput;
    out.push({ split, room, kind: 'walk-in', detail: `${lying ? 'lies' : 'sits'} after ${lead} s empty`, scenario: validateScenario(input, input.name), seconds, breathingBpm: null });
  }
  return out;
}
