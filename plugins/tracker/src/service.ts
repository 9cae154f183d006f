import { serviceToken, type ServiceToken, type TrackSummary } from '@wiflow/core';
import type { MultiPersonTracker, TrackStatus } from './tracker.js';

/** Token of the tracker service (`services.get(TRACKER_SERVICE)`). */
export const TRACKER_SERVICE: ServiceToken<TrackerService> = serviceToken<TrackerService>('tracker.tracks');

/**
 * Live tracks of every running `tracker.track` node, for the pose API
 * (GET /pose/tracking/{track_id} and the system status' active track count). Nodes
 * register their tracker while they run; stored tracks come from storage instead.
 */
export class TrackerService {
  readonly #trackers = new Map<string, MultiPersonTracker>();

  /** Called by a tracker node when it starts (key: run id + node id). */
  register(key: string, tracker: MultiPersonTracker): void {
    this.#trackers.set(key, tracker);
  }

  /** Called by a tracker node when it closes. */
  unregister(key: string): void {
    this.#trackers.delete(key);
  }

  /** A live track by id (the most recently seen when several trackers know it); null when none. */
  get(trackId: number, options: { includeTrajectory?: boolean; environmentId?: string } = {}): TrackSummary | null {
    let best: TrackSummary | null = null;
    for (const tracker of this.#trackers.values()) {
      const t = tracker.track(trackId, options);
      if (t && (!options.environmentId || t.environmentId === options.environmentId) && (!best || t.lastSeen > best.lastSeen)) best = t;
    }
    return best;
  }

  /** Live tracks, most recently seen first. */
  list(options: { environmentId?: string; status?: TrackStatus[] } = {}): TrackSummary[] {
    return [...this.#trackers.values()].flatMap((t) => t.tracks(options)).sort((a, b) => b.lastSeen - a.lastSeen);
  }

  /** Active tracks now, across trackers. */
  activeCount(environmentId?: string): number {
    let n = 0;
    for (const t of this.#trackers.values()) n += t.activeCount(environmentId);
    return n;
  }

  /** How many tracker nodes are running. */
  get trackerCount(): number {
    return this.#trackers.size;
  }
}
