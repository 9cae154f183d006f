import { definePlugin, Tokens } from '@wiflow/core';
import { ClusterConfig, resolveClusterSettings } from './cluster/cluster-config.js';
import { CLUSTER_SERVICE, ClusterService } from './cluster/cluster-service.js';
import { NatsConfig, type NatsSettings } from './config.js';
import { natsPublishNode } from './nodes/publish.js';
import { natsSubscribeNode } from './nodes/subscribe.js';
import { NATS_SERVICE, NatsService } from './service.js';

export { encodeValue, decodeValue, valueSet, valuesOf } from './codec.js';
export { Subjects, Streams, fillSubject, fillMessageId, streamFor, streamKind, token, type StreamKind } from './subjects.js';
export { NatsConfig, StreamRetentionConfig, type NatsSettings, type StreamLimits } from './config.js';
export { NatsService, NATS_SERVICE, streamLimits } from './service.js';
export { natsPublishNode, NatsPublishConfig, PUBLISHER_HEADER } from './nodes/publish.js';
export { natsSubscribeNode, NatsSubscribeConfig, RoomShardConfig } from './nodes/subscribe.js';
export { RoomShards, shardSubject, type RoomShardsOptions } from './cluster/room-shards.js';
export { assignRooms } from './cluster/room-assignment.js';
export { ClusterConfig, resolveClusterSettings, type ClusterSettings, type ClusterConfigValue } from './cluster/cluster-config.js';
export { ClusterHeartbeat, HEARTBEAT_SUBJECT, type InstanceHeartbeat, type ClusterMember } from './cluster/cluster-heartbeat.js';
export { ClusterService, CLUSTER_SERVICE, type InstanceReport } from './cluster/cluster-service.js';
export { PoseClusterLink, type PoseClusterLinkOptions } from './cluster/pose-cluster-link.js';
export { ClusterFeed, PoseFeedKind, AlertFeedKind, SensingFeedKind, type FeedKind, type FeedCounters } from './cluster/cluster-feed.js';
export { NatsRateLimitStore } from './cluster/nats-rate-limit-store.js';

/** The plugin's name (tap name of its hooks). */
export const PLUGIN_NAME = '@wiflow/plugin-nats';

/** The NATS JetStream transport plugin; with `cluster.enabled` the runtime also joins the cluster (heartbeats). */
export default definePlugin({
  name: PLUGIN_NAME,
  config: { nats: NatsConfig, cluster: ClusterConfig },
  setup(ctx) {
    let service: NatsService | undefined;
    let cluster: ClusterService | undefined;
    ctx.services.provide(NATS_SERVICE, () => (service = new NatsService(ctx.config.nats as NatsSettings, ctx.logger)));
    ctx.services.provide(CLUSTER_SERVICE, () => {
      cluster = new ClusterService(ctx.services.get(Tokens.Flows), ctx.services.get(NATS_SERVICE), resolveClusterSettings(ctx.config.cluster), ctx.logger);
      return cluster;
    });
    ctx.registerNode(natsPublishNode);
    ctx.registerNode(natsSubscribeNode);
    ctx.hooks.start.tapPromise(PLUGIN_NAME, async () => {
      const members = ctx.services.get(CLUSTER_SERVICE);
      // Fails the start when NATS cannot be reached: an instance that cannot join is no use to the cluster.
      if (members.enabled) await members.start();
    });
    ctx.hooks.stop.tapPromise(PLUGIN_NAME, async () => {
      cluster?.stop();
      await service?.close();
    });
  },
});
