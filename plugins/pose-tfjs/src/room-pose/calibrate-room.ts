import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { GroundTruthPerson, RoomPoseHeldOutFigures } from '@wiflow/core';
import type * as SimPackage from '@wiflow/plugin-sim';
import { PoseErrors } from '../errors.js';
import { evaluateSamples, type EvaluatedSample } from '../eval/metrics.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR, type LocatorModel } from '../locate/locator-model.js';
import type { EmptyRoomReference } from '../locate/reference.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import type { LabelledInstant } from '../calibrate/coco-labels.js';
import { readLabelledRoomRecording, type LabelledRoomRecording } from './labelled-room-recording.js';
import { DEFAULT_PROBE } from './person-probe.js';
import { loadSimulator, runSession, type RoomPair } from './protocol.js';
import { labelledPosition, locatedMeanPose, productHypotheses, productSkeleton, RoomPoseEstimator, trainingRows, type RoomPoseInstant } from './room-pose-estimator.js';
import { chooseProduct, HELD_OUT_FRACTION, labelledMeanPosture, ROOM_POSE_PRODUCTS, splitByTime, type RoomPoseChoice } from './room-pose-choice.js';
import { chooseOnHeldOut3d } from './room-pose-candidates.js';
import { meanReprojectionError, packReprojectionRows, reprojectionRows } from './reprojection.js';
import { fitRoomPose, ROOM_POSE_JSON, ROOM_POSE_MODEL_ID, saveRoomPoseModel, type RoomPoseModel, type RoomPoseSpec } from './room-pose-model.js';
import { ROOM_POSE_TRAINING } from './eval-calibrated.js';
import { roomModelDirectory } from './room-model-directory.js';
import { writeCalibrationRecord } from './calibration-record.js';

export { environmentDirectoryName, roomModelDirectory } from './room-model-directory.js';

/** Options of `calibrateRoom`. */
export interface CalibrateRoomOptions {
  /** Labelled recording of the room (the minutes that fine-tune). */
  recordingDir: string;
  /** A later labelled recording of the same room with other people, for the held-out report. */
  heldOutDir?: string;
  /** Directory holding one model directory per environment (`<modelsDir>/<environment id>/`). */
  modelsDir: string;
  /** Simulated seconds of the room's twin to pre-train on. */
  twinSeconds?: number;
  locator?: LocatorModel;
  /** Also write the twin and labelled rows here (for the GPU path, `scripts/train-room-pose-gpu.py`). */
  exportRowsDir?: string;
  /** Progress: a guided step (1..total) and what it does. */
  onStep?: (step: number, total: number, text: string) => void;
}

/** Figures of the held-out report (3D labels): the room model next to the located mean pose (core's type: the studio shows them). */
export type HeldOutFigures = RoomPoseHeldOutFigures;

/** What `wiflow calibrate` reports. */
export interface RoomCalibrationResult {
  environmentId: string;
  modelDir: string;
  modelId: string;
  modelHash: string;
  twinRows: number;
  labelledRows: number;
  /** What the labelled recording's labels held: 3D keypoints, or 2D only (reprojection loss through the declared camera). */
  labels: '2d' | '3d';
  labelledSeconds: number;
  fineTuneCpuSeconds: number;
  /** Null (with `heldOutReason`) when no held-out recording was given. */
  heldOut: { locatedMeanPose: HeldOutFigures; roomModel: HeldOutFigures } | null;
  heldOutReason: string | null;
  /** What the room's pipeline emits and why: each candidate's held-out figure (fallback-protocol.md). */
  choice: Omit<RoomPoseChoice, 'posture'>;
}

/** Rows for another trainer: `features.bin` and `targets.bin` (float32 little-endian, row-major) and `rows.json` ({count, width}). */
function writeRows(directory: string, rows: { features: Float32Array; targets: Float32Array; count: number; width: number }): void {
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, 'features.bin'), Buffer.from(rows.features.buffer, rows.features.byteOffset, rows.features.byteLength));
  writeFileSync(path.join(directory, 'targets.bin'), Buffer.from(rows.targets.buffer, rows.targets.byteOffset, rows.targets.byteLength));
  writeFileSync(path.join(directory, 'rows.json'), JSON.stringify({ count: rows.count, width: rows.width, targets: 51 }));
}


