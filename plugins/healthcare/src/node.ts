import { DataTypes, defineNode, type AnalyticsEvent, type PoseFrame, type SensingFrame } from '@wiflow/core';
import { HealthcareOptionsSchema } from './options.js';
import { HealthcareMonitor } from './monitor.js';
import { healthcareRecord } from './metrics.js';
import { SensingHealthMonitor } from './sensing.js';

/** Model ids of ground-truth poses (the simulator's `sim.truth-poses`, truth with observation noise): never a source of alerts unless allowed. */
export const GROUND_TRUTH_MODEL_IDS: readonly string[] = ['sim-ground-truth', 'truth+noise'];

/**
 * `healthcare.monitor`: sensing frames and/or tracked pose frames in. From sensing frames: the
 * healthcare metrics record with `source: 'sensing'` (falls, activity, rest, mobility, inactivity
 * counted from CSI; the alerts of sensing come from `sense.alerts`). From estimated, tracked pose
 * frames: the pose rules' fall and inactivity events and alerts (labelled with the pose model) and
 * a record with `source: 'poses'`. Records go out every report_interval_seconds (frame time) and at the end.
 */
export const healthcareNode = defineNode({
  type: 'healthcare.monitor',
  title: 'Healthcare monitor',
  category: 'analytics',
  description: 'Healthcare metrics (falls, activity minutes, rest/sleep, mobility, inactivity) from CSI sensing frames (sense.room); from estimated tracked poses also the hip-drop fall and inactivity rules with events and alerts (put tracker.track before it). Ground-truth poses are refused unless allow_ground_truth_poses (evaluation).',
  inputs: {
    sensing: { type: DataTypes.SensingFrame, description: 'Per-room sensing frames (sense.room): the source of the sensing metrics record' },
    poses: { type: DataTypes.PoseFrame, description: 'Tracked pose frames estimated from CSI (pose-derived events, labelled with the pose model)' },
  },
  outputs: {
    events: { type: DataTypes.AnalyticsEvent, description: 'pose-derived fall_detection (re-sent with the same eventId on recovery or escalation) and inactivity events' },
    alerts: { type: DataTypes.Alert, description: 'pose-derived alerts after de-duplication and cool-down' },
    metrics: { type: DataTypes.Json, description: "healthcare metrics records (pose spec fields plus `source`: 'sensing' or 'poses'), periodically and at the end" },
  },
  config: HealthcareOptionsSchema,
  create(ctx) {
    const monitor = new HealthcareMonitor(ctx.config);
    const sensing = new SensingHealthMonitor(ctx.config);
    let inactivity = 0;
    let groundTruthFrames = 0;
    let sensingFrames = 0;
    let poseFrames = 0;
    let lastReport: number | null = null;
    let lastSensingReport: number | null = null;
    const interval = ctx.config.report_interval_seconds * 1000;
    const poseRecord = () => ({ ...healthcareRecord(monitor, { inactivityAlerts: inactivity }), source: 'poses' as const });
    const label = (frame: PoseFrame) => ({ derived_from: GROUND_TRUTH_MODEL_IDS.includes(frame.metadata.modelId) ? 'ground_truth_poses' : 'estimated_poses', pose_model_id: frame.metadata.modelId, pose_model_hash: frame.metadata.modelHash, provenance: frame.metadata.provenance });
    return {
      async receive(port, value) {
        if (port === 'sensing') {
          const frame = value as SensingFrame;
          sensing.update(frame);
          sensingFrames++;
          lastSensingReport ??= frame.time;
          if (frame.time - lastSensingReport >= interval) {
            lastSensingReport = frame.time;
            await ctx.emit('metrics', sensing.record());
          }
          return;
        }
        const frame = value as PoseFrame;
        const groundTruth = GROUND_TRUTH_MODEL_IDS.includes(frame?.metadata?.modelId);
        if (groundTruth && !ctx.config.allow_ground_truth_poses) {
          groundTruthFrames++;
          return;
        }
        poseFrames++;
        const out = monitor.update(frame);
        for (const e of out.events) {
          if (e.type === 'inactivity') inactivity++;
          e.metadata = { ...e.metadata, ...label(frame) };
          await ctx.emit('events', e as AnalyticsEvent);
        }
        for (const a of out.alerts) await ctx.emit('alerts', { ...a, data: { ...a.data, ...label(frame) } });
        lastReport ??= frame.timestamp;
        if (frame.timestamp - lastReport >= interval) {
          lastReport = frame.timestamp;
          await ctx.emit('metrics', poseRecord());
        }
      },
      async flush() {
        if (sensing.timeSpan) await ctx.emit('metrics', sensing.record());
        if (monitor.timeSpan) await ctx.emit('metrics', poseRecord());
      },
      stats: () => ({
        falls: monitor.falls().length,
        sensed_falls: sensing.falls().length,
        inactivity_events: inactivity,
        ignored_detections: monitor.ignoredDetections,
        sensing_frames: sensingFrames,
        pose_frames: poseFrames,
        ground_truth_frames_refused: groundTruthFrames,
        ignored_sensing_frames: sensing.ignoredFrames,
      }),
    };
  },
});
