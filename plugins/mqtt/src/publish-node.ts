import { z } from 'zod';
import { DataTypes, defineNode, Tokens, WIFLOW_VERSION, type Alert, type AnalyticsEvent, type ConfigStore, type PoseFrame, type SensingFrame } from '@wiflow/core';
import { discoveryMessages, isFallType, sensingDiscoveryMessages } from './discovery.js';
import { MqttErrors } from './errors.js';
import type { ConnectionStats, MqttConnection } from './mqtt-connection.js';
import { MqttTokens, type MqttService } from './mqtt-service.js';
import { isMqttEnabled } from './streaming.js';
import { checkTopicPrefix } from './topics.js';
import { alertProblem, alertToWire, eventProblem, eventToWire, occupancyToWire, poseFrameProblem, poseFrameToWire, poseSummaryToWire, presentPersons, sensingProblem, sensingToWire } from './wire.js';

const Qos = z.union([z.literal(0), z.literal(1), z.literal(2)]);

/** Config of the `mqtt.publish` node. `password` is a secret (write-only). */
export const MqttPublishConfig = z.object({
  url: z
    .string()
    .default('mqtt://127.0.0.1:1883')
    .refine((u) => /^(mqtts?|tcp|ssl|wss?):\/\/[^\s]+$/.test(u), 'must be an mqtt://, mqtts://, tcp://, ssl://, ws:// or wss:// URL')
    .describe('Broker URL'),
  username: z.string().max(256).optional().describe('Broker username'),
  password: z.string().max(1024).optional().describe('Broker password (write-only)'),
  clientId: z.string().max(128).optional().describe('MQTT client id (default: wiflow_<random>)'),
  topicPrefix: z
    .string()
    .default('wiflow')
    .superRefine((p, issues) => {
      const problem = checkTopicPrefix(p);
      if (problem) issues.addIssue({ code: 'custom', message: `topicPrefix ${problem}` });
    })
    .describe('First topic level(s): <prefix>/<environment>/...'),
  qos: z
    .object({
      poses: Qos.default(0).describe('QoS of pose frames'),
      state: Qos.default(1).describe('QoS of retained state (occupancy, pose summary, latest alert, discovery)'),
      events: Qos.default(1).describe('QoS of analytics events'),
      alerts: Qos.default(1).describe('QoS of alerts'),
    })
    .prefault({}),
  poses: z.enum(['full', 'summary', 'off']).default('full').describe('What goes on <prefix>/<env>/pose: whole frames, summaries without keypoints, or nothing'),
  poseIntervalMs: z.number().int().min(0).max(3_600_000).default(0).describe('Least time between two frames on <prefix>/<env>/pose per environment (0: every frame)'),
  retainState: z.boolean().default(true).describe('Publish retained latest state: occupancy, pose summary, latest alert'),
  summaryIntervalMs: z.number().int().min(0).max(3_600_000).default(1000).describe('Least time between two retained pose summaries per environment'),
  occupancyRefreshMs: z.number().int().min(0).max(86_400_000).default(60_000).describe('Republish an unchanged occupancy after this long (0: only on change)'),
  homeAssistant: z
    .object({
      enabled: z.boolean().default(true).describe('Publish Home Assistant MQTT discovery configs'),
      discoveryPrefix: z.string().default('homeassistant').refine((p) => checkTopicPrefix(p) === null, 'must be a valid topic prefix'),
      offDelaySeconds: z.number().int().min(1).max(86_400).default(60).describe('Seconds a fall/alert binary sensor stays ON'),
      environments: z.array(z.string().min(1)).default([]).describe('Environments announced at start (others when their first message arrives)'),
    })
    .prefault({}),
  reconnectPeriodMs: z.number().int().min(50).max(600_000).default(2000),
  connectTimeoutMs: z.number().int().min(100).max(600_000).default(10_000),
  keepaliveSeconds: z.number().int().min(0).max(65_535).default(30),
  bufferSize: z.number().int().min(1).max(1_000_000).default(1000).describe('Messages kept while the broker is unreachable (oldest pose frames dropped first)'),
  maxInFlight: z.number().int().min(1).max(65_535).default(1000).describe('Unacknowledged publishes before new ones are buffered'),
  closeTimeoutMs: z.number().int().min(0).max(60_000).default(5000).describe('How long closing waits for buffered messages to go out'),
});

/** Parsed `mqtt.publish` config. */
export type MqttPublishConfig = z.output<typeof MqttPublishConfig>;

interface EnvironmentState {
  announced: boolean;
  /** The CSI sensing entities were announced (on the environment's first room sensing frame). */
  sensingAnnounced: boolean;
  lastPoseAt: number;
  lastSummaryAt: number;
  lastOccupancy: number | null;
  lastOccupancyAt: number;
}

