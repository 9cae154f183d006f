import { COCO_KEYPOINTS, type AnalyticsEvent, type Alert, type Person, type PoseFrame, type SensingFrame } from '@wiflow/core';

/** An hour in ms. */
export const HOUR = 3_600_000;
/** A day in ms. */
export const DAY = 86_400_000;

/** Start of the fixture data: three whole hours ago (recent, so no retention interferes). */
export function fixtureStart(now = Date.now()): number {
  return Math.floor(now / HOUR) * HOUR - 3 * HOUR;
}

const ACTIVITIES = ['standing', 'walking', 'sitting'] as const;

/** A full person with every optional field, so round trips are checked field by field. */
export function makePerson(index: number, trackId: number | null, confidence: number, x: number, y: number, activity: Person['activity'] = ACTIVITIES[index % 3]): Person {
  return {
    id: index,
    trackId,
    confidence,
    keypoints: COCO_KEYPOINTS.map((name, k) => ({ name, x: 100 + k * 3.25 + x, y: 200 - k * 1.5 + y, confidence: 0.5 + k / 40, visible: k % 4 !== 0 })),
    boundingBox: { x: 90 + x, y: 150 + y, width: 60.5, height: 120.25 },
    keypoints3d: COCO_KEYPOINTS.map((name, k) => ({ name, x: x + k / 100, y: y - k / 100, z: 1.7 - k / 10, confidence: 0.6 })),
    position: { x, y },
    velocity: { x: 0.5, y: -0.25 },
    trackAge: 12,
    trackStatus: 'active',
    densePose: null,
    activity,
  };
}

/** Metadata every fixture frame carries. */
export const FIXTURE_METADATA: PoseFrame['metadata'] = {
  modelId: 'wiflow-pose-test',
  modelHash: 'a'.repeat(64),
  modelVersion: '1.0.0',
  processingMode: 'realtime',
  provenance: 'simulated',
  csiQuality: 0.87,
  linkCount: 3,
  pipeline: 'csi.sanitize>pose.infer',
};

/**
 * The pose fixture: environment 'lab' has 60 frames two minutes apart (two hourly buckets of
 * 30) with i % 3 persons in frame i; 'office' has 10 frames one minute apart, 30 s after the
 * lab's, each with one person on track 100 (the same track id as lab's first person, to check
 * that environments stay apart).
 */
export function poseFixture(start: number): PoseFrame[] {
  const frames: PoseFrame[] = [];
  for (let i = 0; i < 60; i++) {
    const persons: Person[] = [];
    for (let j = 0; j < i % 3; j++) persons.push(makePerson(j, 100 + j, 0.3 + 0.2 * j + (i % 5) * 0.01, j === 0 ? i * 0.5 : 1, j));
    frames.push({ timestamp: start + i * 120_000, frameId: i, environmentId: 'lab', processingTimeMs: 4.5, persons, metadata: FIXTURE_METADATA });
  }
  for (let i = 0; i < 10; i++) {
    frames.push({ timestamp: start + 30_000 + i * 60_000, frameId: 1000 + i, environmentId: 'office', processingTimeMs: 2, persons: [makePerson(0, 100, 0.9, 5, 5, 'lying')], metadata: FIXTURE_METADATA });
  }
  return frames.sort((a, b) => a.timestamp - b.timestamp);
}

/** An analytics event. */
export function makeEvent(id: string, timestamp: number, overrides: Partial<AnalyticsEvent> = {}): AnalyticsEvent {
  return {
    eventId: id,
    type: 'fall_detection',
    severity: 'high',
    timestamp,
    environmentId: 'lab',
    personId: 0,
    trackId: 100,
    confidence: 0.91,
    location: { x: 1.5, y: 2.5 },
    metadata: { fall_duration: 1.2, impact_severity: 'moderate', recovery_detected: false },
    actionsTaken: ['alert_sent'],
    source: 'healthcare.fall/hip-drop-v1',
    ...overrides,
  };
}

/** An alert. */
export function makeAlert(id: string, timestamp: number, overrides: Partial<Alert> = {}): Alert {
  return {
    alertId: id,
    alertType: 'fall_detected',
    severity: 'critical',
    timestamp,
    environmentId: 'lab',
    message: 'A fall was detected',
    data: { zone: 'bedroom' },
    actionsRequired: ['check_person'],
    eventId: null,
    source: 'healthcare.fall/hip-drop-v1',
    ...overrides,
  };
}

/**
 * A person as every storage returns it: keypoint coordinates and confidences (2D and 3D)
 * rounded to the nearest float32, the precision of the pose model's output tensors (stored
 * values differ from float64 inputs by a relative 2^-24 at most); every other field exact.
 */
export function storedPerson<T extends Pick<Person, 'keypoints' | 'keypoints3d'>>(person: T): T {
  return {
    ...person,
    keypoints: person.keypoints.map((k) => ({ ...k, x: Math.fround(k.x), y: Math.fround(k.y), confidence: Math.fround(k.confidence) })),
    keypoints3d: person.keypoints3d.map((k) => ({ ...k, x: Math.fround(k.x), y: Math.fround(k.y), z: Math.fround(k.z), confidence: Math.fround(k.confidence) })),
  };
}

/** A frame as every storage returns it (see storedPerson). */
export function storedFrame(frame: PoseFrame): PoseFrame {
  return { ...frame, persons: frame.persons.map(storedPerson) };
}

/** A room's sensing second ending at `time` (a still person breathing), with overrides. */
export function makeSensingFrame(time: number, overrides: Partial<SensingFrame> = {}): SensingFrame {
  return {
    time,
    second: 0,
    scope: 'room',
    environmentId: 'lab',
    link: null,
    presence: true,
    state: 'still',
    motion: 0.06,
    breathingBpm: 14.5,
    breathingReason: null,
    breathingQuality: 6.2,
    activity: null,
    falls: [],
    lostFraction: 0.01,
    estimatorId: 'wiflow-sense-v1',
    configHash: '0123456789abcdef',
    provenance: 'replay',
    ...overrides,
  };
}
