import { jetstream } from '@nats-io/jetstream';
import type { Alert, PoseFrame } from '@wiflow/core';
import { describe, expect, it, vi } from 'vitest';
import { AlertFeedKind, ClusterFeed, PoseFeedKind, encodeValue } from '../index.js';
import { NATS_SERVER, useNatsServer } from '../nats-server.test-helper.js';

if (!NATS_SERVER) console.warn('cluster feed test skipped: nats-server is not installed (apt-get install nats-server; .ci/run installs it)');

// Moved here from the pose API with the feed itself (issue 23): the API only plugs the feeds in.
describe.skipIf(!NATS_SERVER)('cluster feeds of pose frames and alerts (real nats-server)', () => {
  const nats = useNatsServer({ streams: true });

  it('every API instance sees every pose frame and alert live; the shared storage consumers write each once', async () => {
    const [a, b, publisher] = await Promise.all([nats.server.connect(), nats.server.connect(), nats.server.connect()]);
    const poseFeeds = [new ClusterFeed(a, PoseFeedKind, { batch: 8 }), new ClusterFeed(b, PoseFeedKind, { batch: 8 })];
    const alertFeeds = [new ClusterFeed(a, AlertFeedKind, { batch: 8 }), new ClusterFeed(b, AlertFeedKind, { batch: 8 })];
    const live: PoseFrame[][] = [[], []];
    const stored: PoseFrame[][] = [[], []];
    const liveAlerts: Alert[][] = [[], []];
    const storedAlerts: Alert[][] = [[], []];
    for (const i of [0, 1]) {
      await poseFeeds[i].live((frame) => live[i].push(frame));
      await poseFeeds[i].store(async (frames) => void stored[i].push(...frames));
      await alertFeeds[i].live((alert) => liveAlerts[i].push(alert));
      await alertFeeds[i].store(async (alerts) => void storedAlerts[i].push(...alerts));
    }
    const js = jetstream(publisher);
    const total = 120;
    for (let i = 0; i < total; i++) {
      const frame = { timestamp: 1000 + i, frameId: i, environmentId: `room-${i % 4}`, persons: [], metadata: { weights: new Float32Array([i]) } };
      await js.publish(`pose.room-${i % 4}`, encodeValue(frame));
    }
    for (let i = 0; i < 10; i++) {
      const alert: Alert = { alertId: `a-${i}`, alertType: 'fall_detection', severity: 'high', timestamp: 2000 + i, environmentId: `room-${i % 2}`, message: 'fall', data: {}, actionsRequired: [], eventId: null, source: 'test' };
      await js.publish(`alerts.room-${i % 2}`, encodeValue(alert));
    }
    await js.publish('pose.room-0', 'not json');
    await js.publish('alerts.room-0', encodeValue({ alertId: 'no-type' }));
    // Wait for every value on both live feeds, every value stored, and the bad messages rejected by both live feeds (they come last).
    const rejected = () => poseFeeds[0].counters.rejected + poseFeeds[1].counters.rejected + alertFeeds[0].counters.rejected + alertFeeds[1].counters.rejected;
    await vi.waitFor(
      () => expect(live.every((l) => l.length === total) && liveAlerts.every((l) => l.length === 10) && stored[0].length + stored[1].length === total && storedAlerts[0].length + storedAlerts[1].length === 10 && rejected() >= 4).toBe(true),
      { timeout: 20_000, interval: 10 },
    );
    expect(live[0].map((f) => f.timestamp)).toEqual(live[1].map((f) => f.timestamp));
    const keys = [...stored[0], ...stored[1]].map((f) => `${f.environmentId}.${f.timestamp}`);
    expect(new Set(keys).size).toBe(total);
    expect(new Set([...storedAlerts[0], ...storedAlerts[1]].map((a) => a.alertId)).size).toBe(10);
    expect((live[0][5].metadata as unknown as { weights: Float32Array }).weights).toBeInstanceOf(Float32Array);
    await Promise.all([...poseFeeds, ...alertFeeds].map((f) => f.stop()));
  }, 30_000);
});
