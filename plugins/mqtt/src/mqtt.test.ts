import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeConfigJsonSchema, redactSecrets, SECRET_MASK, type Runtime } from '@wiflow/core';
import { buildFlow, createTestRuntime, runFlow } from '@wiflow/core/testing';
import mqttPlugin, { mqttErrorCatalogue, MqttService, MqttTokens, type MqttConnection } from './index.js';
import { freePort, hasMosquitto, MOSQUITTO_PATH, startAedes, startMosquitto, type LocalBroker } from './bench/brokers.js';
import { alert, analyticsEvent, poseFrame, pushChannels, pushPlugin, sensingFrame } from './test/fixtures.js';
import { Subscriber } from './test/subscriber.js';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function runtimeWith(config: Record<string, unknown> = {}): Promise<Runtime> {
  const runtime = await createTestRuntime({ plugins: [mqttPlugin, pushPlugin], config });
  cleanups.push(() => runtime.stop(5000));
  return runtime;
}

async function subscribe(url: string, topics = ['wiflow/#', 'homeassistant/#'], reconnectPeriod = 0): Promise<Subscriber> {
  const subscriber = await Subscriber.connect(url, topics, { reconnectPeriod });
  cleanups.push(() => subscriber.close());
  return subscriber;
}

/** The one shared connection of a runtime's MqttService. */
function onlyConnection(runtime: Runtime): MqttConnection {
  const connections = runtime.services.get(MqttTokens.Service).connections();
  expect(connections).toHaveLength(1);
  return connections[0];
}

const OCCUPANCY_SEQUENCE = [0, 1, 1, 2, 2, 2, 1, 1, 0, 0];

type BrokerStarter = (port?: number) => Promise<LocalBroker>;

