import type { GroundTruthFrame, PoseFrame } from '@wiflow/core';
import { assignGated } from './assignment.js';
import { TrackerErrors } from './errors.js';

/** CLEAR-MOT and identity figures of one sequence (or a sum of sequences). */
export interface TrackingScore {
  /** Ground-truth person-frames. */
  gt: number;
  /** Hypothesis (tracked person) frames. */
  hypotheses: number;
  matches: number;
  falsePositives: number;
  misses: number;
  idSwitches: number;
  /** MOTA = 1 − (FN + FP + IDSW) / GT. */
  mota: number;
  /** Mean floor distance of matched pairs (m). */
  motp: number;
  idtp: number;
  idfp: number;
  idfn: number;
  /** IDF1 = 2·IDTP / (2·IDTP + IDFP + IDFN). */
  idf1: number;
  /** Distinct ground-truth ids and track ids seen. */
  gtIds: number;
  trackIds: number;
}

/** Options of the tracking evaluation. */
export interface TrackingEvalOptions {
  /** A hypothesis matches a ground-truth person within this floor distance (m), default 0.5. */
  matchDistance?: number;
  /** Count tentative tracks as hypotheses (default false: only what analytics see). */
  includeTentative?: boolean;
}

interface Point { id: number; x: number; y: number }

/**
 * Score tracked pose frames against ground truth. Frames are paired by index; each
 * tracked frame's `truth` is used when `truth` is not given. Per frame, CLEAR-MOT keeps last
 * frame's pairs while they stay within `matchDistance`, matches the rest by Hungarian on
 * distance, and counts an identity switch when a person's track differs from its last one.
 * IDF1 matches whole ground-truth identities to track identities (Hungarian on co-occurrence).
 */
export function scoreTracking(tracked: readonly PoseFrame[], truth?: readonly GroundTruthFrame[], options: TrackingEvalOptions = {}): TrackingScore {
  const threshold = options.matchDistance ?? 0.5;
  if (!(threshold > 0)) throw TrackerErrors.evaluationInvalid(`matchDistance must be positive, got ${threshold}`);
  if (truth && truth.length !== tracked.length) throw TrackerErrors.evaluationInvalid(`${tracked.length} tracked frames but ${truth.length} truth frames`);
  let gtCount = 0;
  let hypCount = 0;
  let matches = 0;
  let fp = 0;
  let fn = 0;
  let idsw = 0;
  let distSum = 0;
  const lastMatch = new Map<number, number>(); // gt id → hyp id of its last match
  let prevPairs = new Map<number, number>(); // gt id → hyp id in the previous frame
  const coCount = new Map<string, number>();
  const gtFrames = new Map<number, number>();
  const hypFrames = new Map<number, number>();

  tracked.forEach((frame, index) => {
    const gtFrame = truth ? truth[index] : frame.truth;
    if (!gtFrame) throw TrackerErrors.evaluationInvalid(`frame ${index} has no ground truth`);
    const gts: Point[] = gtFrame.persons.map((p) => ({ id: p.id, x: p.position.x, y: p.position.y }));
    const hyps: Point[] = frame.persons
      .filter((p) => p.trackId !== null && p.trackId !== undefined && (options.includeTentative || p.trackStatus !== 'tentative'))
      .map((p) => ({ id: p.trackId as number, x: p.position.x, y: p.position.y }));
    gtCount += gts.length;
    hypCount += hyps.length;
    for (const g of gts) gtFrames.set(g.id, (gtFrames.get(g.id) ?? 0) + 1);
    for (const h of hyps) hypFrames.set(h.id, (hypFrames.get(h.id) ?? 0) + 1);
    const dist = (g: Point, h: Point) => Math.hypot(g.x - h.x, g.y - h.y);
    // Identity co-occurrence for IDF1.
    for (const g of gts) for (const h of hyps) if (dist(g, h) <= threshold) coCount.set(`${g.id}|${h.id}`, (coCount.get(`${g.id}|${h.id}`) ?? 0) + 1);

    const pairs = new Map<number, number>();
    const usedG = new Set<number>();
    const usedH = new Set<number>();
    for (const [gid, hid] of prevPairs) {
      const gi = gts.findIndex((g) => g.id === gid);
      const hi = hyps.findIndex((h) => h.id === hid);
      if (gi >= 0 && hi >= 0 && dist(gts[gi], hyps[hi]) <= threshold) {
        pairs.set(gid, hid);
        usedG.add(gi);
        usedH.add(hi);
      }
    }
    const restG = gts.map((_, i) => i).filter((i) => !usedG.has(i));
    const restH = hyps.map((_, i) => i).filter((i) => !usedH.has(i));
    const costs = restG.map((gi) => restH.map((hi) => {
      const d = dist(gts[gi], hyps[hi]);
      return d <= threshold ? d : Infinity;
    }));
    for (const [r, c] of assignGated(costs)) {
      pairs.set(gts[restG[r]].id, hyps[restH[c]].id);
      usedG.add(restG[r]);
      usedH.add(restH[c]);
    }
    for (const [gid, hid] of pairs) {
      const last = lastMatch.get(gid);
      if (last !== undefined && last !== hid) idsw++;
      lastMatch.set(gid, hid);
      distSum += dist(gts.find((g) => g.id === gid)!, hyps.find((h) => h.id === hid)!);
    }
    matches += pairs.size;
    fn += gts.length - pairs.size;
    fp += hyps.length - pairs.size;
    prevPairs = pairs;
  });

  const gtIds = [...gtFrames.keys()];
  const hypIds = [...hypFrames.keys()];
  const idCosts = gtIds.map((g) => hypIds.map((h) => {
    const c = coCount.get(`${g}|${h}`);
    return c ? -c : Infinity;
  }));
  let idtp = 0;
  for (const [r, c] of assignGated(idCosts)) idtp += -idCosts[r][c];
  const idfn = gtCount - idtp;
  const idfp = hypCount - idtp;
  return {
    gt: gtCount,
    hypotheses: hypCount,
    matches,
    falsePositives: fp,
    misses: fn,
    idSwitches: idsw,
    mota: gtCount ? 1 - (fn + fp + idsw) / gtCount : 0,
    motp: matches ? distSum / matches : 0,
    idtp,
    idfp,
    idfn,
    idf1: gtCount + hypCount ? (2 * idtp) / (gtCount + hypCount) : 0,
    gtIds: gtIds.length,
    trackIds: hypIds.length,
  };
}

/** Sum scores of several sequences (figures recomputed from the summed counts). */
export function combineScores(scores: readonly TrackingScore[]): TrackingScore {
  const sum = (k: keyof TrackingScore) => scores.reduce((s, x) => s + (x[k] as number), 0);
  const gt = sum('gt');
  const hyp = sum('hypotheses');
  const matches = sum('matches');
  const idtp = sum('idtp');
  const fp = sum('falsePositives');
  const fn = sum('misses');
  const idsw = sum('idSwitches');
  return {
    gt, hypotheses: hyp, matches, falsePositives: fp, misses: fn, idSwitches: idsw,
    mota: gt ? 1 - (fn + fp + idsw) / gt : 0,
    motp: matches ? scores.reduce((s, x) => s + x.motp * x.matches, 0) / matches : 0,
    idtp, idfp: sum('idfp'), idfn: sum('idfn'),
    idf1: gt + hyp ? (2 * idtp) / (gt + hyp) : 0,
    gtIds: sum('gtIds'), trackIds: sum('trackIds'),
  };
}
