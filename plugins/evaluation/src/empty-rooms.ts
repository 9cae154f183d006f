import type { PoseFrame } from '@wiflow/core';
import { drawRealism, emptyRoomDistractors, Prng, validateScenario, type Scenario } from '@wiflow/plugin-sim';
import { EvaluationErrors } from './errors.js';
import { ratePerHour } from '@wiflow/plugin-pose-tfjs';
import { reportedPeople } from './scoring.js';

/**
 * The empty rooms phantoms are counted in: each test room emptied `as-drawn` (the room and its
 * hardware as the recipe drew them, nothing else moving), with an installer's `fan-cat-door`
 * (a ceiling fan, a cat, a door swung every 60–180 s: the sensing's empty rooms), and with
 * realism v2's `drift` (the reference taken at installation with its own draws and AGC state,
 * maybe a piece of furniture moved or a receiver re-plugged since, temperature drift over
 * 10 min to a day).
 */
export const EMPTY_ROOM_CONDITIONS = ['as-drawn', 'fan-cat-door', 'drift'] as const;

/** One of `EMPTY_ROOM_CONDITIONS`. */
export type EmptyRoomCondition = (typeof EMPTY_ROOM_CONDITIONS)[number];

/** A distractor near a phantom when it was first shown (the simulator's truth). */
export interface PhantomDistractor {
  id: string;
  kind: string;
  /** Floor distance from the phantom, m. */
  distanceM: number;
  /** Whether it moved at that instant (a running fan, a walking cat, a swinging door). */
  active: boolean;
}

/** A phantom: a track confirmed (shown to a user) in a room with nobody in it. */
export interface Phantom {
  /** The test session the room came from. */
  room: string;
  environmentId: string;
  trackId: number;
  /** Seconds since the run started when the track was first shown. */
  atSeconds: number;
  /** Seconds between its first and last shown frame. */
  shownSeconds: number;
  /** Where it was first shown, m. */
  position: { x: number; y: number };
  /** The distractors of the room, nearest first (empty where the room has none). */
  distractors: PhantomDistractor[];
}

/** Phantoms of one condition over the emptied rooms. */
export interface EmptyRoomRow {
  condition: EmptyRoomCondition;
  rooms: number;
  secondsPerRoom: number;
  simulatedSeconds: number;
  /** Confirmed tracks (after the tracker's birth rule): the phantoms. */
  falseTracks: number;
  falsePeoplePerHour: number;
  /** Exact one-sided 95 % Poisson upper bound of the rate (`poissonUpper95`); null where nothing was simulated. */
  upper95PerHour: number | null;
  phantoms: Phantom[];
}

/** Conditions the CLI names, comma-separated; an unknown one (or none) is an error listing the known. */
export function parseEmptyConditions(list: string): EmptyRoomCondition[] {
  const names = list.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(EMPTY_ROOM_CONDITIONS as readonly string[]).includes(n));
  if (unknown.length || !names.length) throw EvaluationErrors.optionsInvalid(`empty-room conditions must be among ${EMPTY_ROOM_CONDITIONS.join(', ')}, got ${JSON.stringify(list)}`);
  return [...new Set(names)] as EmptyRoomCondition[];
}

/**
 * A test room emptied under `condition` for `seconds`; the draws of `fan-cat-door` and `drift`
 * come from the environment's own generators, so a room's distractors and drift are the same
 * whatever else runs (and whatever the profile applied after).
 */
export function emptiedScenario(scenario: Scenario, condition: EmptyRoomCondition, seconds: number): Scenario {
  const empty: Scenario = { ...scenario, people: [] };
  const where = `${scenario.environmentId} emptied (${condition})`;
  switch (condition) {
    case 'as-drawn':
      return empty;
    case 'fan-cat-door': {
      const prng = new Prng(`eval-e2e-empty:${scenario.environmentId}`);
      return validateScenario({ ...empty, distractors: emptyRoomDistractors(prng, empty.room, seconds) }, where);
    }
    case 'drift':
      return validateScenario(drawRealism(new Prng(`eval-e2e-drift:${scenario.environmentId}`), empty, seconds, ['drift']), where);
  }
}

/** Each confirmed track of an emptied room's tracked frames: when and where it was first shown, how long, and the distractors then. */
export function phantomsIn(frames: readonly PoseFrame[], room: string, environmentId: string): Phantom[] {
  if (!frames.length) return [];
  const start = frames[0].timestamp;
  const found = new Map<number, Phantom>();
  for (const frame of frames) {
    const at = (frame.timestamp - start) / 1000;
    for (const person of reportedPeople(frame)) {
      if (person.trackId === null || person.trackId === undefined) continue;
      const seen = found.get(person.trackId);
      if (seen) {
        seen.shownSeconds = round(at - seen.atSeconds);
        continue;
      }
      const position = { x: round(person.position.x), y: round(person.position.y) };
      const distractors = (frame.truth?.distractors ?? [])
        .filter((d) => d.position)
        .map((d) => ({ id: d.id, kind: d.kind, distanceM: round(Math.hypot(d.position!.x - position.x, d.position!.y - position.y)), active: d.active }))
        .sort((a, b) => a.distanceM - b.distanceM);
      found.set(person.trackId, { room, environmentId, trackId: person.trackId, atSeconds: round(at), shownSeconds: 0, position, distractors });
    }
  }
  return [...found.values()];
}

/** Accumulates one condition's emptied rooms into its row. */
export class EmptyRoomTally {
  readonly #phantoms: Phantom[] = [];
  #rooms = 0;

  constructor(
    readonly condition: EmptyRoomCondition,
    readonly secondsPerRoom: number,
  ) {}

  /** Count one emptied room's tracked frames. */
  addRoom(frames: readonly PoseFrame[], room: string, environmentId: string): Phantom[] {
    const phantoms = phantomsIn(frames, room, environmentId);
    this.#phantoms.push(...phantoms);
    this.#rooms++;
    return phantoms;
  }

  /** The row so far. */
  row(): EmptyRoomRow {
    const simulatedSeconds = this.#rooms * this.secondsPerRoom;
    const rate = ratePerHour(this.#phantoms.length, simulatedSeconds);
    return {
      condition: this.condition,
      rooms: this.#rooms,
      secondsPerRoom: this.secondsPerRoom,
      simulatedSeconds,
      falseTracks: this.#phantoms.length,
      falsePeoplePerHour: round4(rate.perHour ?? 0),
      upper95PerHour: rate.upper95PerHour === null ? null : round4(rate.upper95PerHour),
      phantoms: [...this.#phantoms],
    };
  }
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}

function round4(v: number): number {
  return Math.round(v * 1e4) / 1e4;
}
