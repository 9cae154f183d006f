import { evaluateSamples, type EvaluatedSample } from '../eval/metrics.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR, type LocatorModel } from '../locate/locator-model.js';
import { drawRoomPair, FULL_PROTOCOL, loadSimulator, protocolSessions, runSession, SMALL_PROTOCOL, type ProtocolInstant, type ProtocolSizes } from './protocol.js';
import { trainingRows, locatedMeanPose } from './room-pose-estimator.js';
import { fitRoomPose, predictSkeleton, ROOM_POSE_MODEL_ID, type RoomPoseModel, type RoomPoseRows, type RoomPoseSpec } from './room-pose-model.js';
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
  minutes: Record<string, { people: Record<string, CalibratedFigures>; trainRows: number; fineTuneCpuSeconds: number | null; modelHash: string }>;
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
  const labelled: { features: Float32Array; target: Float32Array }[][] = [];
  const test: ProtocolInstant[] = [];
  let width = 0;
  for (const plan of protocolSessions(sizes)) {
    say(`simulating ${plan.role} session ${plan.seed} (${plan.seconds} s, ${plan.people[0]}–${plan.people[1]} people)`);
    const session: { features: Float32Array; target: Float32Array }[] = [];
    for (const p of runSession(sim, pair, plan, locator)) {
      width = p.instant.features[0]?.length ?? width;
      if (plan.role === 'twin') twinRows.push(...trainingRows(p.instant, p.truth));
      else if (plan.role === 'labelled') { if (p.label) session.push(...trainingRows(p.instant, p.label.persons.map((q) => ({ keypoints3d: q.keypoints3d! })))); }
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
  const score = (model: RoomPoseModel) => figures(test, pair.environment, (p) => p.instant.located.hypotheses.map((h, i) => ({ position: h.position, keypoints3d: predictSkeleton(model, p.instant.features[i], h.position), presence: h.presence })), threshold, model.spec.meanPose.map((m) => [...m]));
  const minutes: CalibratedReport['minutes'] = { '0': { people: score(twin), trainRows: twinRows.length, fineTuneCpuSeconds: null, modelHash: twin.hash } };
  for (const budget of BUDGETS.filter((b) => b > 0)) {
    const rows = labelled.slice(0, budget).flat();
    say(`fine-tuning on ${budget} labelled minute(s): ${rows.length} rows`);
    const cpu = process.cpuUsage();
    const fit = await fitRoomPose(rowsOf(rows, width), base, { ...ROOM_POSE_TRAINING.fineTune, seed: ROOM_POSE_TRAINING.seed, from: twin });
    const fineTuneCpuSeconds = cpuSeconds(cpu);
    const model: RoomPoseModel = { spec: fit.spec, weights: fit.weights, hash: hashOf(fit), directory: '(in memory)' };
    minutes[String(budget)] = { people: score(model), trainRows: rows.length, fineTuneCpuSeconds, modelHash: model.hash };
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
  for (const [m, v] of Object.entries(r.minutes)) row(m, v.people);
  const ft = r.minutes['10']?.fineTuneCpuSeconds;
  if (ft !== undefined && ft !== null) lines.push(`fine-tuning on the 10-minute budget: ${ft.toFixed(1)} CPU-seconds (${r.minutes['10'].trainRows} rows)`);
  lines.push(`whole run: ${r.cpuSeconds.toFixed(0)} CPU-seconds`);
  return lines;
}
