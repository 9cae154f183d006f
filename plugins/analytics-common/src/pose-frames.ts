import { COCO_KEYPOINTS, type CocoKeypointName, type Keypoint3D, type Person, type PoseFrame } from '@wiflow/core';

/** Index of each COCO keypoint name. */
export const KEYPOINT_INDEX: Readonly<Record<CocoKeypointName, number>> = Object.freeze(
  Object.fromEntries(COCO_KEYPOINTS.map((name, i) => [name, i])) as Record<CocoKeypointName, number>,
);

/** A person's 3D keypoint by name (by index when the list is in COCO order, else by search). */
export function keypoint3d(person: Person, name: CocoKeypointName): Keypoint3D | undefined {
  const list = person.keypoints3d;
  const byIndex = list[KEYPOINT_INDEX[name]];
  if (byIndex?.name === name) return byIndex;
  return list.find((k) => k.name === name);
}

/** Mean height (m) of the two hip keypoints, or null when the person has no 3D hips. */
export function hipHeight(person: Person): number | null {
  const l = keypoint3d(person, 'left_hip');
  const r = keypoint3d(person, 'right_hip');
  if (l && r) return (l.z + r.z) / 2;
  if (l) return l.z;
  if (r) return r.z;
  return null;
}

/** Mean height (m) of the shoulders, or null. */
export function shoulderHeight(person: Person): number | null {
  const l = keypoint3d(person, 'left_shoulder');
  const r = keypoint3d(person, 'right_shoulder');
  if (l && r) return (l.z + r.z) / 2;
  return l?.z ?? r?.z ?? null;
}

/** Options deciding which detections analytics count. */
export interface CountOptions {
  /** Ignore persons below this confidence (default 0). */
  minConfidence?: number;
  /** Count tracks the tracker has not confirmed yet (default false: they are likely false detections). */
  includeTentative?: boolean;
}

/** The persons of a frame that analytics count as present. */
export function countedPersons(frame: PoseFrame, options: CountOptions = {}): Person[] {
  const min = options.minConfidence ?? 0;
  return frame.persons.filter((p) => p.confidence >= min && (options.includeTentative || (p.trackStatus !== 'tentative' && p.trackStatus !== 'ended')));
}

/**
 * Whether the tracker holds this person's id back (tracker.track's held evidence, `upstream_min_evidence`,
 * opt-in): tentative with a track id. Analytics count no such person (`countedPersons`) and the pose API
 * publishes none; a tentative person without an id (a candidate track) is not held.
 */
export function isHeldPerson(person: Pick<Person, 'trackId' | 'trackStatus'>): boolean {
  return person.trackStatus === 'tentative' && person.trackId !== null && person.trackId !== undefined;
}

/** The frame without its held persons (`isHeldPerson`); the same object when it has none. */
export function withoutHeldPersons<F extends { persons: readonly Pick<Person, 'trackId' | 'trackStatus'>[] }>(frame: F): F {
  return frame.persons.some(isHeldPerson) ? ({ ...frame, persons: frame.persons.filter((p) => !isHeldPerson(p)) } as F) : frame;
}

/**
 * How long each frame stands for (ms): the time to the next frame, capped at `maxGapMs`
 * (a longer gap means the system was not observing). The last frame gets the median step.
 */
export function frameDurations(frames: readonly PoseFrame[], maxGapMs = 5000): number[] {
  const steps: number[] = [];
  for (let i = 0; i + 1 < frames.length; i++) steps.push(frames[i + 1].timestamp - frames[i].timestamp);
  const sorted = steps.filter((s) => s > 0 && s <= maxGapMs).sort((a, b) => a - b);
  const median = sorted.length ? sorted[Math.floor(sorted.length / 2)] : 0;
  return frames.map((_, i) => {
    if (i + 1 >= frames.length) return median;
    const step = steps[i];
    return step > 0 && step <= maxGapMs ? step : step > maxGapMs ? median : 0;
  });
}

/** Sort frames by timestamp (stable), checking each is a usable PoseFrame. */
export function sortedFrames(frames: readonly PoseFrame[]): PoseFrame[] {
  frames.forEach((f, i) => {
    if (!f || typeof f !== 'object' || !Number.isFinite(f.timestamp) || !Array.isArray(f.persons)) throw new Error(`frame ${i} is not a PoseFrame (needs a finite timestamp and a persons array)`);
  });
  return [...frames].sort((a, b) => a.timestamp - b.timestamp);
}
