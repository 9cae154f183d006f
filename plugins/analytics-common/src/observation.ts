import { COCO_KEYPOINTS, type BoundingBox, type GroundTruthFrame, type Keypoint, type Keypoint3D, type Person, type PoseFrame } from '@wiflow/core';
import { SeededRandom } from './random.js';

/**
 * How a pose model's output differs from the truth. Defaults are set from what published
 * WiFi pose systems reach (MPJPE ≈ 90–125 mm for 1–3 people, Person-in-WiFi 3D): a per-joint
 * jitter of 6 cm, a floor-position error of 10 cm that drifts slowly (correlated over ~1 s),
 * 3 % missed detections and 2 % of frames with a spurious person.
 */
export interface ObservationNoise {
  /** Per-joint, per-frame Gaussian jitter (m). */
  keypointSigma: number;
  /** Slowly varying error of the whole body's floor position (m). */
  positionSigma: number;
  /** Correlation time of the position error (s). */
  positionCorrelationS: number;
  /** Probability a present person is not detected in a frame. */
  missRate: number;
  /** Probability a frame carries one spurious person. */
  falseRate: number;
  /** Room extent for spurious persons ([width, depth] m). */
  room: [number, number];
}

/** Defaults of `ObservationNoise`. */
export const DEFAULT_OBSERVATION_NOISE: ObservationNoise = {
  keypointSigma: 0.06,
  positionSigma: 0.1,
  positionCorrelationS: 1,
  missRate: 0.03,
  falseRate: 0.02,
  room: [8, 6],
};

/** No noise at all: detections equal the truth. */
export const NO_OBSERVATION_NOISE: ObservationNoise = { keypointSigma: 0, positionSigma: 0, positionCorrelationS: 1, missRate: 0, falseRate: 0, room: [8, 6] };

const PIXELS_PER_M = 80;
const IMAGE_W = 640;
const IMAGE_H = 480;

/**
 * Image-plane keypoints from 3D ones with a simple front view of the room (x → u, z → v,
 * 80 px per metre, origin at the image's lower-left). Analytics use floor positions and 3D
 * joints; the 2D plane only has to be consistent.
 */
export function projectFrontView(keypoints3d: readonly Keypoint3D[]): { keypoints: Keypoint[]; boundingBox: BoundingBox } {
  const keypoints: Keypoint[] = keypoints3d.map((k) => ({ name: k.name, x: k.x * PIXELS_PER_M, y: IMAGE_H - k.z * PIXELS_PER_M, confidence: k.confidence, visible: k.confidence > 0.3 }));
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const k of keypoints) {
    minX = Math.min(minX, k.x);
    maxX = Math.max(maxX, k.x);
    minY = Math.min(minY, k.y);
    maxY = Math.max(maxY, k.y);
  }
  const pad = 8;
  const x = Math.max(0, minX - pad);
  const y = Math.max(0, minY - pad);
  return { keypoints, boundingBox: { x, y, width: Math.min(IMAGE_W, maxX + pad) - x, height: Math.min(IMAGE_H, maxY + pad) - y } };
}

/** The truth of one person as a noiseless detection. */
export function personFromTruth(truth: { keypoints3d: number[][] }, index: number, confidence = 1): Person {
  const keypoints3d: Keypoint3D[] = COCO_KEYPOINTS.map((name, i) => {
    const p = truth.keypoints3d[i];
    if (!p || p.length < 3) throw new Error(`ground-truth person has no joint ${i} (${name}); expected 17 [x, y, z] joints`);
    return { name, x: p[0], y: p[1], z: p[2], confidence };
  });
  const { keypoints, boundingBox } = projectFrontView(keypoints3d);
  const lh = keypoints3d[11];
  const rh = keypoints3d[12];
  return { id: index, trackId: null, confidence, keypoints, boundingBox, keypoints3d, position: { x: (lh.x + rh.x) / 2, y: (lh.y + rh.y) / 2 }, activity: null };
}

/**
 * Turns ground-truth frames into pose frames as a pose model would give them: joints with
 * jitter, floor positions with a slowly drifting error, missed people, spurious people, and
 * persons in shuffled order without track ids. Seeded, so runs are reproducible.
 */
export class PoseObserver {
  readonly noise: ObservationNoise;
  readonly #rng: SeededRandom;
  readonly #drift = new Map<number, { x: number; y: number; time: number }>();
  #frameId = 0;