/** Refuse to write over another environment's model. */
function checkOwner(directory: string, environmentId: string): void {
  const file = path.join(directory, ROOM_POSE_JSON);
  if (!existsSync(file)) return;
  let owner: string | undefined;
  try { owner = (JSON.parse(readFileSync(file, 'utf8')) as { environmentId?: string }).environmentId; } catch { owner = '(unreadable room-pose.json)'; }
  if (owner !== environmentId) throw PoseErrors.roomModelConflict(directory, String(owner), environmentId);
}

/**
 * The room's twin from what the user declared: the room box, the radios where the environment
 * puts them (arrays as declared), guessed materials, no furniture. The subcarrier grid must be
 * one the simulator has (30 grouped subcarriers: Intel 5300).
 */
export function twinFromEnvironment(environment: EnvironmentGeometry, reference: EmptyRoomReference): SimPackage.RandomRoom {
  const first = reference.links[0];
  if (first.subcarriers.length !== 30) throw PoseErrors.datasetInvalid(`the twin of ${environment.id} needs a simulated radio with this reference's ${first.subcarriers.length} subcarriers; only Intel 5300's 30 are simulated for room-pose`);
  const radios = new Map<string, NonNullable<SimPackage.RandomRoom['radios']>[number]>();
  for (const l of environment.links) {
    radios.set(l.tx, { id: l.tx, role: 'tx', device: 'intel5300', position: l.txPosition, yawDeg: l.txArray?.yawDeg ?? 0, antennas: l.txArray?.antennas ?? 3 });
    radios.set(l.rx, { id: l.rx, role: 'rx', device: 'intel5300', position: l.rxPosition, yawDeg: l.rxArray?.yawDeg ?? 0, antennas: l.rxArray?.antennas ?? 3 });
  }
  return {
    roomId: environment.id,
    room: { ...environment.room, materials: { walls: 'plasterboard', floor: 'concrete', ceiling: 'plasterboard' } },
    clutter: [],
    channel: { centerFrequencyHz: first.centerFrequencyHz, bandwidthMHz: 20, rateHz: 20, txPowerDbm: 20 },
    radios: [...radios.values()],
    propagation: { maxReflectionOrder: 2, bodyScattering: true, shadowing: true, bodyReflectivity: 0.6 },
  } as SimPackage.RandomRoom;
}

/** An estimate of a labelled recording with the label nearest in time, if any. */
interface LabelledEstimate {
  instant: RoomPoseInstant;
  label: LabelledInstant | null;
}

/** Estimates of a labelled recording, each with the label nearest in time (within `toleranceMs`), or none. */
function labelledEstimates(recording: LabelledRoomRecording, locator: LocatorModel, model: RoomPoseModel | null, toleranceMs = 100): LabelledEstimate[] {
  const estimator = new RoomPoseEstimator(locator, recording.environment, recording.reference, model);
  const frames = [...recording.frames].sort((a, b) => a.time - b.time);
  const out: { instant: RoomPoseInstant; label: LabelledInstant | null }[] = [];
  let li = 0;
  for (const frame of frames) {
    const instant = estimator.locate(frame);
    if (!instant) continue;
    const t = instant.located.time;
    while (li + 1 < recording.labels.length && Math.abs(recording.labels[li + 1].time - t) <= Math.abs(recording.labels[li].time - t)) li++;
    const label = recording.labels[li] && Math.abs(recording.labels[li].time - t) <= toleranceMs ? recording.labels[li] : null;
    out.push({ instant, label });
  }
  return out;
}

/** The choice as the calibration record and the report give it (the posture stays in room-pose.json). */
function withoutPosture(choice: RoomPoseChoice): Omit<RoomPoseChoice, 'posture'> {
  const { posture: _posture, ...rest } = choice;
  return rest;
}

/** A labelled instant's people as evaluation takes them (3D keypoints, placed at their hips). */
function labelTruth(label: LabelledInstant): GroundTruthPerson[] {
  return label.persons.map((p, id): GroundTruthPerson => ({ id, keypoints3d: p.keypoints3d!, position: labelledPosition(p.keypoints3d!), activity: 'standing' }));
}

