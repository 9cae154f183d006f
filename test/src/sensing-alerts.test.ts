// Sensing frames feed the product (issue 22 item 3): falls and inactivity sensed from CSI reach the
// WebSocket stream, a real MQTT broker (mosquitto) and a real webhook receiver on loopback; the pose
// API's events, pose frames' activity and occupancy come from the sensing frames.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { FlowData, Runtime, SensingFrame } from '@wiflow/core';
import { ArrivalWaiters, buildFlow, createTestRuntime, runFlow } from '@wiflow/core/testing';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import simPlugin from '@wiflow/plugin-sim';
import sensingPlugin, { SENSE_FALL_RULE } from '@wiflow/plugin-sensing';
import mqttPlugin from '@wiflow/plugin-mqtt';
import webhookPlugin from '@wiflow/plugin-webhook';
import { createPoseApiPlugin, PoseApiToken, PoseHubToken, type PoseApi, type PoseHub } from '@wiflow/plugin-pose-api';
import { createIdentityPlugin } from '@wiflow/plugin-identity';
// Test helpers of the transport plugins (a real broker child process, a real receiver), not their code under test.
import { hasMosquitto, MOSQUITTO_PATH, startMosquitto } from '../../plugins/mqtt/src/bench/brokers.js';
import { Subscriber } from '../../plugins/mqtt/src/test/subscriber.js';
import { Receiver } from '../../plugins/webhook/src/test/receiver.js';
import { ROOT } from './support/server.js';

const SECRET = 'a-webhook-secret-of-some-length';
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A WebSocket client of /ws/pose that keeps what it receives. */
class StreamClient {
  readonly messages: Record<string, any>[] = [];
  readonly #waiters = new ArrivalWaiters();
  constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => {
      this.messages.push(JSON.parse(data.toString()));
      this.#waiters.arrived();
    });
  }
  static open(url: string, token: string): Promise<StreamClient> {
    const socket = new WebSocket(`${url.replace('http', 'ws')}/ws/pose?token=${encodeURIComponent(token)}`);
    const client = new StreamClient(socket);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client));
      socket.once('error', reject);
    });
  }
  until(test: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    return this.#waiters.until(test, what, timeoutMs, () => `${this.messages.length} messages`);
  }
  alerts(): Record<string, any>[] {
    return this.messages.filter((m) => m.type === 'alert');
  }
}

