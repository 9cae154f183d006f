import { evaluateSamples, type EvaluatedSample } from '../eval/metrics.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR, type LocatorModel } from '../locate/locator-model.js';
import { drawRoomPair, FULL_PROTOCOL, loadSimulator, protocolSessions, runSession, SMALL_PROTOCOL, type ProtocolInstant, type ProtocolSizes } from './protocol.js';
import type { GroundTruthPerson } from '@wiflow/core';
import { labelledPosition, locatedMeanPose, productHypotheses, trainingRows } from './room-pose-estimator.js';
import { HELD_OUT_FRACTION, labelledMeanPosture, ROOM_POSE_PRODUCTS, splitAtEnd, type RoomPoseProduct } from './room-pose-choice.js';
import { chooseOnHeldOut3d } from './room-pose-candidates.js';
import { fitRoomPose, ROOM_POSE_MODEL_ID, type RoomPoseModel, type RoomPoseRows, type RoomPoseSpec } from './room-pose-model.js';
import { DEFAULT_PROBE } from './person-probe.js';
import { createHash } from 'node:crypto';

/** Labelled-minute budgets of the learning curve. */
export const BUDGETS = [0, 1, 3, 10] as const;

/** Training settings of the protocol (fixed beforehand: nothing is chosen on the test sessions). */
export const ROOM_POSE_TRAINING = { twin: { epochs: 40, learningRate: 1e-3, hidden: [128, 128] }, fineTune: { epochs: 30, learningRate: 3e-4 }, seed: 1 };

/** Figures of one budget and one person count (the `--json` keys). */
export interface CalibratedFigures {
  /** Mean per-joint 3D error of the output as placed in the room, mm (not root-aligned). */
  mpjpeMm: number | null;
  /** The same after moving both skeletons' hip midpoints together, mm: the posture alone. */
  rootRelativeMpjpeMm: number | null;
  pck02: number | null;
  countExact: number;
  floorErrorM: number | null;
  samples: number;
}

/** The choice of one budget: the candidate used, each candidate's MPJPE on the held-out end of the labelled minutes, and why. */
export interface CalibratedChoice {
  use: RoomPoseProduct;
  heldOutEstimates: number;
  heldOutMpjpeMm: Record<RoomPoseProduct, number | null>;
  reason: string;
}

/** What `wiflow eval-calibrated --json` prints. */
export interface CalibratedReport {
  modelId: string;
  locator: { modelId: string; hash: string };
  environmentId: string;
  /** Realism of the real room's sessions ('v2' unless a diagnostic asked for 'none'). */
  realism: 'none' | 'v2';
  small: boolean;
  /** Seconds of labelled recording per budget "minute" (60; 12 in --small). */
  labelledSecondsPerMinute: number;
  protocol: ProtocolSizes;
  /**
   * Per budget: `people` is what the product emits (what `wiflow calibrate` would ship from those
   * minutes: the candidate chosen on the last 20 % of them, fallback-protocol.md); `network` is
   * the network alone (what shipped before the choice); `choice` says which candidate and why.
   */
  minutes: Record<string, { people: Record<string, CalibratedFigures>; network: Record<string, CalibratedFigures>; choice: CalibratedChoice; trainRows: number; fineTuneCpuSeconds: number | null; modelHash: string }>;
  /** The locator's own skeletons (its training mean pose at each located position) on the same test estimates. */
  baselineLocatedMeanPose: { people: Record<string, CalibratedFigures> };
  cpuSeconds: number;
}

