import { loadLocatorModel, SHIPPED_LOCATOR_DIR, type LocatorModel } from '../locate/locator-model.js';
import { placePose } from '../eval/metrics.js';
import { ROOM_POSE_TRAINING } from './eval-calibrated.js';
import { DEFAULT_PROBE } from './person-probe.js';
import { cameraLabel, drawRoomPair, loadSimulator, protocolSessions, runSession, SMALL_PROTOCOL, type ProtocolSizes } from './protocol.js';
import { meanReprojectionError, packReprojectionRows, reprojectionRows, type ReprojectionFigure, type ReprojectionRow } from './reprojection.js';

export type { ReprojectionFigure } from './reprojection.js';
import { productSkeleton, trainingRows } from './room-pose-estimator.js';
import { chooseProduct, HELD_OUT_FRACTION, ROOM_POSE_PRODUCTS, splitAtEnd, type RoomPoseProduct } from './room-pose-choice.js';
import { fitRoomPose, predictSkeleton, ROOM_POSE_MODEL_ID, type RoomPoseModel, type RoomPoseRows, type RoomPoseSpec } from './room-pose-model.js';

/** What `wiflow eval-calibrated --labels 2d --json` prints. */
export interface ReprojectionReport {
  modelId: string;
  environmentId: string;
  realism: 'none' | 'v2';
  protocol: ProtocolSizes;
  /** Rows (located people within 1 m of a labelled person, placed from its ankles). */
  rows: { twin: number; labelled2d: number; heldOut: number };
  /** Held-out sessions (new people, new scripts), labels from the room's camera. */
  heldOut: { locatedMeanPose: ReprojectionFigure; twinOnly: ReprojectionFigure; fineTuned2d: ReprojectionFigure; product: ReprojectionFigure };
  /** What `wiflow calibrate` would ship from these 2D-labelled minutes (fallback-protocol.md): chosen on the last 20 % of their rows, candidates fitted on the first 80 %; `heldOut.product` scores it on the test sessions. */
  choice: { use: RoomPoseProduct; heldOutRows: number; heldOutPx: Record<RoomPoseProduct, number | null>; reason: string };
  /** The labelled sessions the fine-tuning fitted (not a generalisation figure): what the reprojection loss reached. */
  labelled: { twinOnly: ReprojectionFigure; fineTuned2d: ReprojectionFigure };
  /** Whether fine-tuning on 2D labels beat the twin-only model on held-out reprojection. */
  fineTunedBeatsTwin: boolean | null;
  cpuSeconds: number;
}

function rowsOf(list: { features: Float32Array; target: Float32Array }[], width: number): RoomPoseRows {
  const features = new Float32Array(list.length * width), targets = new Float32Array(list.length * 51);
  list.forEach((r, i) => { features.set(r.features, i * width); targets.set(r.target, i * 51); });
  return { features, targets, count: list.length, width };
}

/**
 * Fine-tuning from 2D-only labels, in the calibration protocol: pre-train on the twin (3D truth),
 * fine-tune on the labelled sessions' COCO 2D keypoints only (reprojection loss through the
 * declared camera), and score on the held-out sessions (new people and scripts) by reprojection
 * error against their camera labels, beside the twin-only model and the located mean pose.
 */
