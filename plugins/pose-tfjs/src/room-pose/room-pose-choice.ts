import { z } from 'zod';

// What a calibrated room's pipeline emits is chosen by the calibration on its own held-out
// labelled minutes (models/wiflow-room-pose-v1/fallback-protocol.md): a room network that loses
// there to the room's labelled mean posture is kept on disk but not used.

/** What a calibrated room can emit, simplest first (ties go to the earlier one). */
export const ROOM_POSE_PRODUCTS = ['located-mean-posture', 'network-posture', 'network'] as const;

/** One of `ROOM_POSE_PRODUCTS`. */
export type RoomPoseProduct = (typeof ROOM_POSE_PRODUCTS)[number];

/** Fewest held-out estimates (3D labels) or rows (2D labels) the choice is made on; below it the simplest is kept. */
export const MIN_HELD_OUT = 30;

/** Share of the labelled recording (its end, by time) held out for the choice when no later recording is given. */
export const HELD_OUT_FRACTION = 0.2;

/** The choice as `room-pose.json` and `calibration.json` record it. */
export const RoomPoseChoiceSchema = z.object({
  use: z.enum(ROOM_POSE_PRODUCTS),
  /** 17 × [x, y offset from the located position, height z], m: the posture `located-mean-posture` places. */
  posture: z.array(z.tuple([z.number(), z.number(), z.number()])).length(17),
  /** `labelled`: the mean of this room's labelled 3D poses (hip-centred); `locator`: the locator's mean pose (2D labels give no 3D posture). */
  postureSource: z.enum(['labelled', 'locator']),
  /** What the choice was made by: held-out MPJPE (3D labels) or mean reprojection error (2D labels only). */
  metric: z.enum(['mpjpeMm', 'reprojectionPx']),
  /** Where the held-out labels came from. */
  heldOutSet: z.string(),
  /** Held-out estimates (3D) or rows (2D) scored. */
  heldOutCount: z.number().int().min(0),
  /** Each candidate's held-out figure; null where nothing was scored. */
  figures: z.object({ 'located-mean-posture': z.number().nullable(), 'network-posture': z.number().nullable(), network: z.number().nullable() }),
  /** One sentence: why this candidate. */
  reason: z.string(),
});

/** A recorded choice. */
export type RoomPoseChoice = z.output<typeof RoomPoseChoiceSchema>;

/** Move a skeleton in x and y so that its hip midpoint (COCO 11, 12) is at `position`; heights kept. */
export function centreOnHips(keypoints3d: readonly (readonly number[])[], position: { x: number; y: number }): number[][] {
  const dx = position.x - (keypoints3d[11][0] + keypoints3d[12][0]) / 2, dy = position.y - (keypoints3d[11][1] + keypoints3d[12][1]) / 2;
  return keypoints3d.map((k) => [k[0] + dx, k[1] + dy, k[2]]);
}

/** The mean labelled posture of 3D training rows (targets: 51 per row, joints relative to the located position): each row hip-centred, then averaged. */
export function labelledMeanPosture(targets: Float32Array, count: number): [number, number, number][] {
  const sum = Array.from({ length: 17 }, () => [0, 0, 0]);
  for (let r = 0; r < count; r++) {
    const t = targets.subarray(r * 51, (r + 1) * 51);
    const hx = (t[33] + t[36]) / 2, hy = (t[34] + t[37]) / 2;
    for (let j = 0; j < 17; j++) { sum[j][0] += t[3 * j] - hx; sum[j][1] += t[3 * j + 1] - hy; sum[j][2] += t[3 * j + 2]; }
  }
  return sum.map((s) => [s[0] / Math.max(1, count), s[1] / Math.max(1, count), s[2] / Math.max(1, count)] as [number, number, number]);
}

/**
 * The protocol's rule: with at least `MIN_HELD_OUT` held-out labels, the lowest figure (rounded
 * to 1 mm or 0.1 px), ties to the simpler; otherwise the simplest, saying why.
 */
export function chooseProduct(figures: RoomPoseChoice['figures'], heldOutCount: number, metric: RoomPoseChoice['metric']): { use: RoomPoseProduct; reason: string } {
  const unit = metric === 'mpjpeMm' ? 'mm' : 'px';
  const round = (v: number) => (metric === 'mpjpeMm' ? Math.round(v) : Math.round(v * 10) / 10);
  const what = metric === 'mpjpeMm' ? 'held-out estimates' : 'held-out 2D rows';
  if (heldOutCount < MIN_HELD_OUT) return { use: ROOM_POSE_PRODUCTS[0], reason: `${heldOutCount} ${what}, fewer than ${MIN_HELD_OUT}: the simplest (${ROOM_POSE_PRODUCTS[0]}) is kept` };
  let best: RoomPoseProduct | null = null;
  for (const candidate of ROOM_POSE_PRODUCTS) {
    const v = figures[candidate];
    if (v === null) continue;
    if (best === null || round(v) < round(figures[best]!)) best = candidate;
  }
  if (best === null) return { use: ROOM_POSE_PRODUCTS[0], reason: `no candidate could be scored on ${heldOutCount} ${what}: the simplest (${ROOM_POSE_PRODUCTS[0]}) is kept` };
  const listed = ROOM_POSE_PRODUCTS.map((c) => `${c} ${figures[c] === null ? '—' : `${round(figures[c]!)} ${unit}`}`).join(', ');
  return { use: best, reason: `lowest on ${heldOutCount} ${what} (${listed}; ties to the simpler)` };
}

/** Estimates (in time order) split at `1 - fraction` of their time span: the fitted part and the held-out end. */
export function splitByTime<T extends { instant: { located: { time: number } } }>(list: readonly T[], fraction: number): { fitted: T[]; heldOut: T[] } {
  if (list.length === 0) return { fitted: [], heldOut: [] };
  const first = list[0].instant.located.time, last = list.at(-1)!.instant.located.time;
  const cut = first + (1 - fraction) * (last - first);
  return { fitted: list.filter((e) => e.instant.located.time < cut), heldOut: list.filter((e) => e.instant.located.time >= cut) };
}

/** A list in time order split at its last `fraction` by count (labelled sessions laid end to end, whose clocks each start again). */
export function splitAtEnd<T>(list: readonly T[], fraction: number): { fitted: T[]; heldOut: T[] } {
  const cut = Math.round(list.length * (1 - fraction));
  return { fitted: list.slice(0, cut), heldOut: list.slice(cut) };
}