/** The product in one process: SQLite, the pose API on loopback, mosquitto, a webhook receiver, a /ws/pose client subscribed to alerts. */
async function startProduct() {
  const broker = await startMosquitto();
  cleanups.push(() => broker.close());
  const receiver = new Receiver(SECRET);
  await receiver.listen();
  cleanups.push(() => receiver.close());
  const runtime: Runtime = await createTestRuntime({
    plugins: [sqlitePlugin, simPlugin, sensingPlugin, mqttPlugin, webhookPlugin, createIdentityPlugin({ print: () => undefined, env: { WIFLOW_JWT_SECRET: '' } }), createPoseApiPlugin({ env: { WIFLOW_JWT_SECRET: '' } })],
    config: { storage: { kind: 'sqlite', flushIntervalMs: 5 }, webhooks: { baseDelayMs: 20, maxDelayMs: 200 } },
  });
  cleanups.push(() => runtime.stop(5000));
  const { url } = await runtime.listen(0, '127.0.0.1');
  const api = runtime.services.get(PoseApiToken);
  const admin = await runtime.storage.users.create({ username: 'carer', password: 'carer-password-123', roles: ['admin'] });
  const token = api.auth.signAccessToken(admin).token;
  const registered = await fetch(`${url}/api/v1/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ url: receiver.url, event_types: ['alert.*'], secret: SECRET }),
  });
  expect(registered.status, await registered.clone().text()).toBe(201);
  const subscriber = await Subscriber.connect(broker.url, ['wiflow/#', 'homeassistant/#']);
  cleanups.push(() => subscriber.close());
  const stream = await StreamClient.open(url, token);
  cleanups.push(() => stream.socket.close());
  await stream.until(() => stream.messages.some((m) => m.type === 'connection_established'), 'connection_established');
  stream.socket.send(JSON.stringify({ type: 'subscribe', channel: 'alerts', filters: {}, request_id: 'alerts' }));
  await stream.until(() => stream.messages.some((m) => m.request_id === 'alerts'), 'the alerts subscription');
  const get = async (pathname: string) => {
    const response = await fetch(`${url}/api/v1${pathname}`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status, pathname).toBe(200);
    return (await response.json()) as any;
  };
  return { runtime, url, broker, receiver, subscriber, stream, get };
}

/** One room second as sense.room emits it. */
function roomSecond(t0: number, s: number, patch: Partial<SensingFrame> = {}): SensingFrame {
  return { time: t0 + (s + 1) * 1000, second: s, scope: 'room', environmentId: 'flat', link: null, presence: true, state: 'moving', motion: 0.8, breathingBpm: null, breathingReason: 'moving', breathingQuality: null, activity: 'walking', falls: [], lostFraction: 0.02, estimatorId: 'wiflow-sense-v1', configHash: '0123456789abcdef', provenance: 'live', ...patch };
}

function poseFrame(timestamp: number, persons: number) {
  return {
    timestamp, frameId: timestamp, environmentId: 'flat', processingTimeMs: 1,
    persons: Array.from({ length: persons }, (_, i) => ({ id: i, trackId: i + 1, confidence: 0.8, keypoints: [], boundingBox: { x: 0, y: 0, width: 10, height: 10 }, keypoints3d: [], position: { x: 1 + i, y: 1 }, activity: 'standing' as const })),
    metadata: { modelId: 'wiflow-locate-v1', modelHash: 'sha256:x', modelVersion: '1', processingMode: 'realtime', provenance: 'live' as const, csiQuality: 0.9, linkCount: 1, pipeline: 'test' },
  };
}

describe.skipIf(!hasMosquitto())('sensing frames into the product', () => {
  it('a sensed fall and inactivity reach /ws/pose, MQTT and the webhook; events, activity, occupancy and the Home Assistant sensors of each room come from the sensing frames', async () => {
    const p = await startProduct();
    const t0 = Date.now() - 40_000;
    // Empty 5 s, walking in, a fall at second 20, still afterwards.
    const sensing: SensingFrame[] = [];
    for (let s = 0; s < 40; s++) {
      if (s < 5) sensing.push(roomSecond(t0, s, { presence: false, state: 'empty', motion: 0.02, activity: null, breathingReason: 'empty' }));
      else if (s < 20) sensing.push(roomSecond(t0, s));
      else if (s === 20) sensing.push(roomSecond(t0, s, { motion: 0.97, activity: 'fall', falls: [{ time: t0 + 20_600, confidence: 0.91 }] }));
      else sensing.push(roomSecond(t0, s, { state: 'still', motion: 0.05, activity: null, breathingBpm: 13, breathingReason: null, breathingQuality: 4 }));
    }
    // A second room, empty: Home Assistant gets its own sensors.
    for (let s = 0; s < 3; s++) sensing.push(roomSecond(t0, s, { environmentId: 'kitchen', presence: false, state: 'empty', motion: 0.01, activity: null, breathingReason: 'empty' }));
    // Pose frames of the same time: one person located while walking (second 10), two at second 15, nobody located after the fall.
    const poses = [poseFrame(t0 + 10_500, 1), poseFrame(t0 + 15_500, 2), poseFrame(Date.now() - 1000, 0)];
    const flow = buildFlow(
      {
        sensing: ['test.feed', { input: 'sensing' }],
        poses: ['test.feed', { input: 'poses' }],
        // Inactivity after 15 s still: the still stretch counts from the end of second 21 (t0 + 22 s).
        alerts: ['sense.alerts', { inactivityMinutes: 0.25 }],
        publish: ['pose.publish', {}],
        mqtt: ['mqtt.publish', { url: p.broker.url, summaryIntervalMs: 0 }],
        webhook: ['webhook.deliver', {}],
      },
      ['sensing.out -> alerts.sensing', 'sensing.out -> publish.sensing', 'sensing.out -> mqtt.sensing', 'poses.out -> publish.poses', 'alerts.events -> publish.events', 'alerts.alerts -> publish.alerts', 'alerts.alerts -> mqtt.alerts', 'alerts.alerts -> webhook.alerts'],
    );
    // Sensing first, so the pose frames meet the room's frames of their time.
    const result = await runFlow(p.runtime, flow, { sensing, poses: [] });
    expect(result.status, result.error ?? '').toBe('completed');
    const published: any[] = [];
    const unsubscribe = p.runtime.services.get(PoseHubToken).subscribe({ frame: (f) => published.push(f) });
    cleanups.push(unsubscribe);
    const posed = await runFlow(p.runtime, buildFlow({ poses: ['test.feed', { input: 'poses' }], publish: ['pose.publish', {}] }, ['poses.out -> publish.poses']), { poses });
    expect(posed.status, posed.error ?? '').toBe('completed');

    const isSensedFall = (type: unknown, source: unknown) => type === 'fall_detection' && source === SENSE_FALL_RULE;
    await p.stream.until(() => p.stream.alerts().some((a) => isSensedFall(a.alert_type, a.source)), 'the fall alert on /ws/pose');
    const wsAlert = p.stream.alerts().find((a) => isSensedFall(a.alert_type, a.source))!;
    expect(wsAlert).toMatchObject({ environment_id: 'flat', severity: 'high', timestamp: new Date(t0 + 20_600).toISOString() });
    await p.subscriber.until(() => p.subscriber.json('wiflow/flat/alerts').some((a) => isSensedFall(a.alert_type, a.source)), 'the fall alert on MQTT');
    await p.receiver.until(() => p.receiver.accepted().some((r) => r.json.type === 'alert.fall_detection'), 'the fall alert at the webhook');
    const delivered = p.receiver.accepted().find((r) => r.json.type === 'alert.fall_detection')!;
    expect(delivered.signatureValid).toBe(true);
    expect(JSON.stringify(delivered.json)).toContain(SENSE_FALL_RULE);
    expect(JSON.stringify(delivered.json)).toContain('wiflow-sense-v1');

    // Home Assistant discovery: presence, motion and breathing sensors per room, fed by the room's retained sensing state.
    for (const room of ['flat', 'kitchen']) {
      const topics = [`homeassistant/binary_sensor/wiflow_${room}_presence/config`, `homeassistant/sensor/wiflow_${room}_motion/config`, `homeassistant/sensor/wiflow_${room}_breathing/config`];
      await p.subscriber.until(() => topics.every((t) => p.subscriber.json(t).length > 0), `Home Assistant discovery of ${room}`);
      for (const t of topics) expect(p.subscriber.json(t)[0], t).toMatchObject({ state_topic: `wiflow/${room}/sensing` });
    }
    expect(p.subscriber.json('homeassistant/binary_sensor/wiflow_flat_presence/config')[0]).toMatchObject({ device_class: 'occupancy' });
    expect(p.subscriber.json('homeassistant/sensor/wiflow_flat_breathing/config')[0]).toMatchObject({ unit_of_measurement: 'breaths/min' });
    expect(p.subscriber.json('wiflow/flat/sensing').at(-1)).toMatchObject({ presence: true, state: 'still', breathing_bpm: 13 });
    expect(p.subscriber.json('wiflow/kitchen/sensing').at(-1)).toMatchObject({ presence: false, state: 'empty', breathing_bpm: null });

    // The inactivity alert takes the same three ways.
    await p.stream.until(() => p.stream.alerts().some((a) => a.alert_type === 'inactivity'), 'the inactivity alert on /ws/pose');
    await p.subscriber.until(() => p.subscriber.json('wiflow/flat/alerts').some((a) => a.alert_type === 'inactivity'), 'the inactivity alert on MQTT');
    await p.receiver.until(() => p.receiver.accepted().some((r) => r.json.type === 'alert.inactivity'), 'the inactivity alert at the webhook');
    expect(p.stream.alerts().find((a) => a.alert_type === 'inactivity')).toMatchObject({ environment_id: 'flat', source: 'sensing.inactivity/still-v1', timestamp: new Date(t0 + 37_000).toISOString() });

    // /analytics/events: the sensed fall and the presence change, with room, confidence, estimator and provenance.
    const events = (await p.get('/analytics/events?environment_id=flat&per_page=100')) as any;
    const list = (Array.isArray(events) ? events : events.events ?? events.data) as Record<string, any>[];
    const fall = list.find((e) => e.type === 'fall_detection')!;
    expect(fall).toMatchObject({ environment_id: 'flat', confidence: 0.91, source: SENSE_FALL_RULE, metadata: { scope: 'room', link: null, estimator: 'wiflow-sense-v1', config_hash: '0123456789abcdef', provenance: 'live' } });
    const presence = list.filter((e) => e.type === 'presence_change');
    expect(presence.map((e) => [e.timestamp, e.metadata.presence])).toEqual([[new Date(t0 + 6000).toISOString(), true]]);

    // The pose frames' activity: the room's sensing activity for one person; null with the reason for two.
    const [one, two] = published;
    expect(one.persons[0].activity).toBe('walking');
    expect(one.metadata.activitySource).toEqual({ kind: 'sensing', estimatorId: 'wiflow-sense-v1', configHash: '0123456789abcdef', provenance: 'live', nullReason: null });
    expect(two.persons.map((x: { activity: unknown }) => x.activity)).toEqual([null, null]);
    expect(two.metadata.activitySource.nullReason).toBe('several_people');

    // occupancy_now: nobody located in the latest pose frame, the room's sensing says someone is there (still, breathing).
    const occupancyFlow = JSON.parse(readFileSync(path.join(ROOT, 'examples/flows/occupancy-now.json'), 'utf8')) as { data: FlowData };
    const job = await (await p.runtime.runJob(occupancyFlow.data, { inputs: { environment_id: 'flat' } })).done;
    expect(job.status, job.error ?? '').toBe('completed');
    expect(job.outputs.occupancy).toMatchObject({ environment_id: 'flat', basis: 'sensing', stale: false, person_count: null, persons: [], source: { model_id: 'wiflow-locate-v1' }, sensing: { presence: true, state: 'still', breathing_bpm: 13, estimator_id: 'wiflow-sense-v1', provenance: 'live' } });
  }, 60_000);
});

/** How long the demo scenario runs in the end-to-end test (s of scenario time, as fast as the simulator goes). */
const DEMO_SECONDS = 170;
/** A sensed fall counts for a scripted one when its alert's time lies this close after it (ms). */
const FALL_MATCH = { beforeMs: 2000, afterMs: 10_000 };

/**
 * A goal test of issue 22 (the demo home's scripted falls raise alerts from CSI), not met yet: the alert path now
 * raises falls in time order at their own time, but on the demo's simulated CSI the fall model raises none of the
 * five scripted falls of these 170 s and one false one, at 134 s (2026-11-29; two, at 63 and 134 s, on 2026-11-26;
 * docs/sensing.md, "The demo home's falls"). It runs with WIFLOW_GOAL_TESTS=1 and is skipped, saying so, otherwise.
 */
const GOAL_TESTS = process.env.WIFLOW_GOAL_TESTS === '1';
if (!GOAL_TESTS) console.log('sensing-alerts: the demo-home fall test is skipped (goal test of issue 22, not met yet: see docs/sensing.md); run with WIFLOW_GOAL_TESTS=1');

describe.skipIf(!hasMosquitto() || !GOAL_TESTS)('the demo home through the sensing chain', () => {
  it("raises an alert on /ws/pose, MQTT and the webhook near each of the scenario's scripted falls, and none elsewhere", async () => {
    const p = await startProduct();
    const demo = JSON.parse(readFileSync(path.join(ROOT, 'examples/flows/default-pipeline.json'), 'utf8')) as { data: FlowData };
    const byId = new Map(demo.data.nodes.map((n) => [n.id, n]));
    const nodeOf = (id: string): [string, Record<string, unknown>] => [byId.get(id)!.data.nodeType, { ...(byId.get(id)!.data.config as Record<string, unknown>) }];
    const [simType, simConfig] = nodeOf('sim');
    simConfig.scenario = path.join(ROOT, simConfig.scenario as string);
    // The demo's own sensing nodes and their settings; the simulator made finite and as fast as it goes.
    const flow = buildFlow(
      {
        sim: [simType, { ...simConfig, realtime: false, loop: false, durationS: DEMO_SECONDS }],
        link: nodeOf('sense-link'),
        room: nodeOf('sense-room'),
        alerts: nodeOf('sense-alerts'),
        publish: ['pose.publish', {}],
        mqtt: ['mqtt.publish', { url: p.broker.url, summaryIntervalMs: 0 }],
        webhook: ['webhook.deliver', {}],
        truth: ['test.collect', { output: 'truth' }],
        events: ['test.collect', { output: 'events' }],
        raised: ['test.collect', { output: 'alerts' }],
      },
      ['sim.frames -> link.frames', 'link.sensing -> room.sensing', 'room.sensing -> alerts.sensing', 'alerts.events -> publish.events', 'alerts.alerts -> publish.alerts', 'alerts.alerts -> mqtt.alerts', 'alerts.alerts -> webhook.alerts', 'sim.truth -> truth.in', 'alerts.events -> events.in', 'alerts.alerts -> raised.in'],
    );
    const result = await runFlow(p.runtime, flow, {}, 240_000);
    expect(result.status, result.error ?? '').toBe('completed');
    // The scripted falls (ground truth: used only to score, never as an input of the alerts).
    const truth = result.outputs.truth as { events: { type: string; time: number }[] }[];
    const scripted = truth.flatMap((f) => f.events).filter((e) => e.type === 'fall_start').map((e) => e.time);
    expect(scripted.length).toBeGreaterThanOrEqual(2);
    const start = (truth[0] as unknown as { time: number }).time;
    const sensedFalls = ((result.outputs.events ?? []) as { type: string; timestamp: number }[]).filter((e) => e.type === 'fall_detection').map((e) => e.timestamp);
    const seconds = (times: number[]) => [...times].sort((a, b) => a - b).map((t) => Math.round((t - start) / 100) / 10);
    const presenceChanges = ((result.outputs.events ?? []) as { type: string }[]).filter((e) => e.type === 'presence_change').length;
    const figures = `scripted falls at ${seconds(scripted).join(', ')} s; sensed falls at ${seconds(sensedFalls).join(', ') || 'none'} s; ${presenceChanges} presence changes`;
    const near = (t: number) => scripted.some((f) => t >= f - FALL_MATCH.beforeMs && t <= f + FALL_MATCH.afterMs);

    // Every alert sense.alerts raised (after its cool-down) reaches each transport: wait for all of them, then score.
    const raised = ((result.outputs.alerts ?? []) as { alertType: string; timestamp: number }[]).filter((a) => a.alertType === 'fall_detection');
    const figuresAll = `${figures}; fall alerts after the cool-down at ${seconds(raised.map((a) => a.timestamp)).join(', ') || 'none'} s`;
    await p.stream.until(() => p.stream.alerts().filter((a) => a.alert_type === 'fall_detection').length >= raised.length, '/ws/pose fall alerts');
    await p.subscriber.until(() => p.subscriber.json('wiflow/home/alerts').filter((a) => a.alert_type === 'fall_detection').length >= raised.length, 'MQTT fall alerts', 10_000);
    await p.receiver.until(() => p.receiver.accepted().filter((r) => r.json.type === 'alert.fall_detection').length >= raised.length, 'webhook fall alerts');
    const transports: Record<string, number[]> = {
      ws: p.stream.alerts().filter((a) => a.alert_type === 'fall_detection' && a.source === SENSE_FALL_RULE).map((a) => Date.parse(a.timestamp)),
      mqtt: p.subscriber.json('wiflow/home/alerts').filter((a) => a.alert_type === 'fall_detection' && a.source === SENSE_FALL_RULE).map((a) => Date.parse(String(a.timestamp))),
      webhook: p.receiver.accepted().filter((r) => r.json.type === 'alert.fall_detection').map((r) => Date.parse(String((r.json.data as Record<string, unknown>).timestamp))),
    };
    for (const [name, times] of Object.entries(transports)) {
      for (const fall of scripted) expect(times.filter((t) => t >= fall - FALL_MATCH.beforeMs && t <= fall + FALL_MATCH.afterMs).length, `${name}: one alert for the fall at ${seconds([fall])} s (${figuresAll})`).toBe(1);
      expect(times.filter((t) => !near(t)), `${name}: alerts away from any scripted fall (${figuresAll})`).toEqual([]);
    }
  }, 300_000);
});

// .ci/run installs mosquitto; elsewhere say once why these suites did not run, rather than count an empty test.
if (!hasMosquitto()) console.log(`sensing-alerts: skipped: ${MOSQUITTO_PATH} is not installed (apt-get install -y mosquitto)`);