/** The suite every real broker must pass. */
function brokerSuite(start: BrokerStarter) {
  it('delivers the pipeline output: poses, occupancy, events, alerts, Home Assistant discovery, retained state', async () => {
    const broker = await start();
    cleanups.push(() => broker.close());
    const subscriber = await subscribe(broker.url);
    const runtime = await runtimeWith();
    const flow = buildFlow(
      {
        poses: ['test.feed', { input: 'poses' }],
        events: ['test.feed', { input: 'events' }],
        alerts: ['test.feed', { input: 'alerts' }],
        mqtt: ['mqtt.publish', { url: broker.url, qos: { poses: 1 }, summaryIntervalMs: 0 }],
      },
      ['poses.out -> mqtt.poses', 'events.out -> mqtt.events', 'alerts.out -> mqtt.alerts'],
    );
    const frames = OCCUPANCY_SEQUENCE.map((count, i) => poseFrame(i, count));
    const result = await runFlow(runtime, flow, { poses: frames, events: [analyticsEvent('fall_detection')], alerts: [alert('fall_detection')] });
    expect(result.error).toBeNull();
    expect(result.status).toBe('completed');

    const poseTopic = 'wiflow/living-room/pose';
    await subscriber.until(() => subscriber.on(poseTopic).length === frames.length && subscriber.on('wiflow/availability').some((m) => m.text === 'offline'), 'all pose frames and availability offline');
    const poses = subscriber.json(poseTopic);
    expect(poses.map((p) => p.frame_id)).toEqual(frames.map((f) => f.frameId));
    expect(poses.map((p) => (p.persons as unknown[]).length)).toEqual(OCCUPANCY_SEQUENCE);
    expect(subscriber.on(poseTopic).every((m) => m.qos === 1 && !m.retain)).toBe(true);
    const firstPerson = (poses[1].persons as Record<string, unknown>[])[0];
    expect(firstPerson.track_id).toBe(100);
    expect(firstPerson.keypoints).toHaveLength(17);
    expect(poses[1].metadata).toMatchObject({ model_id: 'wiflow-pose-v1', model_hash: 'abc123', provenance: 'simulated' });
    expect(poses[1].timestamp).toBe(new Date(frames[1].timestamp).toISOString());

    // Occupancy and the pose summary are retained state: frames that arrive before the first
    // CONNACK coalesce into the latest value; once connected, occupancy goes out on change.
    const occupancy = subscriber.json('wiflow/living-room/occupancy');
    expect(occupancy.at(-1)).toMatchObject({ count: 0, frame_id: 8 });
    expect(occupancy.length).toBeLessThanOrEqual(5);
    expect(subscriber.json('wiflow/living-room/pose/summary').at(-1)).toMatchObject({ frame_id: 9, person_count: 0 });

    const events = subscriber.json('wiflow/living-room/events/fall_detection');
    expect(events).toEqual([expect.objectContaining({ event_id: 'evt-fall_detection', type: 'fall_detection', severity: 'high', confidence: 0.93, source: 'healthcare.fall/hip-drop-v1' })]);
    const alerts = subscriber.json('wiflow/living-room/alerts');
    expect(alerts).toEqual([expect.objectContaining({ type: 'alert', alert_id: 'alert-fall_detection', alert_type: 'fall_detection', severity: 'critical', actions_required: ['check on person'] })]);
    expect(subscriber.on('wiflow/living-room/ha/fall').map((m) => m.text)).toEqual(['ON', 'ON']);
    expect(subscriber.on('wiflow/living-room/ha/alert').map((m) => m.text)).toEqual(['ON']);

    const occupancyConfig = subscriber.json('homeassistant/sensor/wiflow_living-room_occupancy/config')[0];
    expect(occupancyConfig).toMatchObject({
      unique_id: 'wiflow_living-room_occupancy',
      state_topic: 'wiflow/living-room/occupancy',
      value_template: '{{ value_json.count }}',
      availability_topic: 'wiflow/availability',
      payload_available: 'online',
      payload_not_available: 'offline',
      state_class: 'measurement',
      device: expect.objectContaining({ identifiers: ['wiflow_wiflow_living-room'], manufacturer: 'wiflow' }),
    });
    const fallConfig = subscriber.json('homeassistant/binary_sensor/wiflow_living-room_fall/config')[0];
    expect(fallConfig).toMatchObject({ state_topic: 'wiflow/living-room/ha/fall', payload_on: 'ON', off_delay: 60, device_class: 'safety', availability_topic: 'wiflow/availability' });
    const alertConfig = subscriber.json('homeassistant/binary_sensor/wiflow_living-room_alert/config')[0];
    expect(alertConfig).toMatchObject({ state_topic: 'wiflow/living-room/ha/alert', json_attributes_topic: 'wiflow/living-room/alerts/latest', device_class: 'problem' });
    expect(subscriber.on('wiflow/availability').map((m) => m.text)).toEqual(['online', 'offline']);

    // A subscriber that arrives later gets the retained latest state.
    const late = await subscribe(broker.url);
    const retainedTopics = [
      'wiflow/living-room/occupancy',
      'wiflow/living-room/pose/summary',
      'wiflow/living-room/alerts/latest',
      'wiflow/availability',
      'homeassistant/sensor/wiflow_living-room_occupancy/config',
      'homeassistant/binary_sensor/wiflow_living-room_fall/config',
      'homeassistant/binary_sensor/wiflow_living-room_alert/config',
    ];
    await late.until(() => retainedTopics.every((t) => late.on(t).length > 0), 'retained state');
    expect(late.messages.every((m) => m.retain)).toBe(true);
    expect(late.json('wiflow/living-room/occupancy')[0]).toMatchObject({ count: 0, frame_id: 8, environment_id: 'living-room', source: { model_id: 'wiflow-pose-v1', model_hash: 'abc123', provenance: 'simulated' } });
    expect(late.json('wiflow/living-room/pose/summary')[0]).toMatchObject({ frame_id: 9, person_count: 0 });
    expect(late.json('wiflow/living-room/alerts/latest')[0]).toMatchObject({ alert_id: 'alert-fall_detection' });
    expect(late.on('wiflow/availability')[0].text).toBe('offline');
    expect(late.messages.some((m) => m.topic.endsWith('/pose') || m.topic.includes('/events/'))).toBe(false);
  }, 20_000);

  it('publishes CSI sensing as retained state and announces presence, motion and breathing sensors to Home Assistant', async () => {
    const broker = await start();
    cleanups.push(() => broker.close());
    const subscriber = await subscribe(broker.url);
    const runtime = await runtimeWith();
    const flow = buildFlow(
      { sensing: ['test.feed', { input: 'sensing' }], mqtt: ['mqtt.publish', { url: broker.url }] },
      ['sensing.out -> mqtt.sensing'],
    );
    const frames = [
      sensingFrame(0, { state: 'moving', motion: 0.93, breathingBpm: null, breathingReason: 'moving', breathingQuality: null }),
      sensingFrame(1, { scope: 'link', link: { tx: 'router', rx: 'esp32-a' }, motion: 0.9 }),
      sensingFrame(2, { state: 'moving', motion: 0.97, activity: 'fall', falls: [{ time: 1_700_000_002_400, confidence: 0.91 }], breathingBpm: null, breathingReason: 'moving', breathingQuality: null }),
      sensingFrame(40),
    ];
    const result = await runFlow(runtime, flow, { sensing: frames });
    expect(result.error).toBeNull();
    await subscriber.until(() => subscriber.on('wiflow/availability').some((m) => m.text === 'offline'), 'availability offline');
    // Retained state: frames sent before the first CONNACK coalesce into the latest value.
    const room = subscriber.json('wiflow/living-room/sensing');
    expect(room.length).toBeLessThanOrEqual(3);
    expect(room.at(-1)).toMatchObject({ presence: true, state: 'still', breathing_bpm: 15.2, breathing_reason: null, scope: 'room', source: { estimator_id: 'wiflow-sense-v1', config_hash: '0123456789abcdef', provenance: 'replay' } });
    expect(subscriber.json('wiflow/living-room/sensing/router_esp32-a')).toEqual([expect.objectContaining({ scope: 'link', link: { tx: 'router', rx: 'esp32-a' } })]);
    expect(subscriber.on('wiflow/living-room/ha/fall').map((m) => m.text)).toEqual(['ON']);
    const presence = subscriber.json('homeassistant/binary_sensor/wiflow_living-room_presence/config');
    expect(presence).toHaveLength(1);
    expect(presence[0]).toMatchObject({ state_topic: 'wiflow/living-room/sensing', device_class: 'occupancy', payload_on: 'ON', availability_topic: 'wiflow/availability', device: expect.objectContaining({ identifiers: ['wiflow_wiflow_living-room'] }) });
    expect(subscriber.json('homeassistant/sensor/wiflow_living-room_motion/config')[0]).toMatchObject({ state_topic: 'wiflow/living-room/sensing', unit_of_measurement: '%' });
    expect(subscriber.json('homeassistant/sensor/wiflow_living-room_breathing/config')[0]).toMatchObject({ state_topic: 'wiflow/living-room/sensing', unit_of_measurement: 'breaths/min' });

    const late = await subscribe(broker.url);
    await late.until(() => late.on('wiflow/living-room/sensing').length > 0 && late.on('homeassistant/sensor/wiflow_living-room_breathing/config').length > 0, 'retained sensing state');
    expect(late.json('wiflow/living-room/sensing')).toEqual([expect.objectContaining({ motion: 0.04, breathing_bpm: 15.2 })]);
  }, 20_000);

  it('refuses a sensing value that is not a sensing frame', async () => {
    const broker = await start();
    cleanups.push(() => broker.close());
    const runtime = await runtimeWith();
    const flow = buildFlow({ sensing: ['test.feed', { input: 'sensing' }], mqtt: ['mqtt.publish', { url: broker.url }] }, ['sensing.out -> mqtt.sensing']);
    const result = await runFlow(runtime, flow, { sensing: [{ environmentId: 'living-room', time: 1, scope: 'room', motion: 0.1 }] });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/presence must be a boolean/);
  }, 20_000);

  it('reconnects after the broker restarts, sends what it buffered and restores retained state', async () => {
    const port = await freePort();
    let broker = await start(port);
    cleanups.push(() => broker.close());
    const runtime = await runtimeWith();
    const flow = buildFlow(
      {
        poses: ['test.push', { channel: 'poses' }],
        alerts: ['test.push', { channel: 'alerts' }],
        mqtt: ['mqtt.publish', { url: broker.url, reconnectPeriodMs: 100, summaryIntervalMs: 0, qos: { poses: 1 } }],
      },
      ['poses.out -> mqtt.poses', 'alerts.out -> mqtt.alerts'],
    );
    const before = await subscribe(broker.url);
    const deployed = await runtime.deploy(flow);
    cleanups.push(() => runtime.undeploy(deployed.id));
    const connection = onlyConnection(runtime);
    if (!connection.connected) await once(connection, 'connect');
    for (const [i, count] of [1, 1, 2, 2, 0].entries()) pushChannels.get('poses')!(poseFrame(i - 4, count));
    await before.until(() => before.on('wiflow/living-room/pose').length === 5, 'frames -4..0');
    // Connected: occupancy goes out when the count changes, not on every frame.
    await before.until(() => before.json('wiflow/living-room/occupancy').length === 3, 'occupancy changes');
    expect(before.json('wiflow/living-room/occupancy').map((o) => o.count)).toEqual([1, 2, 0]);

    const lost = new Promise<void>((resolve) => connection.client.once('close', () => resolve()));
    await broker.close();
    await lost;
    expect(connection.connected).toBe(false);
    for (let i = 1; i <= 5; i++) pushChannels.get('poses')!(poseFrame(i, 3));
    pushChannels.get('alerts')!(alert('intrusion', 'living-room', 'alert-offline'));
    // Wait for the engine to hand them to the node: 5 frames, the alert and its HA ON pulse are
    // buffered; the retained latest alert and occupancy are only remembered.
    await expect.poll(() => connection.stats().buffered, { timeout: 5000 }).toBe(7);

    broker = await start(port);
    const received: string[] = [];
    if ('broker' in broker) (broker as { broker: import('aedes').Aedes }).broker.on('publish', (packet, client) => client && received.push(packet.topic));
    // The client retries every 100 ms: on a busy machine it may be back before mosquitto's start has
    // seen its port open (the 'connect' already emitted; waiting for the next one hung until the timeout).
    if (!connection.connected) await once(connection, 'connect');
    await connection.drain(5000);
    const stats = connection.stats();
    expect(stats.connects).toBe(2);
    expect(stats.disconnects).toBe(1);
    expect(stats.reconnectAttempts).toBeGreaterThanOrEqual(1);
    expect(stats.buffered).toBe(0);
    expect(stats.dropped).toBe(0);
    if ('broker' in broker) {
      // aedes shows every publish it received: the five buffered frames and the alert arrived.
      expect(received.filter((t) => t === 'wiflow/living-room/pose')).toHaveLength(5);
      expect(received.filter((t) => t === 'wiflow/living-room/alerts')).toHaveLength(1);
      expect(received.filter((t) => t === 'wiflow/living-room/ha/alert')).toHaveLength(1);
      expect(received.filter((t) => t === 'wiflow/living-room/occupancy')).toHaveLength(1);
    }

    // The restarted broker had no retained state; the client republished it on reconnect.
    const after = await subscribe(broker.url);
    await after.until(() => after.on('wiflow/living-room/occupancy').length > 0 && after.on('wiflow/living-room/alerts/latest').length > 0 && after.on('wiflow/availability').length > 0, 'retained state after restart');
    expect(after.json('wiflow/living-room/occupancy')[0]).toMatchObject({ count: 3, frame_id: 1 });
    expect(after.json('wiflow/living-room/alerts/latest')[0]).toMatchObject({ alert_id: 'alert-offline' });
    expect(after.on('wiflow/availability')[0].text).toBe('online');
    expect(after.on('homeassistant/sensor/wiflow_living-room_occupancy/config')).toHaveLength(1);

    // Live frames flow again.
    pushChannels.get('poses')!(poseFrame(6, 2));
    await after.until(() => after.json('wiflow/living-room/pose').some((p) => p.frame_id === 6), 'frame 6 after reconnect');
    const counters = deployed.pipeline.counters().mqtt.stats!;
    expect(counters).toMatchObject({ poses: 11, alerts: 1, connected: 1, connects: 2 });
  }, 30_000);
}

