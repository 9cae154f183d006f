import type { GroundTruthPerson } from '@wiflow/core';
import { linearSumAssignment } from 'linear-sum-assignment';
import { projectPoint, type EnvironmentGeometry } from '../model/environment.js';

/** A pose hypothesis for one person: floor position and [17][3] keypoints in metres. */
export interface PoseHypothesis {
  position: { x: number; y: number };
  keypoints3d: number[][];
}

/** One evaluated sample: what the model (or a baseline) said and what was true. */
export interface EvaluatedSample {
  environment: EnvironmentGeometry;
  truth: readonly GroundTruthPerson[];
  /** Hypotheses sorted by confidence, most confident first. */
  predicted: readonly (PoseHypothesis & { presence: number })[];
  presenceThreshold: number;
}

/**
 * Figures for one bucket of samples (all with the same true person count, or all samples).
 * Keys are the `--json` output of `wiflow eval` (documented in docs/model.md).
 */
export interface BucketMetrics {
  /** Samples in the bucket. */
  samples: number;
  /** True people in the bucket (pose figures average over them). */
  persons: number;
  /** Mean per-joint 3D position error in mm, room frame (absolute, not root-aligned). */
  mpjpeMm: number | null;
  /** Mean per-joint error after moving both skeletons' hip midpoints to the origin, mm. */
  rootRelativeMpjpeMm: number | null;
  /** Fraction of visible 2D joints within 0.2 × the true torso diameter (left shoulder to right hip, pixels). */
  pck02: number | null;
  /** Mean floor-position error, metres. */
  floorErrorM: number | null;
  /** Mean 3D error per COCO joint (COCO order), mm; null without people. */
  perJointMpjpeMm: number[] | null;
  /** Fraction of samples whose detected count (presence > threshold) equals the true count. */
  countAccuracy: number;
}

/** Pose figures for a baseline (no count: a baseline is given the true count). */
export type BaselineMetrics = Omit<BucketMetrics, 'countAccuracy'>;

const HIP_L = 11, HIP_R = 12, SHOULDER_L = 5;

/**
 * Pair true people with hypotheses one-to-one by least total floor distance, optimal over all
 * truths × all hypotheses given (Hungarian, `linear-sum-assignment`): min(truths, hypotheses)
 * pairs; the people and hypotheses left over are not paired (evaluation counts them in the count
 * figures, not the pose ones). Which hypotheses may be paired is the caller's choice; evaluation
 * passes `scoredHypotheses`.
 */
export function matchPeople<T extends GroundTruthPerson, H extends PoseHypothesis>(truth: readonly T[], hypotheses: readonly H[]): [T, H][] {
  if (truth.length === 0 || hypotheses.length === 0) return [];
  const costs = truth.map((t) => hypotheses.map((h) => Math.hypot(t.position.x - h.position.x, t.position.y - h.position.y)));
  // The library wants at least two candidates; one truth and one hypothesis pair trivially.
  if (truth.length === 1 && hypotheses.length === 1) return [[truth[0], hypotheses[0]]];
  const { rowAssignments } = linearSumAssignment(costs, { maximaze: false });
  const pairs: [T, H][] = [];
  truth.forEach((t, i) => {
    const j = rowAssignments[i];
    if (j >= 0) pairs.push([t, hypotheses[j]]);
  });
  return pairs;
}

/**
 * The hypotheses evaluation may pair with true people: every reported one (presence above the
 * threshold), and when fewer are reported than there are true people, the strongest unreported
 * ones up to the true count. So a person the count head missed is still scored against the
 * estimate's best candidate (pose figures do not hang on the count head), while a candidate
 * nobody was shown is never picked over a reported one just because it lies nearer the truth.
 */
export function scoredHypotheses<H extends PoseHypothesis & { presence: number }>(predicted: readonly H[], truthCount: number, presenceThreshold: number): H[] {
  const strongest = [...predicted].sort((a, b) => b.presence - a.presence);
  const reported = strongest.filter((h) => h.presence > presenceThreshold).length;
  return strongest.slice(0, Math.max(reported, truthCount));
}

/** The pairs a sample's pose figures are scored on: `matchPeople` over `scoredHypotheses`. */
export function scoredPairs<H extends PoseHypothesis & { presence: number }>(sample: { truth: readonly GroundTruthPerson[]; predicted: readonly H[]; presenceThreshold: number }): [GroundTruthPerson, H][] {
  return matchPeople(sample.truth, scoredHypotheses(sample.predicted, sample.truth.length, sample.presenceThreshold));
}