function rowsOf(list: { features: Float32Array; target: Float32Array }[], width: number): RoomPoseRows {
  const features = new Float32Array(list.length * width), targets = new Float32Array(list.length * 51);
  list.forEach((r, i) => { features.set(r.features, i * width); targets.set(r.target, i * 51); });
  return { features, targets, count: list.length, width };
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

/** A labelled instant's people as evaluation takes them (the labels' 3D keypoints, placed at their hips). */
function labelTruth(p: ProtocolInstant): GroundTruthPerson[] {
  return p.label!.persons.map((q, id) => ({ id, keypoints3d: q.keypoints3d!, position: labelledPosition(q.keypoints3d!), activity: 'standing' }));
}

function figures(test: readonly ProtocolInstant[], environment: ProtocolInstant['instant']['located']['environment'], hypothesesOf: (p: ProtocolInstant) => EvaluatedSample['predicted'], threshold: number, meanPose: number[][]): Record<string, CalibratedFigures> {
  const samples: EvaluatedSample[] = test.map((p) => ({ environment, truth: p.truth, predicted: hypothesesOf(p), presenceThreshold: threshold }));
  const report = evaluateSamples(samples, meanPose);
  const out: Record<string, CalibratedFigures> = {};
  for (const key of ['1', '2', '3']) {
    const b = report.model[key];
    out[key] = b ? { mpjpeMm: b.mpjpeMm, rootRelativeMpjpeMm: b.rootRelativeMpjpeMm, pck02: b.pck02, countExact: b.countAccuracy, floorErrorM: b.floorErrorM, samples: b.samples } : { mpjpeMm: null, rootRelativeMpjpeMm: null, pck02: null, countExact: 0, floorErrorM: null, samples: 0 };
  }
  return out;
}

/**
 * `wiflow eval-calibrated`: one simulated room pair; pre-train the network on the twin, fine-tune
 * on the first 1, 3 and 10 labelled minutes of the real room (labels from its camera), and score
 * every budget on held-out sessions of the real room with new people (other statures) and new
 * scripts, end to end (the locator's positions and count, the network's skeletons).
 */
export async function evaluateCalibrated(options: { small?: boolean; seed?: string; radioOffsetM?: number; realism?: 'none' | 'v2'; locator?: LocatorModel; onProgress?: (line: string) => void } = {}): Promise<CalibratedReport> {
  const started = process.cpuUsage();
  const sim = await loadSimulator();
  const locator = options.locator ?? loadLocatorModel(SHIPPED_LOCATOR_DIR);
  const sizes = options.small ? SMALL_PROTOCOL : FULL_PROTOCOL;
  const pair = { ...drawRoomPair(sim, options.seed ?? 'calibrated-1', options.radioOffsetM), realism: options.realism ?? 'v2' };
  const say = options.onProgress ?? (() => {});
  const twinRows: { features: Float32Array; target: Float32Array }[] = [];
  const labelled: ProtocolInstant[][] = [];
  const test: ProtocolInstant[] = [];
  let width = 0;
  for (const plan of protocolSessions(sizes)) {
    say(`simulating ${plan.role} session ${plan.seed} (${plan.seconds} s, ${plan.people[0]}–${plan.people[1]} people)`);
    const session: ProtocolInstant[] = [];
    for (const p of runSession(sim, pair, plan, locator)) {
      width = p.instant.features[0]?.length ?? width;
      if (plan.role === 'twin') twinRows.push(...trainingRows(p.instant, p.truth));
      else if (plan.role === 'labelled') session.push(p);
      else test.push(p);
    }
    if (plan.role === 'labelled') labelled.push(session);
  }
  const base: Omit<RoomPoseSpec, 'layers' | 'featureMean' | 'featureStd' | 'meanPose'> = {
    format: 'wiflow-room-pose/1', modelId: ROOM_POSE_MODEL_ID, environmentId: pair.environmentId, probe: DEFAULT_PROBE, training: {},
  };
  // Models of the curve stay in memory: their hash covers the weights only (a written model's hash also covers room-pose.json).
  const hashOf = (m: { weights: RoomPoseModel['weights'] }) => { const h = createHash('sha256'); m.weights.forEach((l) => h.update(Buffer.from(l.w.buffer)).update(Buffer.from(l.b.buffer))); return h.digest('hex'); };
  say(`pre-training on the twin: ${twinRows.length} rows`);
  const twinFit = await fitRoomPose(rowsOf(twinRows, width), base, { ...ROOM_POSE_TRAINING.twin, seed: ROOM_POSE_TRAINING.seed });
  const twin: RoomPoseModel = { spec: twinFit.spec, weights: twinFit.weights, hash: hashOf(twinFit), directory: '(in memory)' };
  const threshold = locator.spec.presenceThreshold;
  const locatorPosture = locator.spec.meanPose.map((k) => [k[0], k[1], k[2]] as [number, number, number]);
  const score = (use: RoomPoseProduct, posture: readonly (readonly number[])[], model: RoomPoseModel) => figures(test, pair.environment, (p) => productHypotheses(use, posture, model, p.instant.located, p.instant.features), threshold, model.spec.meanPose.map((m) => [...m]));
  const labelRows = (list: readonly ProtocolInstant[]) => list.flatMap((p) => (p.label ? trainingRows(p.instant, p.label.persons.map((q) => ({ keypoints3d: q.keypoints3d! }))) : []));
  const fineTune = async (rows: { features: Float32Array; target: Float32Array }[]) => {
    const fit = await fitRoomPose(rowsOf(rows, width), base, { ...ROOM_POSE_TRAINING.fineTune, seed: ROOM_POSE_TRAINING.seed, from: twin });
    return { spec: fit.spec, weights: fit.weights, hash: hashOf(fit), directory: '(in memory)' } as RoomPoseModel;
  };
  const postureOf = (rows: { target: Float32Array }[]) => labelledMeanPosture(rowsOf(rows.map((r) => ({ features: new Float32Array(0), target: r.target })), 0).targets, rows.length);
  // Budget 0 has no labels: the product is the locator's mean pose (not calibrating).
  const none = Object.fromEntries(ROOM_POSE_PRODUCTS.map((c) => [c, null])) as Record<RoomPoseProduct, null>;
  const minutes: CalibratedReport['minutes'] = {
    '0': { people: score('located-mean-posture', locatorPosture, twin), network: score('network', locatorPosture, twin), choice: { use: 'located-mean-posture', heldOutEstimates: 0, heldOutMpjpeMm: none, reason: 'no labelled minutes: the locator\'s mean pose (not calibrating)' }, trainRows: twinRows.length, fineTuneCpuSeconds: null, modelHash: twin.hash },
  };
  for (const budget of BUDGETS.filter((b) => b > 0)) {
    const instants = labelled.slice(0, budget).flat();
    const rows = labelRows(instants);
    say(`fine-tuning on ${budget} labelled minute(s): ${rows.length} rows`);
    const cpu = process.cpuUsage();
    const model = await fineTune(rows);
    const fineTuneCpuSeconds = cpuSeconds(cpu);
    // The choice, as `wiflow calibrate` makes it without --held-out: candidates fitted on the first 80 % of the minutes, scored on the rest.
    const split = splitAtEnd(instants, HELD_OUT_FRACTION);
    const fittedRows = labelRows(split.fitted);
    const candidate = fittedRows.length ? await fineTune(fittedRows) : model;
    const candidatePosture = fittedRows.length ? postureOf(fittedRows) : locatorPosture;
    const heldOut = split.heldOut.filter((p) => p.label).map((p) => ({ instant: p.instant, truth: labelTruth(p) }));
    const chosen = chooseOnHeldOut3d(heldOut, pair.environment, candidatePosture, candidate, threshold);
    const posture = postureOf(rows);
    minutes[String(budget)] = { people: score(chosen.use, posture, model), network: score('network', posture, model), choice: { use: chosen.use, heldOutEstimates: chosen.count, heldOutMpjpeMm: chosen.figures, reason: chosen.reason }, trainRows: rows.length, fineTuneCpuSeconds, modelHash: model.hash };
  }
  const baselineLocatedMeanPose = { people: figures(test, pair.environment, (p) => locatedMeanPose(p.instant, locator.spec.meanPose), threshold, locator.spec.meanPose) };
  return {
    modelId: ROOM_POSE_MODEL_ID,
    locator: { modelId: locator.spec.modelId, hash: locator.hash },
    environmentId: pair.environmentId,
    realism: pair.realism,
    small: options.small ?? false,
    labelledSecondsPerMinute: sizes.secondsPerMinute,
    protocol: sizes,
    minutes,
    baselineLocatedMeanPose,
    cpuSeconds: cpuSeconds(started),
  };
}

/** The report as a table: per budget and person count. */
export function formatCalibratedReport(r: CalibratedReport): string[] {
  const f = (v: number | null, d: number) => (v === null ? '—' : v.toFixed(d));
  const lines = [`${r.modelId} in ${r.environmentId} (locator ${r.locator.modelId}, real room realism ${r.realism}); ${r.small ? `--small: one "minute" is ${r.labelledSecondsPerMinute} s of labelled recording` : 'full protocol'}`, 'minutes  people  MPJPE mm  root-rel mm  PCK@0.2  count exact  floor m  samples'];
  const row = (name: string, people: Record<string, CalibratedFigures>) => {
    for (const [k, v] of Object.entries(people)) lines.push(`${name.padEnd(8)} ${k.padEnd(7)} ${f(v.mpjpeMm, 0).padStart(8)}  ${f(v.rootRelativeMpjpeMm, 0).padStart(11)}  ${f(v.pck02, 3).padStart(7)}  ${f(v.countExact, 3).padStart(11)}  ${f(v.floorErrorM, 2).padStart(7)}  ${String(v.samples).padStart(7)}`);
  };
  row('located', r.baselineLocatedMeanPose.people);
  lines.push('the product (what the pipeline emits after the calibration\'s choice):');
  for (const [m, v] of Object.entries(r.minutes)) row(m, v.people);
  lines.push('the network alone:');
  for (const [m, v] of Object.entries(r.minutes)) row(m, v.network);
  for (const [m, v] of Object.entries(r.minutes)) lines.push(`${m} minute(s): uses ${v.choice.use}: ${v.choice.reason}`);
  const ft = r.minutes['10']?.fineTuneCpuSeconds;
  if (ft !== undefined && ft !== null) lines.push(`fine-tuning on the 10-minute budget: ${ft.toFixed(1)} CPU-seconds (${r.minutes['10'].trainRows} rows)`);
  lines.push(`whole run: ${r.cpuSeconds.toFixed(0)} CPU-seconds`);
  return lines;
}