describe('mqtt.publish with aedes (in-process broker)', () => {
  brokerSuite((port) => startAedes(port));

  it('bounds the offline buffer: drops the oldest pose frames first and counts them', async () => {
    const port = await freePort();
    const service = new MqttService((await runtimeWith()).logger);
    cleanups.push(() => service.close());
    const connection = service.acquire({ url: `mqtt://127.0.0.1:${port}`, topicPrefix: 'wiflow', reconnectPeriodMs: 100, connectTimeoutMs: 1000, keepaliveSeconds: 30, bufferSize: 5, maxInFlight: 10 });
    for (let i = 0; i < 20; i++) connection.publish(`wiflow/env/pose`, `frame ${i}`, { qos: 0, priority: 'low' });
    connection.publish('wiflow/env/alerts', 'alert 1', { qos: 1 });
    connection.publish('wiflow/env/alerts', 'alert 2', { qos: 1 });
    connection.publish('wiflow/env/occupancy', '{"count":1}', { qos: 1, retain: true });
    connection.publish('wiflow/env/occupancy', '{"count":2}', { qos: 1, retain: true });
    expect(connection.stats()).toMatchObject({ buffered: 5, dropped: 17, connected: false, retainedTopics: 1 });

    const broker = await startAedes(port);
    cleanups.push(() => broker.close());
    const received: { topic: string; text: string }[] = [];
    broker.broker.on('publish', (packet, client) => client && received.push({ topic: packet.topic, text: packet.payload.toString() }));
    await once(connection, 'connect');
    await connection.drain(5000);
    expect(received.filter((m) => m.topic === 'wiflow/env/alerts').map((m) => m.text)).toEqual(['alert 1', 'alert 2']);
    expect(received.filter((m) => m.topic === 'wiflow/env/pose').map((m) => m.text)).toEqual(['frame 17', 'frame 18', 'frame 19']);
    // Retained state is coalesced while offline: only the latest occupancy goes out.
    expect(received.filter((m) => m.topic === 'wiflow/env/occupancy').map((m) => m.text)).toEqual(['{"count":2}']);
    expect(connection.stats()).toMatchObject({ buffered: 0, dropped: 17, connected: true, connects: 1 });
  });

  it('logs in with username and password (a write-only secret) and reports a refused login without failing the flow', async () => {
    const broker = await startAedes(0, { username: 'wiflow', password: 's3cret-pass' });
    cleanups.push(() => broker.close());
    const runtime = await runtimeWith();
    const definition = runtime.registry.get('mqtt.publish')!;
    expect(redactSecrets(definition, { url: broker.url, username: 'wiflow', password: 's3cret-pass' })).toEqual({ url: broker.url, username: 'wiflow', password: SECRET_MASK });
    expect(nodeConfigJsonSchema(definition).properties).toMatchObject({ password: { writeOnly: true } });

    const subscriber = await Subscriber.connect(broker.url.replace('mqtt://', 'mqtt://wiflow:s3cret-pass@'), ['wiflow/#']);
    cleanups.push(() => subscriber.close());
    const good = await runFlow(runtime, buildFlow({ poses: ['test.feed', { input: 'poses' }], mqtt: ['mqtt.publish', { url: broker.url, username: 'wiflow', password: 's3cret-pass' }] }, ['poses.out -> mqtt.poses']), { poses: [poseFrame(0, 1)] });
    expect(good.status).toBe('completed');
    await subscriber.until(() => subscriber.on('wiflow/living-room/pose').length === 1, 'frame published with credentials');

    const deployed = await runtime.deploy(buildFlow({ poses: ['test.push', { channel: 'badlogin' }], mqtt: ['mqtt.publish', { url: broker.url, username: 'wiflow', password: 'wrong-password', reconnectPeriodMs: 100 }] }, ['poses.out -> mqtt.poses']));
    cleanups.push(() => runtime.undeploy(deployed.id, 0));
    pushChannels.get('badlogin')!(poseFrame(1, 1));
    await expect.poll(() => deployed.pipeline.counters().mqtt.stats?.last_error, { timeout: 5000 }).toMatch(/Not authorized|Bad username or password|refused/i);
    expect(deployed.pipeline.counters().mqtt.stats).toMatchObject({ connected: 0, buffered: 1, poses: 1 });
    expect(deployed.pipeline.counters().mqtt.errors).toBe(0);
  });

  it('a password written in the broker URL logs in, and is shown nowhere: stats, and the error of a URL it cannot read', async () => {
    const broker = await startAedes(0, { username: 'wiflow', password: 's3cret-pass' });
    cleanups.push(() => broker.close());
    const runtime = await runtimeWith();
    const url = broker.url.replace('mqtt://', 'mqtt://wiflow:s3cret-pass@');
    const deployed = await runtime.deploy(buildFlow({ poses: ['test.push', { channel: 'urlcreds' }], mqtt: ['mqtt.publish', { url }] }, ['poses.out -> mqtt.poses']));
    cleanups.push(() => runtime.undeploy(deployed.id, 0));
    const connection = onlyConnection(runtime);
    if (!connection.connected) await once(connection, 'connect');
    expect(connection.stats().url).toBe(broker.url.replace('mqtt://', 'mqtt://wiflow:***@'));
    expect(JSON.stringify(runtime.services.get(MqttTokens.Service).connections().map((c) => c.stats()))).not.toContain('s3cret-pass');
    // A URL mistyped around its credentials is refused before the run, without echoing the password.
    const refused = await runFlow(runtime, buildFlow({ poses: ['test.feed', { input: 'poses' }], mqtt: ['mqtt.publish', { url: 'mqtt//wiflow:s3cret-pass@127.0.0.1:1883' }] }, ['poses.out -> mqtt.poses']), { poses: [poseFrame(0, 1)] }).then(
      () => null,
      (error: unknown) => error as Error & { details?: unknown },
    );
    expect(refused?.message).toBe('the flow has 1 problem');
    expect(JSON.stringify(refused?.details)).toMatch(/must be an mqtt:\/\//);
    expect(JSON.stringify(refused?.details)).not.toContain('s3cret-pass');
  });

  it('shares one client between nodes with the same broker settings', async () => {
    const broker = await startAedes();
    cleanups.push(() => broker.close());
    const runtime = await runtimeWith();
    const settings = { url: broker.url, clientId: 'wiflow-shared-test' };
    const deployed = await runtime.deploy(
      buildFlow({ poses: ['test.push', { channel: 'shared' }], a: ['mqtt.publish', settings], b: ['mqtt.publish', { ...settings, poses: 'summary' }] }, ['poses.out -> a.poses', 'poses.out -> b.poses']),
    );
    cleanups.push(() => runtime.undeploy(deployed.id));
    const connection = onlyConnection(runtime);
    expect(connection.stats()).toMatchObject({ users: 2, clientId: 'wiflow-shared-test' });
    if (!connection.connected) await once(connection, 'connect');
    expect(broker.broker.connectedClients).toBe(1);
    await runtime.undeploy(deployed.id);
    expect(runtime.services.get(MqttTokens.Service).connections()).toHaveLength(0);
  });

  it('publishes nothing while streaming.mqtt_enabled is off, and follows the switch live', async () => {
    const broker = await startAedes();
    cleanups.push(() => broker.close());
    const runtime = await runtimeWith({ streaming: { mqtt_enabled: false } });
    let clients = 0;
    broker.broker.on('client', () => clients++);
    const job = await (async () => {
      await runtime.start();
      return runtime.runJob(buildFlow({ poses: ['test.feed', { input: 'poses' }], mqtt: ['mqtt.publish', { url: broker.url }] }, ['poses.out -> mqtt.poses']), { inputs: { poses: [poseFrame(0, 1), poseFrame(1, 1)] } });
    })();
    const done = await job.done;
    expect(done.status).toBe('completed');
    expect(job.counters().mqtt.stats).toMatchObject({ poses: 0, skipped_disabled: 2, connects: 0, published: 0 });
    expect(clients).toBe(0);

    // Switch on while a stream pipeline runs: the next frame connects and publishes.
    const subscriber = await subscribe(broker.url);
    const deployed = await runtime.deploy(buildFlow({ poses: ['test.push', { channel: 'toggle' }], mqtt: ['mqtt.publish', { url: broker.url }] }, ['poses.out -> mqtt.poses']));
    cleanups.push(() => runtime.undeploy(deployed.id));
    pushChannels.get('toggle')!(poseFrame(0, 1));
    await expect.poll(() => deployed.pipeline.counters().mqtt.stats?.skipped_disabled).toBe(1);
    expect(runtime.config.update({ streaming: { mqtt_enabled: true } }).errors).toEqual([]);
    pushChannels.get('toggle')!(poseFrame(1, 1));
    await subscriber.until(() => subscriber.on('wiflow/living-room/pose').length === 1, 'frame after switching on');
    expect(subscriber.json('wiflow/living-room/pose')[0].frame_id).toBe(1);
  });

  it("follows the pose API's pose.streaming.mqtt_enabled when that section holds the switch", async () => {
    const runtime = await runtimeWith({ streaming: { mqtt_enabled: true }, pose: { streaming: { mqtt_enabled: false } } });
    await runtime.start();
    const job = await runtime.runJob(buildFlow({ poses: ['test.feed', { input: 'poses' }], mqtt: ['mqtt.publish', { url: 'mqtt://127.0.0.1:1' }] }, ['poses.out -> mqtt.poses']), { inputs: { poses: [poseFrame(0, 1)] } });
    expect((await job.done).status).toBe('completed');
    expect(job.counters().mqtt.stats).toMatchObject({ skipped_disabled: 1, poses: 0 });
  });

  it('republishes discovery when Home Assistant comes online', async () => {
    const broker = await startAedes();
    cleanups.push(() => broker.close());
    const runtime = await runtimeWith();
    const deployed = await runtime.deploy(
      buildFlow({ poses: ['test.push', { channel: 'ha' }], mqtt: ['mqtt.publish', { url: broker.url, homeAssistant: { environments: ['kitchen'] } }] }, ['poses.out -> mqtt.poses']),
    );
    cleanups.push(() => runtime.undeploy(deployed.id));
    const connection = onlyConnection(runtime);
    await once(connection, 'watching');
    const subscriber = await subscribe(broker.url, ['homeassistant/+/+/config']);
    const topic = 'homeassistant/sensor/wiflow_kitchen_occupancy/config';
    await subscriber.until(() => subscriber.on(topic).length === 1, 'retained discovery of the announced environment');
    await subscriber.client.publishAsync('homeassistant/status', 'online');
    await subscriber.until(() => subscriber.on(topic).length === 2, 'discovery again after HA came online');
    expect(subscriber.on(topic)[1].text).toBe(subscriber.on(topic)[0].text);
  });

  it('fails a message with a clear error on bad input, and rejects bad settings at compile time', async () => {
    const runtime = await runtimeWith();
    const result = await runFlow(runtime, buildFlow({ poses: ['test.feed', { input: 'poses' }], mqtt: ['mqtt.publish', { url: 'mqtt://127.0.0.1:1', reconnectPeriodMs: 60_000, closeTimeoutMs: 0 }] }, ['poses.out -> mqtt.poses']), { poses: [{ frameId: 1 }] });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/port poses is not valid: environmentId must be a string/);

    const compiled = runtime.compile(buildFlow({ mqtt: ['mqtt.publish', { url: 'http://example.com', topicPrefix: 'a/#' }] }, []));
    expect(compiled.ok).toBe(false);
    const text = JSON.stringify(!compiled.ok && compiled.problems);
    expect(text).toMatch(/mqtt:\/\//);
    expect(text).toMatch(/topicPrefix must not contain \+, # or NUL/);
  });
});

describe('plugin-mqtt documentation', () => {
  it('documents every error code in docs/transports.md', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../../docs/transports.md'), 'utf8');
    for (const { code } of mqttErrorCatalogue) expect(doc, code).toContain(code);
  });
});

describe.skipIf(!hasMosquitto())('mqtt.publish with Debian mosquitto (child process)', () => {
  brokerSuite((port) => startMosquitto(port));
});

if (!hasMosquitto()) {
  describe('mqtt.publish with Debian mosquitto', () => {
    it.skip(`skipped: ${MOSQUITTO_PATH} is not installed (apt-get install -y mosquitto)`, () => undefined);
  });
}