function heldOutFigures(estimates: { instant: RoomPoseInstant; label: LabelledInstant | null }[], environment: EnvironmentGeometry, hypotheses: (i: RoomPoseInstant) => EvaluatedSample['predicted'], threshold: number, meanPose: number[][]): HeldOutFigures {
  const samples: EvaluatedSample[] = estimates.filter((e) => e.label).map((e) => ({
    environment,
    truth: labelTruth(e.label!),
    predicted: hypotheses(e.instant),
    presenceThreshold: threshold,
  }));
  const all = evaluateSamples(samples, meanPose).model.all;
  return { estimates: samples.length, mpjpeMm: all?.mpjpeMm ?? null, rootRelativeMpjpeMm: all?.rootRelativeMpjpeMm ?? null, pck02: all?.pck02 ?? null, countExact: all?.countAccuracy ?? 0, floorErrorM: all?.floorErrorM ?? null };
}

/**
 * `wiflow calibrate`, guided: (1) read and check the labelled recording and its empty-room
 * reference; (2) pre-train on the room's simulated twin; (3) fine-tune on the labelled minutes;
 * (4) report on a later recording with other people (never the end of the labelled one) and
 * write the model into the environment's own directory.
 */
export async function calibrateRoom(options: CalibrateRoomOptions): Promise<RoomCalibrationResult> {
  const step = options.onStep ?? (() => {});
  const total = 4;
  step(1, total, `reading ${options.recordingDir}: environment, empty-room reference, capture, labels`);
  const recording = await readLabelledRoomRecording(options.recordingDir);
  const heldOut = options.heldOutDir ? await readLabelledRoomRecording(options.heldOutDir) : null;
  if (heldOut) {
    if (heldOut.environment.id !== recording.environment.id) throw PoseErrors.labelsInvalid(`${path.join(heldOut.directory, 'environment.json')}: field id is ${heldOut.environment.id}, the labelled recording's is ${recording.environment.id}`);
  }
  const environment = recording.environment;
  const modelDir = roomModelDirectory(options.modelsDir, environment.id);
  checkOwner(modelDir, environment.id);
  const locator = options.locator ?? loadLocatorModel(SHIPPED_LOCATOR_DIR);

  const twinSeconds = options.twinSeconds ?? 600;
  step(2, total, `pre-training on the simulated twin of ${environment.id} (${twinSeconds} s of simulated people)`);
  const sim = await loadSimulator();
  const twin = twinFromEnvironment(environment, recording.reference);
  const pair: RoomPair = { environmentId: environment.id, real: twin, twin, environment };
  const twinRows: { features: Float32Array; target: Float32Array }[] = [];
  for (let i = 0, left = twinSeconds; left > 0; i++, left -= 60) {
    for (const p of runSession(sim, pair, { role: 'twin', seed: `t${i}`, seconds: Math.min(60, left), people: [1, 3], personHeight: [1.45, 1.95] }, locator)) twinRows.push(...trainingRows(p.instant, p.truth));
  }
  const width = DEFAULT_PROBE.heightsM.length * DEFAULT_PROBE.offsetsM.length * 2 * environment.links.length + 2 * environment.links.length;
  const pack = (list: { features: Float32Array; target: Float32Array }[]) => {
    const features = new Float32Array(list.length * width), targets = new Float32Array(list.length * 51);
    list.forEach((r, i) => { features.set(r.features, i * width); targets.set(r.target, i * 51); });
    return { features, targets, count: list.length, width };
  };
  const base: Omit<RoomPoseSpec, 'layers' | 'featureMean' | 'featureStd' | 'meanPose'> = { format: 'wiflow-room-pose/1', modelId: ROOM_POSE_MODEL_ID, environmentId: environment.id, probe: DEFAULT_PROBE, training: {} };
  const twinFit = await fitRoomPose(pack(twinRows), base, { ...ROOM_POSE_TRAINING.twin, seed: ROOM_POSE_TRAINING.seed });
  const twinModel: RoomPoseModel = { spec: twinFit.spec, weights: twinFit.weights, hash: '', directory: '(twin, in memory)' };

  step(3, total, `fine-tuning on the labelled minutes of ${options.recordingDir}`);
  // 3D labels when every labelled person has them; otherwise the 2D keypoints, through the declared camera.
  const labels: '2d' | '3d' = recording.has3d ? '3d' : '2d';
  const estimates = labelledEstimates(recording, locator, null);
  const rows3d = (list: LabelledEstimate[]) => (labels === '3d' ? list.flatMap((e) => (e.label ? trainingRows(e.instant, e.label.persons.map((p) => ({ keypoints3d: p.keypoints3d! }))) : [])) : []);
  const rows2d = (list: LabelledEstimate[]) => list.flatMap((e) => (e.label ? reprojectionRows(e.instant, environment.camera, e.label.persons) : []));
  const labelledRows = rows3d(estimates);
  const labelled2d = labels === '2d' ? rows2d(estimates) : [];
  const rowCount = labelledRows.length + labelled2d.length;
  if (rowCount < 10) throw PoseErrors.labelsInvalid(`${path.join(options.recordingDir, 'labels.json')}: only ${rowCount} labelled people matched a located person within 1 m${labels === '2d' ? ' (2D labels: placed on the floor from their ankles)' : ''}; at least 10 are needed (is the empty-room reference of this room, and are the labels in its camera?)`);
  const times = recording.frames.map((f) => f.time);
  const labelledSeconds = (Math.max(...times) - Math.min(...times)) / 1000;
  if (options.exportRowsDir) {
    writeRows(path.join(options.exportRowsDir, 'twin'), pack(twinRows));
    // The GPU path takes 3D rows only.
    if (labels === '3d') writeRows(path.join(options.exportRowsDir, 'labelled'), pack(labelledRows));
    writeFileSync(path.join(options.exportRowsDir, 'spec-base.json'), JSON.stringify({ ...base, training: ROOM_POSE_TRAINING }, null, 2));
  }
  const fineTune = (list: LabelledEstimate[]) => fitRoomPose(labels === '3d' ? pack(rows3d(list)) : packReprojectionRows(rows2d(list), width, environment.camera), base, { ...ROOM_POSE_TRAINING.fineTune, seed: ROOM_POSE_TRAINING.seed, from: twinModel });
  // With 2D labels only there is no 3D posture to average: the locator's mean pose stands in.
  const postureOf = (list: LabelledEstimate[]) => {
    if (labels === '2d') return locator.spec.meanPose.map((k) => [k[0], k[1], k[2]] as [number, number, number]);
    const rows = pack(rows3d(list));
    return labelledMeanPosture(rows.targets, rows.count);
  };
  const cpu = process.cpuUsage();
  const fit = await fineTune(estimates);
  const used = process.cpuUsage(cpu);
  const network = (f: typeof fit): RoomPoseModel => ({ spec: f.spec, weights: f.weights, hash: '', directory: '(in memory)' });

  // The choice (fallback-protocol.md): on the --held-out recording, else on the labelled recording's last 20 %, with candidates fitted on the first 80 %.
  step(4, total, heldOut ? `choosing on the held-out recording ${options.heldOutDir}; writing ${modelDir}` : `choosing on the last ${HELD_OUT_FRACTION * 100} % of the labelled recording; writing ${modelDir}`);
  const split = heldOut ? null : splitByTime(estimates, HELD_OUT_FRACTION);
  const choiceEstimates = heldOut ? labelledEstimates(heldOut, locator, null) : split!.heldOut;
  const candidateModel = split ? network(await fineTune(split.fitted)) : network(fit);
  const candidatePosture = split ? postureOf(split.fitted) : postureOf(estimates);
  const choiceIn3d = heldOut ? heldOut.has3d : labels === '3d';
  const threshold = locator.spec.presenceThreshold;
  let chosen: { use: RoomPoseChoice['use']; reason: string; figures: RoomPoseChoice['figures']; count: number };
  if (choiceIn3d) {
    chosen = chooseOnHeldOut3d(choiceEstimates.filter((e) => e.label).map((e) => ({ instant: e.instant, truth: labelTruth(e.label!) })), environment, candidatePosture, candidateModel, threshold);
  } else {
    const rows = rows2d(choiceEstimates);
    const figures = Object.fromEntries(ROOM_POSE_PRODUCTS.map((c) => [c, meanReprojectionError(rows, environment.camera, (r) => productSkeleton(c, candidatePosture, candidateModel, r.features, r.position)).meanPx])) as RoomPoseChoice['figures'];
    chosen = { ...chooseProduct(figures, rows.length, 'reprojectionPx'), figures, count: rows.length };
  }
  const metric = choiceIn3d ? 'mpjpeMm' : 'reprojectionPx';
  const heldOutSet = heldOut ? `the --held-out recording ${path.basename(heldOut.directory)}` : `the last ${HELD_OUT_FRACTION * 100} % of ${path.basename(options.recordingDir)} (candidates fitted on the first ${100 - HELD_OUT_FRACTION * 100} %)`;
  const choice: RoomPoseChoice = { use: chosen.use, reason: chosen.reason, posture: postureOf(estimates), postureSource: labels === '3d' ? 'labelled' : 'locator', metric, heldOutSet, heldOutCount: chosen.count, figures: chosen.figures };
  const spec: RoomPoseSpec = { ...fit.spec, training: { twin: { seconds: twinSeconds, rows: twinRows.length, ...ROOM_POSE_TRAINING.twin }, fineTune: { recording: path.basename(options.recordingDir), labelledSeconds, labels, rows: rowCount, ...ROOM_POSE_TRAINING.fineTune }, locator: `${locator.spec.modelId}@${locator.hash}` }, choice };

  checkOwner(modelDir, environment.id);
  const model = saveRoomPoseModel(modelDir, spec, fit.weights);
  const trainedAt = new Date().toISOString();
  let report: RoomCalibrationResult['heldOut'] = null;
  if (heldOut?.has3d) {
    report = {
      locatedMeanPose: heldOutFigures(choiceEstimates, environment, (i) => locatedMeanPose(i, locator.spec.meanPose), threshold, locator.spec.meanPose),
      roomModel: heldOutFigures(choiceEstimates, environment, (i) => productHypotheses('network', choice.posture, model, i.located, i.features), threshold, model.spec.meanPose.map((m) => [...m])),
    };
  }
  const heldOutReason = heldOut?.has3d ? null : heldOut ? `${path.join(heldOut.directory, 'labels.json')} has no keypoints_3d: the held-out figures (MPJPE, PCK) need 3D labels` : 'no --held-out recording: give a later labelled recording of this room with other people; the end of the labelled recording is not a fair test';
  writeCalibrationRecord(modelDir, { format: 'wiflow-room-calibration/1', environmentId: environment.id, modelId: spec.modelId, modelHash: model.hash, trainedAt, labelledSeconds, labels, heldOut: report, heldOutReason, choice: withoutPosture(choice) });
  return {
    environmentId: environment.id, modelDir, modelId: spec.modelId, modelHash: model.hash,
    twinRows: twinRows.length, labelledRows: rowCount, labels, labelledSeconds,
    fineTuneCpuSeconds: (used.user + used.system) / 1e6,
    heldOut: report,
    heldOutReason,
    choice: withoutPosture(choice),
  };
}

