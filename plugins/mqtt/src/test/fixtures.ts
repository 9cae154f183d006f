// Test fixtures: pose frames, events and alerts shaped like the core types, and a pushable source node.
import { z } from 'zod';
import { COCO_KEYPOINTS, defineNode, definePlugin, type Alert, type AnalyticsEvent, type Person, type PoseFrame, type SensingFrame, type WiflowPlugin } from '@wiflow/core';

/** One second of CSI sensing for a room (or a link when `link` is given). */
export function sensingFrame(second: number, patch: Partial<SensingFrame> = {}, environmentId = 'living-room'): SensingFrame {
  return { time: 1_700_000_000_000 + (second + 1) * 1000, second, scope: 'room', environmentId, link: null, presence: true, state: 'still', motion: 0.04, breathingBpm: 15.2, breathingReason: null, breathingQuality: 6.5, activity: null, falls: [], lostFraction: 0, estimatorId: 'wiflow-sense-v1', configHash: '0123456789abcdef', provenance: 'replay', ...patch };
}

/** A person at floor position (x, y). */
export function person(id: number, x: number, y: number, confidence = 0.9): Person {
  return {
    id,
    trackId: 100 + id,
    confidence,
    keypoints: COCO_KEYPOINTS.map((name, i) => ({ name, x: 100 + i, y: 200 + i, confidence, visible: true })),
    boundingBox: { x: 90, y: 190, width: 40, height: 120 },
    keypoints3d: COCO_KEYPOINTS.map((name, i) => ({ name, x, y, z: 1.7 - i * 0.1, confidence })),
    position: { x, y },
    activity: 'standing',
    trackStatus: 'active',
  };
}

/** A pose frame of `count` persons in an environment. */
export function poseFrame(frameId: number, count: number, environmentId = 'living-room'): PoseFrame {
  return {
    timestamp: Date.UTC(2026, 0, 1, 12, 0, 0) + frameId * 50,
    frameId,
    environmentId,
    processingTimeMs: 3.5,
    persons: Array.from({ length: count }, (_, i) => person(i, 1 + i, 2)),
    metadata: { modelId: 'wiflow-pose-v1', modelHash: 'abc123', modelVersion: '1.0.0', processingMode: 'realtime', provenance: 'simulated', csiQuality: 0.8, linkCount: 2, pipeline: 'test' },
  };
}

/** An analytics event. */
export function analyticsEvent(type: string, environmentId = 'living-room', id = `evt-${type}`): AnalyticsEvent {
  return { eventId: id, type, severity: 'high', timestamp: Date.UTC(2026, 0, 1, 12, 0, 1), environmentId, personId: 0, trackId: 100, confidence: 0.93, location: { x: 1, y: 2 }, metadata: { fall_duration: 1.2 }, actionsTaken: [], source: 'healthcare.fall/hip-drop-v1' };
}

/** An alert. */
export function alert(alertType: string, environmentId = 'living-room', id = `alert-${alertType}`): Alert {
  return { alertId: id, alertType, severity: 'critical', timestamp: Date.UTC(2026, 0, 1, 12, 0, 2), environmentId, message: `${alertType} in ${environmentId}`, data: { person_id: 0, location: { x: 1, y: 2 }, confidence: 0.93 }, actionsRequired: ['check on person'], eventId: 'evt-fall_detection', source: 'healthcare.fall/hip-drop-v1' };
}

/** Channels of the `test.push` source: the test pushes values, the node emits them. */
export const pushChannels = new Map<string, (value: unknown) => void>();

/** A stream source that emits what the test pushes into its channel until the pipeline stops. */
export const pushPlugin: WiflowPlugin = definePlugin({
  name: 'test:push',
  setup(ctx) {
    ctx.registerNode(
      defineNode({
        type: 'test.push',
        title: 'Push source',
        category: 'testing',
        description: 'Emits values pushed by the test.',
        inputs: {},
        outputs: { out: { type: 'any' } },
        config: z.object({ channel: z.string() }),
        source: true,
        create(node) {
          return {
            run: () =>
              new Promise<void>((resolve) => {
                pushChannels.set(node.config.channel, (value) => void node.emit('out', value));
                node.signal.addEventListener('abort', () => {
                  pushChannels.delete(node.config.channel);
                  resolve();
                });
              }),
          };
        },
      }),
    );
  },
});
