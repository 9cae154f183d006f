import type { PoseFrame } from '@wiflow/core';

/**
 * Baseline for the tracking benchmark: greedy nearest-neighbour association of each
 * detection to the closest track of the previous frame within `maxDistance` (m), no motion
 * model, no gating by uncertainty, no re-identification; a track unmatched for one frame
 * ends. What the Kalman + Hungarian tracker is measured against.
 */
export class NearestNeighbourTracker {
  #tracks: { id: number; x: number; y: number }[] = [];
  #next = 1;

  constructor(readonly maxDistance = 0.7, readonly minConfidence = 0.3) {}

  /** Track one frame. */
  update(frame: PoseFrame): PoseFrame {
    const detections = frame.persons.filter((p) => p.confidence >= this.minConfidence);
    const pairs: { d: number; t: number; j: number }[] = [];
    this.#tracks.forEach((t, ti) => detections.forEach((p, j) => {
      const d = Math.hypot(p.position.x - t.x, p.position.y - t.y);
      if (d <= this.maxDistance) pairs.push({ d, t: ti, j });
    }));
    pairs.sort((a, b) => a.d - b.d);
    const usedT = new Set<number>();
    const ids = new Map<number, number>();
    for (const p of pairs) {
      if (usedT.has(p.t) || ids.has(p.j)) continue;
      usedT.add(p.t);
      ids.set(p.j, this.#tracks[p.t].id);
    }
    const persons = detections.map((p, j) => ({ ...p, id: j, trackId: ids.get(j) ?? this.#next++, trackStatus: 'active' as const }));
    this.#tracks = persons.map((p) => ({ id: p.trackId, x: p.position.x, y: p.position.y }));
    return { ...frame, persons };
  }
}
