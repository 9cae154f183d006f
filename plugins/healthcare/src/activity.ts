import type { Activity, Person } from '@wiflow/core';
import { hipHeight, shoulderHeight } from '@wiflow/analytics-common';

/** Activities counted in activity minutes. */
export type CountedActivity = 'walking' | 'sitting' | 'lying' | 'standing';

/**
 * Posture rule 'posture-v1' from 3D joints: lying when the torso is near horizontal
 * (shoulders less than 0.25 m above the hips) with the hips below 0.7 m; sitting when the
 * hips are below 0.7 m with an upright torso; otherwise standing, or walking when the floor
 * speed is at least `walkingSpeed`. A model-given activity (other than absent/falling) wins.
 */
export function classifyActivity(person: Person, speed: number, walkingSpeed: number): CountedActivity | null {
  const given = person.activity as Activity | null | undefined;
  if (given === 'walking' || given === 'sitting' || given === 'lying' || given === 'standing') return given;
  const hip = hipHeight(person);
  const shoulder = shoulderHeight(person);
  if (hip === null || shoulder === null) return speed >= walkingSpeed ? 'walking' : null;
  const torso = shoulder - hip;
  if (hip < 0.7 && torso < 0.25) return 'lying';
  if (hip < 0.7) return 'sitting';
  return speed >= walkingSpeed ? 'walking' : 'standing';
}