function jointError(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** Accumulates bucket figures. */
class BucketAccumulator {
  samples = 0;
  persons = 0;
  countCorrect = 0;
  joints = 0;
  jointErrorSum = 0;
  rootErrorSum = 0;
  floorErrorSum = 0;
  pckHits = 0;
  pckJoints = 0;
  readonly jointErrorByIndex = new Float64Array(17);

  addPerson(environment: EnvironmentGeometry, truth: GroundTruthPerson, hyp: PoseHypothesis): void {
    this.persons++;
    this.floorErrorSum += Math.hypot(truth.position.x - hyp.position.x, truth.position.y - hyp.position.y);
    const rootOf = (k: readonly number[][]) => [0, 1, 2].map((d) => (k[HIP_L][d] + k[HIP_R][d]) / 2);
    const rt = rootOf(truth.keypoints3d), rh = rootOf(hyp.keypoints3d);
    for (let j = 0; j < 17; j++) {
      this.joints++;
      const error = jointError(truth.keypoints3d[j], hyp.keypoints3d[j]);
      this.jointErrorSum += error;
      this.jointErrorByIndex[j] += error;
      this.rootErrorSum += jointError(truth.keypoints3d[j].map((v, d) => v - rt[d]), hyp.keypoints3d[j].map((v, d) => v - rh[d]));
    }
    const camera = environment.camera;
    const t2 = truth.keypoints3d.map((p) => projectPoint(camera, p));
    const shoulder = t2[SHOULDER_L], hip = t2[HIP_R];
    if (!shoulder.visible || !hip.visible) return;
    const reference = 0.2 * Math.hypot(shoulder.x - hip.x, shoulder.y - hip.y);
    for (let j = 0; j < 17; j++) {
      if (!t2[j].visible) continue;
      const p = projectPoint(camera, hyp.keypoints3d[j]);
      this.pckJoints++;
      if (Number.isFinite(p.x) && Math.hypot(p.x - t2[j].x, p.y - t2[j].y) <= reference) this.pckHits++;
    }
  }

  result(): BucketMetrics {
    const per = (sum: number, n: number, scale = 1) => (n > 0 ? (sum / n) * scale : null);
    return {
      samples: this.samples,
      persons: this.persons,
      mpjpeMm: per(this.jointErrorSum, this.joints, 1000),
      rootRelativeMpjpeMm: per(this.rootErrorSum, this.joints, 1000),
      pck02: per(this.pckHits, this.pckJoints),
      floorErrorM: per(this.floorErrorSum, this.persons),
      perJointMpjpeMm: this.persons > 0 ? Array.from(this.jointErrorByIndex, (sum) => (sum / this.persons) * 1000) : null,
      countAccuracy: this.samples > 0 ? this.countCorrect / this.samples : 0,
    };
  }
}

/** Training-set mean pose: per joint the mean offset from the floor position (x, y) and mean height (z). */
export function meanPose(persons: Iterable<GroundTruthPerson>): number[][] {
  const sum = Array.from({ length: 17 }, () => [0, 0, 0]);
  let n = 0;
  for (const p of persons) {
    n++;
    for (let j = 0; j < 17; j++) {
      sum[j][0] += p.keypoints3d[j][0] - p.position.x;
      sum[j][1] += p.keypoints3d[j][1] - p.position.y;
      sum[j][2] += p.keypoints3d[j][2];
    }
  }
  if (n === 0) throw new Error('mean pose of an empty set');
  return sum.map((v) => v.map((s) => s / n));
}

/** The mean pose standing at a floor position. */
export function placePose(pose: readonly number[][], position: { x: number; y: number }): PoseHypothesis {
  return { position, keypoints3d: pose.map((p) => [p[0] + position.x, p[1] + position.y, p[2]]) };
}

/** Everything `wiflow eval` reports (the `--json` output). */
export interface EvaluationReport {
  /** Buckets keyed by true person count ('0', '1', ...) plus 'all'. */
  model: Record<string, BucketMetrics>;
  baselines: {
    /** The training-set mean pose placed at each true floor position. */
    meanPoseAtTruePosition: Record<string, BaselineMetrics>;
    /** The training-set mean pose placed at the room centre. */
    meanPoseAtRoomCentre: Record<string, BaselineMetrics>;
  };
}

/** Score model hypotheses and both baselines on the same samples, per true person-count bucket. */
export function evaluateSamples(samples: Iterable<EvaluatedSample>, trainingMeanPose: readonly number[][]): EvaluationReport {
  const model = new Map<string, BucketAccumulator>();
  const atTrue = new Map<string, BucketAccumulator>();
  const atCentre = new Map<string, BucketAccumulator>();
  const bucket = (map: Map<string, BucketAccumulator>, key: string) => {
    let b = map.get(key);
    if (!b) map.set(key, (b = new BucketAccumulator()));
    return b;
  };
  for (const sample of samples) {
    const keys = [String(sample.truth.length), 'all'];
    const detected = sample.predicted.filter((p) => p.presence > sample.presenceThreshold).length;
    const centre = { x: sample.environment.room.width / 2, y: sample.environment.room.depth / 2 };
    for (const key of keys) {
      const m = bucket(model, key), bt = bucket(atTrue, key), bc = bucket(atCentre, key);
      m.samples++; bt.samples++; bc.samples++;
      if (detected === sample.truth.length) m.countCorrect++;
      for (const [truth, hyp] of scoredPairs(sample)) m.addPerson(sample.environment, truth, hyp);
      for (const truth of sample.truth) {
        bt.addPerson(sample.environment, truth, placePose(trainingMeanPose, truth.position));
        bc.addPerson(sample.environment, truth, placePose(trainingMeanPose, centre));
      }
    }
  }
  const finish = (map: Map<string, BucketAccumulator>) => Object.fromEntries([...map.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, v.result()]));
  const strip = (r: Record<string, BucketMetrics>) => Object.fromEntries(Object.entries(r).map(([k, { countAccuracy: _c, ...rest }]) => [k, rest]));
  return { model: finish(model), baselines: { meanPoseAtTruePosition: strip(finish(atTrue)), meanPoseAtRoomCentre: strip(finish(atCentre)) } };
}