  constructor(options: { seed?: number; noise?: Partial<ObservationNoise> } = {}) {
    this.noise = { ...DEFAULT_OBSERVATION_NOISE, ...(options.noise ?? {}) };
    for (const key of ['keypointSigma', 'positionSigma', 'missRate', 'falseRate'] as const) {
      const v = this.noise[key];
      if (!Number.isFinite(v) || v < 0) throw new Error(`observation noise ${key} must be a non-negative number, got ${v}`);
    }
    if (this.noise.missRate > 1 || this.noise.falseRate > 1) throw new Error('observation noise rates must be at most 1');
    this.#rng = new SeededRandom(options.seed ?? 1);
  }

  /** The pose frame a model would produce for this truth frame. */
  observe(truth: GroundTruthFrame): PoseFrame {
    const rng = this.#rng;
    const n = this.noise;
    const persons: Person[] = [];
    for (const gt of truth.persons) {
      const drift = this.#driftOf(gt.id, truth.time);
      if (rng.next() < n.missRate) continue;
      const confidence = Math.min(0.99, Math.max(0.35, 0.85 + rng.gaussian(0.07)));
      const joints = gt.keypoints3d.map((p) => [p[0] + drift.x + rng.gaussian(n.keypointSigma), p[1] + drift.y + rng.gaussian(n.keypointSigma), p[2] + rng.gaussian(n.keypointSigma)]);
      const person = personFromTruth({ keypoints3d: joints }, 0, confidence);
      person.keypoints3d.forEach((k) => (k.confidence = Math.min(1, Math.max(0, confidence + rng.gaussian(0.05)))));
      persons.push(person);
    }
    if (rng.next() < n.falseRate) {
      const x = rng.uniform(0, n.room[0]);
      const y = rng.uniform(0, n.room[1]);
      const joints = SPURIOUS.map(([u, v, z]) => [x + u + rng.gaussian(0.1), y + v + rng.gaussian(0.1), Math.max(0, z + rng.gaussian(0.15))]);
      persons.push(personFromTruth({ keypoints3d: joints }, 0, rng.uniform(0.3, 0.6)));
    }
    for (let i = persons.length - 1; i > 0; i--) {
      const j = Math.floor(rng.next() * (i + 1));
      [persons[i], persons[j]] = [persons[j], persons[i]];
    }
    persons.forEach((p, i) => (p.id = i));
    return {
      timestamp: truth.time,
      frameId: this.#frameId++,
      environmentId: truth.environmentId,
      processingTimeMs: 0,
      persons,
      metadata: { modelId: 'truth+noise', modelHash: '', modelVersion: 'observation-v1', processingMode: 'simulated', provenance: 'simulated', csiQuality: null, linkCount: 0, pipeline: 'ground truth + PoseObserver noise' },
      truth,
    };
  }

  /** Ornstein–Uhlenbeck drift of one person's position error. */
  #driftOf(id: number, time: number): { x: number; y: number } {
    const n = this.noise;
    const prev = this.#drift.get(id);
    const sigma = n.positionSigma;
    if (!prev || sigma === 0) {
      const d = { x: this.#rng.gaussian(sigma), y: this.#rng.gaussian(sigma), time };
      this.#drift.set(id, d);
      return d;
    }
    const dt = Math.max(0, (time - prev.time) / 1000);
    const a = Math.exp(-dt / Math.max(1e-3, n.positionCorrelationS));
    const b = sigma * Math.sqrt(1 - a * a);
    const d = { x: prev.x * a + this.#rng.gaussian(b), y: prev.y * a + this.#rng.gaussian(b), time };
    this.#drift.set(id, d);
    return d;
  }
}

// A spurious detection: a vague upright body (model ghosts look like people, not noise).
const SPURIOUS: number[][] = [
  [0.09, 0, 1.6], [0.07, 0.03, 1.64], [0.07, -0.03, 1.64], [0, 0.075, 1.61], [0, -0.075, 1.61],
  [0, 0.19, 1.4], [0, -0.19, 1.4], [0, 0.22, 1.1], [0, -0.22, 1.1], [0.03, 0.22, 0.85], [0.03, -0.22, 0.85],
  [0, 0.1, 0.9], [0, -0.1, 0.9], [0.02, 0.1, 0.5], [0.02, -0.1, 0.5], [0, 0.1, 0.08], [0, -0.1, 0.08],
];

/** Observe a whole list of truth frames with one observer. */
export function observeTruth(frames: Iterable<GroundTruthFrame>, options: { seed?: number; noise?: Partial<ObservationNoise> } = {}): PoseFrame[] {
  const observer = new PoseObserver(options);
  const out: PoseFrame[] = [];
  for (const f of frames) out.push(observer.observe(f));
  return out;
}
