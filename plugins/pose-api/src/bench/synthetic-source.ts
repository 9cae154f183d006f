import { z } from 'zod';
import { COCO_KEYPOINTS, defineNode, definePlugin, type Alert, type Person, type PoseFrame, type WiflowPlugin } from '@wiflow/core';

/**
 * A deterministic synthetic pose frame for benchmarks and tests of the API (not model
 * output: provenance 'simulated', model id 'synthetic'): `persons` people walking across a 6 m room.
 */
export function syntheticFrame(frameId: number, environmentId = 'lab', persons = 2, timestamp = Date.now()): PoseFrame {
  const people: Person[] = Array.from({ length: persons }, (_, i) => {
    const x = (frameId * 0.05 + i) % 6;
    const y = 1 + i;
    return {
      id: i,
      trackId: 100 + i,
      confidence: i === 0 ? 0.9 : 0.4,
      keypoints: COCO_KEYPOINTS.map((name, k) => ({ name, x: 100 + x * 50 + k, y: 50 + k * 10, confidence: 0.8, visible: true })),
      boundingBox: { x: 90 + x * 50, y: 40, width: 60, height: 180 },
      keypoints3d: [],
      position: { x, y },
      velocity: { x: 0.5, y: 0 },
      trackAge: frameId,
      trackStatus: 'active',
      densePose: { source: 'derived', bodyParts: [{ partId: 1, partName: 'torso', uvCoordinates: [[0.5, 0.5]], confidence: 0.7 }] },
      activity: i === 0 ? 'walking' : 'sitting',
    };
  });
  return {
    timestamp,
    frameId,
    environmentId,
    processingTimeMs: 3.5,
    persons: people,
    metadata: { modelId: 'synthetic', modelHash: 'sha256:synthetic', modelVersion: '0', processingMode: 'realtime', provenance: 'simulated', csiQuality: 0.9, linkCount: 3, pipeline: 'synthetic' },
  };
}

/** `synthetic.poses`: emits synthetic frames every `intervalMs` until stopped, an alert every `alertEvery` frames. */
export const syntheticPoseSource = defineNode({
  type: 'synthetic.poses',
  title: 'Synthetic pose source',
  category: 'sources',
  description: 'Synthetic pose frames for API tests and benchmarks (not model output).',
  inputs: {},
  outputs: { poses: { type: 'PoseFrame' }, alerts: { type: 'Alert' } },
  config: z.object({ intervalMs: z.number().positive().default(20), alertEvery: z.number().int().min(0).default(0), environmentId: z.string().default('lab'), persons: z.number().int().min(0).default(2) }),
  source: true,
  create(ctx) {
    return {
      async run() {
        let frameId = 0;
        const started = performance.now();
        while (!ctx.signal.aborted) {
          frameId++;
          await ctx.emit('poses', syntheticFrame(frameId, ctx.config.environmentId, ctx.config.persons));
          if (ctx.config.alertEvery && frameId % ctx.config.alertEvery === 0) {
            const intrusion = frameId % (2 * ctx.config.alertEvery) === 0;
            const alert: Alert = {
              alertId: `alert-${frameId}`,
              alertType: intrusion ? 'intrusion' : 'fall_detection',
              severity: intrusion ? 'critical' : 'high',
              timestamp: Date.now(),
              environmentId: ctx.config.environmentId,
              message: 'synthetic alert',
              data: { person_id: 0, location: { x: 1, y: 2 }, confidence: 0.95 },
              actionsRequired: ['check_room'],
              eventId: null,
              source: 'synthetic',
            };
            await ctx.emit('alerts', alert);
          }
          // Schedule against the start time so the rate does not drift with handler time.
          const due = started + frameId * ctx.config.intervalMs;
          await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - performance.now())));
        }
      },
    };
  },
});

/** A plugin registering the synthetic source (tests and benchmarks only; the pose API does not register it). */
export const syntheticSourcePlugin: WiflowPlugin = definePlugin({ name: 'pose-api:synthetic', setup: (ctx) => ctx.registerNode(syntheticPoseSource) });