export async function evaluateReprojection(options: { sizes?: ProtocolSizes; seed?: string; realism?: 'none' | 'v2'; locator?: LocatorModel; onProgress?: (line: string) => void } = {}): Promise<ReprojectionReport> {
  const started = process.cpuUsage();
  const sim = await loadSimulator();
  const locator = options.locator ?? loadLocatorModel(SHIPPED_LOCATOR_DIR);
  const sizes = options.sizes ?? SMALL_PROTOCOL;
  const pair = { ...drawRoomPair(sim, options.seed ?? 'calibrated-1'), realism: options.realism ?? 'v2' };
  const camera = pair.environment.camera;
  const say = options.onProgress ?? (() => {});
  const twinRows: { features: Float32Array; target: Float32Array }[] = [];
  const labelled: ReprojectionRow[] = [];
  const heldOut: ReprojectionRow[] = [];
  let width = 0;
  for (const plan of protocolSessions(sizes)) {
    say(`simulating ${plan.role} session ${plan.seed} (${plan.seconds} s)`);
    for (const p of runSession(sim, pair, plan, locator)) {
      width = p.instant.features[0]?.length ?? width;
      if (plan.role === 'twin') twinRows.push(...trainingRows(p.instant, p.truth));
      // 2D only: the camera's COCO keypoints; the 3D the simulator knows is never read.
      else if (plan.role === 'labelled') { if (p.label) labelled.push(...reprojectionRows(p.instant, camera, p.label.persons.map((q) => ({ keypoints2d: q.keypoints2d })))); }
      else heldOut.push(...reprojectionRows(p.instant, camera, cameraLabel(pair.environment, { time: p.instant.located.time, persons: p.truth } as never).persons));
    }
  }
  const base: Omit<RoomPoseSpec, 'layers' | 'featureMean' | 'featureStd' | 'meanPose'> = { format: 'wiflow-room-pose/1', modelId: ROOM_POSE_MODEL_ID, environmentId: pair.environmentId, probe: DEFAULT_PROBE, training: {} };
  say(`pre-training on the twin: ${twinRows.length} rows`);
  const twinFit = await fitRoomPose(rowsOf(twinRows, width), base, { ...ROOM_POSE_TRAINING.twin, seed: ROOM_POSE_TRAINING.seed });
  const twin: RoomPoseModel = { spec: twinFit.spec, weights: twinFit.weights, hash: '', directory: '(in memory)' };
  say(`fine-tuning on ${labelled.length} 2D-labelled rows`);
  const fit = await fitRoomPose(packReprojectionRows(labelled, width, camera), base, { ...ROOM_POSE_TRAINING.fineTune, seed: ROOM_POSE_TRAINING.seed, from: twin });
  const tuned: RoomPoseModel = { spec: fit.spec, weights: fit.weights, hash: '', directory: '(in memory)' };
  // The choice, as `wiflow calibrate` makes it from 2D labels without --held-out (no 3D posture to average: the locator's mean pose is the simple candidate).
  const posture = locator.spec.meanPose;
  const split = splitAtEnd(labelled, HELD_OUT_FRACTION);
  say(`choosing on the last ${split.heldOut.length} 2D-labelled rows`);
  const candidateFit = await fitRoomPose(packReprojectionRows(split.fitted, width, camera), base, { ...ROOM_POSE_TRAINING.fineTune, seed: ROOM_POSE_TRAINING.seed, from: twin });
  const candidate: RoomPoseModel = { spec: candidateFit.spec, weights: candidateFit.weights, hash: '', directory: '(in memory)' };
  const heldOutPx = Object.fromEntries(ROOM_POSE_PRODUCTS.map((c) => [c, meanReprojectionError(split.heldOut, camera, (r) => productSkeleton(c, posture, candidate, r.features, r.position)).meanPx])) as Record<RoomPoseProduct, number | null>;
  const chosen = chooseProduct(heldOutPx, split.heldOut.length, 'reprojectionPx');
  const figures = {
    product: meanReprojectionError(heldOut, camera, (r) => productSkeleton(chosen.use, posture, tuned, r.features, r.position)),
    locatedMeanPose: meanReprojectionError(heldOut, camera, (r) => placePose(locator.spec.meanPose, r.position).keypoints3d),
    twinOnly: meanReprojectionError(heldOut, camera, (r) => predictSkeleton(twin, r.features, r.position)),
    fineTuned2d: meanReprojectionError(heldOut, camera, (r) => predictSkeleton(tuned, r.features, r.position)),
  };
  const fitted = {
    twinOnly: meanReprojectionError(labelled, camera, (r) => predictSkeleton(twin, r.features, r.position)),
    fineTuned2d: meanReprojectionError(labelled, camera, (r) => predictSkeleton(tuned, r.features, r.position)),
  };
  const u = process.cpuUsage(started);
  return {
    modelId: ROOM_POSE_MODEL_ID,
    environmentId: pair.environmentId,
    realism: pair.realism,
    protocol: sizes,
    rows: { twin: twinRows.length, labelled2d: labelled.length, heldOut: heldOut.length },
    heldOut: figures,
    choice: { use: chosen.use, heldOutRows: split.heldOut.length, heldOutPx, reason: chosen.reason },
    labelled: fitted,
    fineTunedBeatsTwin: figures.fineTuned2d.meanPx === null || figures.twinOnly.meanPx === null ? null : figures.fineTuned2d.meanPx < figures.twinOnly.meanPx,
    cpuSeconds: (u.user + u.system) / 1e6,
  };
}

/** The 2D report as lines. */
export function formatReprojectionReport(r: ReprojectionReport): string[] {
  const px = (f: ReprojectionFigure) => (f.meanPx === null ? '—' : `${f.meanPx.toFixed(1)} px`);
  return [
    `${r.modelId} in ${r.environmentId}, fine-tuned on 2D labels only (realism ${r.realism}): ${r.rows.twin} twin rows, ${r.rows.labelled2d} 2D-labelled rows, ${r.rows.heldOut} held-out rows`,
    `held-out reprojection error (mean over ${r.heldOut.twinOnly.joints} labelled joints): located mean pose ${px(r.heldOut.locatedMeanPose)}, twin only ${px(r.heldOut.twinOnly)}, fine-tuned on 2D ${px(r.heldOut.fineTuned2d)}`,
    `the product (uses ${r.choice.use}: ${r.choice.reason}): held-out ${px(r.heldOut.product)}`,
    `labelled sessions the fine-tuning fitted: twin only ${px(r.labelled.twinOnly)}, fine-tuned on 2D ${px(r.labelled.fineTuned2d)}`,
    r.fineTunedBeatsTwin === null ? 'no held-out rows: nothing to compare' : r.fineTunedBeatsTwin ? 'fine-tuning on 2D labels beats the twin-only model' : 'fine-tuning on 2D labels does NOT beat the twin-only model',
    `whole run: ${r.cpuSeconds.toFixed(0)} CPU-seconds`,
  ];
}
