import { DataTypes, defineNode, type PoseFrame } from '@wiflow/core';
import { TrackerOptionsSchema } from './options.js';
import { TRACKER_SERVICE, type TrackerService } from './service.js';
import { MultiPersonTracker } from './tracker.js';

let instanceCounter = 0;

/**
 * `tracker.track`: pose frames in, the same frames with track ids out (ids an upstream
 * estimator already gave are followed, not re-tracked: `follow_upstream_ids`). Lifecycle changes
 * (confirmed, lost, recovered, re-identified, ended) leave on `tracks` as TrackSummary
 * records with a `transition` field; at the end of a run every open track is ended and reported.
 */
export const trackNode = defineNode({
  type: 'tracker.track',
  title: 'Track people',
  category: 'tracking',
  description:
    'Multi-person tracking on the floor plane: constant-velocity Kalman filter, Hungarian assignment gated at χ²₂ 99 % on a cost mixing position and body shape, track lifecycle (tentative, active, lost, ended), re-identification of lost tracks, keypoint smoothing and per-track movement statistics. Detections that already carry a track id (pose.locate tracks people itself) keep that identity instead of being tracked again. Held evidence (upstream_min_evidence; opt-in for lived-in rooms, off by default because it also holds back some real people): switched on (0.5), an id whose detections carry evidence (pose.locate: the change each estimate explains) is shown as tentative until the mean over its last 10 s reaches 0.5 noise energies, which keeps most phantoms of a fan, a cat or a door from being shown; detections without evidence are never held.',
  inputs: { poses: { type: DataTypes.PoseFrame, required: true, description: 'pose frames in time order' } },
  outputs: {
    poses: { type: DataTypes.PoseFrame, description: 'frames with trackId, trackStatus, velocity and trackAge set' },
    tracks: { type: DataTypes.Json, description: 'a TrackSummary each time a track changes status' },
  },
  config: TrackerOptionsSchema,
  create(ctx) {
    const tracker = new MultiPersonTracker(ctx.config);
    const key = `${ctx.id}#${++instanceCounter}`;
    let service: TrackerService | null = null;
    try {
      service = ctx.services.get(TRACKER_SERVICE);
      service.register(key, tracker);
    } catch {
      service = null; // running without the plugin's service (e.g. a bare test runtime): tracks stay local
    }
    const reportTransitions = () => {
      for (const change of tracker.takeTransitions()) {
        if (change.reason === 'created' || change.reason === 'discarded') continue;
        const summary = tracker.track(change.trackId);
        if (summary) ctx.emit('tracks', { ...summary, status: change.to, transition: change.reason, transitionTime: change.timestamp });
      }
    };
    return {
      receive(_port, value) {
        const out = tracker.update(value as PoseFrame);
        ctx.emit('poses', out);
        reportTransitions();
      },
      flush() {
        tracker.finish();
        reportTransitions();
      },
      close() {
        service?.unregister(key);
      },
      stats: () => ({ active_tracks: tracker.activeCount(), tracks_created: tracker.counters.tracksCreated, reidentifications: tracker.counters.reidentifications, dropped_detections: tracker.counters.droppedDetections }),
    };
  },
});
