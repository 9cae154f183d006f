import type { Activity } from './pose.js';

/** One simulated person's ground truth at one instant. */
export interface GroundTruthPerson {
  /** Stable id of the simulated person. */
  id: number;
  /** COCO-17 keypoints in metres, room frame (x, y on the floor, z up), as [17][3]. */
  keypoints3d: number[][];
  /** Floor position (pelvis projected on the floor) in metres. */
  position: { x: number; y: number };
  /** Activity label of the script at this instant. */
  activity: Activity;
}

/** A ground-truth event from the simulator's script. */
export interface GroundTruthEvent {
  /** `fall_like_*`: a scripted movement that looks like a fall and is not one (sitting down hard, lying down on purpose, getting into bed). */
  type: 'fall_start' | 'fall_end' | 'fall_like_start' | 'fall_like_end' | 'zone_enter' | 'zone_exit' | 'person_enter' | 'person_leave';
  personId: number;
  /** Wall-clock ms. */
  time: number;
  detail?: Record<string, unknown>;
}

/** Everything the simulator knows at the instant of a frame. */
export interface GroundTruthFrame {
  /** Wall-clock ms. */
  time: number;
  environmentId: string;
  persons: GroundTruthPerson[];
  /** Events that happened since the previous truth frame. */
  events: GroundTruthEvent[];
  /** Simulated things besides people that move the channel (fans, pets, doors...); absent when the scene has none. */
  distractors?: GroundTruthDistractor[];
}

/** A non-human mover of a simulated scene at one instant. */
export interface GroundTruthDistractor {
  id: string;
  /** fan, pet, door, curtain, plant, neighbour (someone moving behind a wall). */
  kind: string;
  /** Whether it moves at this instant (a running fan, a walking pet, a swinging door). */
  active: boolean;
  /** Floor position (m); null where it has none in the room. */
  position: { x: number; y: number } | null;
}
