import type { GroundTruthPerson } from '@wiflow/core';
import { SLOT_SIZE } from './contract.js';
import type { EnvironmentGeometry } from './environment.js';

/** One decoded person slot: presence probability, floor position and 3D keypoints in metres. */
export interface DecodedPerson {
  slot: number;
  presence: number;
  position: { x: number; y: number };
  /** [17][3] room-frame metres. */
  keypoints3d: number[][];
  /** The estimator's own track id of this person, where it tracks people (pose.locate); absent or null otherwise. */
  trackId?: number | null;
  /** The change this person's estimate explains, noise energies summed over links (core `Person.evidence`); absent where not measured. */
  evidence?: number | null;
}

/**
 * Encode ground truth as the training target of one sample, `[maxPersons × SLOT_SIZE]`:
 * per slot presence (0/1), floor position as fractions of the room, keypoint offsets from
 * the floor position (x, y) and heights (z). The slot order is irrelevant: the loss matches
 * slots to people by the cheapest permutation. People beyond `maxPersons` are dropped.
 */
export function encodeTarget(persons: readonly GroundTruthPerson[], environment: EnvironmentGeometry, maxPersons: number, out: Float32Array, offset = 0): void {
  out.fill(0, offset, offset + maxPersons * SLOT_SIZE);
  persons.slice(0, maxPersons).forEach((person, slot) => {
    const base = offset + slot * SLOT_SIZE;
    out[base] = 1;
    out[base + 1] = person.position.x / environment.room.width;
    out[base + 2] = person.position.y / environment.room.depth;
    for (let k = 0; k < 17; k++) {
      const p = person.keypoints3d[k];
      out[base + 3 + 3 * k] = p[0] - person.position.x;
      out[base + 4 + 3 * k] = p[1] - person.position.y;
      out[base + 5 + 3 * k] = p[2];
    }
  });
}

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

/** Decode one sample's model output (all slots, most confident first). */
export function decodeSlots(output: Float32Array, offset: number, maxPersons: number, environment: EnvironmentGeometry): DecodedPerson[] {
  const persons: DecodedPerson[] = [];
  for (let slot = 0; slot < maxPersons; slot++) {
    const base = offset + slot * SLOT_SIZE;
    const x = output[base + 1] * environment.room.width;
    const y = output[base + 2] * environment.room.depth;
    const keypoints3d: number[][] = [];
    for (let k = 0; k < 17; k++) keypoints3d.push([x + output[base + 3 + 3 * k], y + output[base + 4 + 3 * k], output[base + 5 + 3 * k]]);
    persons.push({ slot, presence: sigmoid(output[base]), position: { x, y }, keypoints3d });
  }
  return persons.sort((a, b) => b.presence - a.presence);
}
