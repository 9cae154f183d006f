import { serviceToken, type ServiceToken } from '@wiflow/core';
import { z } from 'zod';
import { defineNode, type Alert, type AnalyticsEvent, type PoseFrame, type SensingFrame } from '@wiflow/core';
import type { PoseHub } from './pose-hub.js';

/** Service token of the runtime's PoseHub. */
export const PoseHubToken: ServiceToken<PoseHub> = serviceToken<PoseHub>('wiflow.pose-api.PoseHub');

/** `pose.publish`: the pipeline's sink for the pose API and /ws/pose. */
export const posePublishNode = defineNode({
  type: 'pose.publish',
  title: 'Publish poses',
  category: 'transports',
  description: "Makes pose frames, analytics events and alerts visible to the pose API (GET /pose/latest), the /ws/pose stream and storage (batched writes). Sensing frames (sense.room) give the pose frames' activity in their room and answer occupancy where nobody is located.",
  inputs: {
    poses: { type: 'PoseFrame', description: 'Pose frames' },
    events: { type: 'AnalyticsEvent', description: 'Analytics events (stored, streamed)' },
    alerts: { type: 'Alert', description: 'Alerts (stored, streamed on the alerts channel)' },
    sensing: { type: 'SensingFrame', description: "Per-room sensing frames: the persons' activity of the room's pose frames, and occupancy where nobody is located" },
  },
  outputs: {},
  config: z.object({}),
  create(ctx) {
    const hub = ctx.services.get(PoseHubToken);
    return {
      receive(port, value) {
        if (port === 'poses') return hub.publishFrame(value as PoseFrame);
        else if (port === 'events') return hub.publishEvent(value as AnalyticsEvent);
        else if (port === 'alerts') return hub.publishAlert(value as Alert);
        else if (port === 'sensing') return hub.publishSensing(value as SensingFrame);
      },
      flush: () => hub.flush(),
      close: () => hub.flush(),
    };
  },
});