/** Human-readable report of `wiflow calibrate`. */
export function formatRoomCalibration(r: RoomCalibrationResult): string[] {
  const f = (v: number | null, d: number) => (v === null ? '—' : v.toFixed(d));
  const row = (name: string, m: HeldOutFigures) => `${name.padEnd(18)} MPJPE ${f(m.mpjpeMm, 0)} mm  root-relative ${f(m.rootRelativeMpjpeMm, 0)} mm  PCK@0.2 ${f(m.pck02, 3)}  count exact ${f(m.countExact, 3)}  floor ${f(m.floorErrorM, 2)} m  (${m.estimates} estimates)`;
  return [
    `calibrated ${r.environmentId}: ${r.twinRows} twin rows, ${r.labelledRows} labelled rows (${r.labelledSeconds.toFixed(0)} s, ${r.labels} labels), fine-tuning ${r.fineTuneCpuSeconds.toFixed(1)} CPU-seconds`,
    ...(r.heldOut ? [row('located mean pose', r.heldOut.locatedMeanPose), row(`${r.modelId} network`, r.heldOut.roomModel)] : [`held-out report: none (${r.heldOutReason})`]),
    `uses ${r.modelId}/${r.choice.use}: ${r.choice.reason}, on ${r.choice.heldOutSet}`,
    `wrote ${r.modelDir} (${r.modelId}, sha256 ${r.modelHash})`,
  ];
}