/**
 * `mqtt.publish`: a sink that publishes pose frames, analytics events and alerts on the
 * documented topics, keeps retained state (occupancy, pose summary, latest alert), and
 * announces Home Assistant entities. It publishes only while `streaming.mqtt_enabled` is on.
 */
export const mqttPublishNode = defineNode({
  type: 'mqtt.publish',
  title: 'MQTT publish',
  category: 'transports',
  description: 'Publishes poses, occupancy, events, alerts and CSI sensing to an MQTT broker (retained state, Home Assistant discovery, reconnects).',
  inputs: {
    poses: { type: DataTypes.PoseFrame },
    events: { type: DataTypes.AnalyticsEvent },
    alerts: { type: DataTypes.Alert },
    sensing: { type: DataTypes.SensingFrame, description: 'CSI sensing frames (sense.room, sense.link): retained state and Home Assistant presence, motion and breathing sensors' },
  },
  outputs: {},
  config: MqttPublishConfig,
  capabilities: ['net.connect'],
  secrets: ['password'],
  create(ctx) {
    const cfg = ctx.config;
    const service = ctx.services.get(MqttTokens.Service);
    const config = ctx.services.get(Tokens.Config);
    const environments = new Map<string, EnvironmentState>();
    let connection: MqttConnection | undefined;
    // Figures of the shared client as this node last saw them (kept after close for job results).
    let lastStats: ConnectionStats | undefined;
    const counts = { poses: 0, events: 0, alerts: 0, sensing: 0, skippedDisabled: 0, throttled: 0 };

    const connect = (): MqttConnection => {
      if (connection) return connection;
      connection = service.acquire({
        url: cfg.url,
        username: cfg.username,
        password: cfg.password,
        clientId: cfg.clientId,
        topicPrefix: cfg.topicPrefix,
        reconnectPeriodMs: cfg.reconnectPeriodMs,
        connectTimeoutMs: cfg.connectTimeoutMs,
        keepaliveSeconds: cfg.keepaliveSeconds,
        bufferSize: cfg.bufferSize,
        maxInFlight: cfg.maxInFlight,
      });
      if (cfg.homeAssistant.enabled) {
        connection.watchHomeAssistant(cfg.homeAssistant.discoveryPrefix);
        for (const environmentId of cfg.homeAssistant.environments) environment(environmentId);
      }
      return connection;
    };

    const environment = (environmentId: string): EnvironmentState => {
      let state = environments.get(environmentId);
      if (!state) {
        state = { announced: false, sensingAnnounced: false, lastPoseAt: -Infinity, lastSummaryAt: -Infinity, lastOccupancy: null, lastOccupancyAt: -Infinity };
        environments.set(environmentId, state);
      }
      if (!state.announced && cfg.homeAssistant.enabled && connection) {
        state.announced = true;
        const settings = { prefix: cfg.homeAssistant.discoveryPrefix, offDelaySeconds: cfg.homeAssistant.offDelaySeconds, softwareVersion: WIFLOW_VERSION };
        for (const message of discoveryMessages(connection.layout, environmentId, settings)) connection.retain(message.topic, JSON.stringify(message.payload), cfg.qos.state);
      }
      return state;
    };

    const enabled = (): boolean => {
      if (isMqttEnabled(config)) return true;
      counts.skippedDisabled++;
      return false;
    };

    const publishPose = (frame: PoseFrame) => {
      const mqtt = connect();
      const state = environment(frame.environmentId);
      const now = Date.now();
      const layout = mqtt.layout;
      if (cfg.poses !== 'off') {
        if (now - state.lastPoseAt >= cfg.poseIntervalMs) {
          state.lastPoseAt = now;
          const body = cfg.poses === 'full' ? poseFrameToWire(frame) : poseSummaryToWire(frame);
          mqtt.publish(layout.pose(frame.environmentId), JSON.stringify(body), { qos: cfg.qos.poses, priority: 'low' });
        } else {
          counts.throttled++;
        }
      }
      if (!cfg.retainState) return;
      if (now - state.lastSummaryAt >= cfg.summaryIntervalMs) {
        state.lastSummaryAt = now;
        mqtt.publish(layout.poseSummary(frame.environmentId), JSON.stringify(poseSummaryToWire(frame)), { qos: cfg.qos.state, retain: true });
      }
      const count = presentPersons(frame).length;
      const stale = cfg.occupancyRefreshMs > 0 && now - state.lastOccupancyAt >= cfg.occupancyRefreshMs;
      if (count !== state.lastOccupancy || stale) {
        state.lastOccupancy = count;
        state.lastOccupancyAt = now;
        mqtt.publish(layout.occupancy(frame.environmentId), JSON.stringify(occupancyToWire(frame)), { qos: cfg.qos.state, retain: true });
      }
    };

    const publishEvent = (event: AnalyticsEvent) => {
      const mqtt = connect();
      environment(event.environmentId);
      mqtt.publish(mqtt.layout.event(event.environmentId, event.type), JSON.stringify(eventToWire(event)), { qos: cfg.qos.events });
      if (cfg.homeAssistant.enabled && isFallType(event.type)) mqtt.publish(mqtt.layout.binaryState(event.environmentId, 'fall'), 'ON', { qos: cfg.qos.events });
    };

    const publishAlert = (alert: Alert) => {
      const mqtt = connect();
      environment(alert.environmentId);
      const body = JSON.stringify(alertToWire(alert));
      mqtt.publish(mqtt.layout.alerts(alert.environmentId), body, { qos: cfg.qos.alerts });
      if (cfg.retainState) mqtt.publish(mqtt.layout.latestAlert(alert.environmentId), body, { qos: cfg.qos.state, retain: true });
      if (cfg.homeAssistant.enabled) {
        mqtt.publish(mqtt.layout.binaryState(alert.environmentId, 'alert'), 'ON', { qos: cfg.qos.alerts });
        if (isFallType(alert.alertType)) mqtt.publish(mqtt.layout.binaryState(alert.environmentId, 'fall'), 'ON', { qos: cfg.qos.alerts });
      }
    };

    const publishSensing = (frame: SensingFrame) => {
      const mqtt = connect();
      const state = environment(frame.environmentId);
      const body = JSON.stringify(sensingToWire(frame));
      if (frame.scope === 'link' && frame.link) {
        mqtt.publish(mqtt.layout.sensingLink(frame.environmentId, frame.link.tx, frame.link.rx), body, { qos: cfg.qos.state, retain: true });
        return;
      }
      if (cfg.homeAssistant.enabled && !state.sensingAnnounced) {
        state.sensingAnnounced = true;
        const settings = { prefix: cfg.homeAssistant.discoveryPrefix, offDelaySeconds: cfg.homeAssistant.offDelaySeconds, softwareVersion: WIFLOW_VERSION };
        for (const message of sensingDiscoveryMessages(mqtt.layout, frame.environmentId, settings)) mqtt.retain(message.topic, JSON.stringify(message.payload), cfg.qos.state);
      }
      mqtt.publish(mqtt.layout.sensing(frame.environmentId), body, { qos: cfg.qos.state, retain: true });
      if (cfg.homeAssistant.enabled && frame.falls.length) mqtt.publish(mqtt.layout.binaryState(frame.environmentId, 'fall'), 'ON', { qos: cfg.qos.events });
    };

    if (isMqttEnabled(config)) connect();

    // Per input port: what checks a value, what publishes it (its count has the port's name).
    const inputs: Record<string, { problem: (value: unknown) => string | null; publish: (value: never) => void }> = {
      poses: { problem: poseFrameProblem, publish: publishPose },
      events: { problem: eventProblem, publish: publishEvent },
      alerts: { problem: alertProblem, publish: publishAlert },
      sensing: { problem: sensingProblem, publish: publishSensing },
    };

    return {
      receive(port, value) {
        const input = inputs[port];
        if (!input) return;
        const problem = input.problem(value);
        if (problem) throw MqttErrors.invalidInput(port, problem);
        if (!enabled()) return;
        counts[port as 'poses' | 'events' | 'alerts' | 'sensing']++;
        input.publish(value as never);
      },
      // Upstream is done (a job's inputs are used up): the run ends once what was published went out.
      async flush() {
        if (connection) await connection.drain(cfg.closeTimeoutMs);
      },
      async close() {
        if (!connection) return;
        const held = connection;
        connection = undefined;
        lastStats = held.stats();
        await held.drain(cfg.closeTimeoutMs);
        await service.release(held);
        lastStats = { ...held.stats(), connected: false };
      },
      stats() {
        const s = connection?.stats() ?? lastStats;
        return {
          poses: counts.poses,
          events: counts.events,
          alerts: counts.alerts,
          sensing: counts.sensing,
          skipped_disabled: counts.skippedDisabled,
          throttled: counts.throttled,
          connected: s ? (s.connected ? 1 : 0) : 0,
          published: s?.published ?? 0,
          failed: s?.failed ?? 0,
          dropped: s?.dropped ?? 0,
          buffered: s?.buffered ?? 0,
          connects: s?.connects ?? 0,
          reconnect_attempts: s?.reconnectAttempts ?? 0,
          last_error: s?.lastError ?? null,
        };
      },
    };
  },
});
