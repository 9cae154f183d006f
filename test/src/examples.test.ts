// Every example flow in examples/flows runs, in a real runtime with the installed plugins.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, Runtime, type FlowData, type FlowDocument, type PoseFrame } from '@wiflow/core';
import { Aedes } from 'aedes';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEsp32Lines } from './support/esp32-datagrams.js';
import { recordHomeCapture } from './support/home-capture.js';
import { ROOT } from './support/server.js';

/** An example flow; its repository-relative paths (scenarios) made absolute, as if run from the root. */
function loadFlow(file: string): FlowDocument {
  const flow = JSON.parse(readFileSync(path.join(ROOT, 'examples/flows', file), 'utf8')) as FlowDocument;
  for (const n of flow.data.nodes) {
    const config = n.data.config as Record<string, unknown> | undefined;
    if (typeof config?.scenario === 'string' && !path.isAbsolute(config.scenario)) config.scenario = path.join(ROOT, config.scenario);
  }
  return flow;
}

/** A pipeline made finite: the simulator runs `seconds` as fast as it can, once. */
function finite(data: FlowData, seconds: number): FlowData {
  return {
    ...data,
    nodes: data.nodes.map((n) => (n.data.nodeType === 'sim.source' ? { ...n, data: { ...n.data, config: { ...n.data.config, realtime: false, loop: false, durationS: seconds } } } : n)),
  };
}

async function runtime(config: Record<string, unknown> = {}): Promise<Runtime> {
  const rt = await Runtime.create({
    dataDir: mkdtempSync(path.join(tmpdir(), 'wiflow-examples-')),
    searchFrom: [ROOT],
    config: { plugins: { deny: ['@wiflow/studio-web', 'wiflow-plugin-template'] }, ...config },
    logger: createLogger({ level: 'warn' }),
  });
  await rt.start();
  return rt;
}

describe('example flows', () => {
  let rt: Runtime;
  beforeAll(async () => {
    rt = await runtime();
  });
  afterAll(async () => {
    await rt?.stop();
  });

  it.each(['default-pipeline.json', 'retail-footfall.json', 'security-intrusion.json'])('%s compiles and runs: poses reach the tracker, the analytics and the pose API', async (file) => {
    const flow = loadFlow(file);
    expect(rt.compile(flow.data).problems).toEqual([]);
    const deployed = await rt.deploy(finite(flow.data, 20));
    const outcome = await deployed.pipeline.done;
    expect(outcome).toEqual({ status: 'completed' });
    const c = deployed.pipeline.counters();
    for (const [id, counters] of Object.entries(c)) expect(counters.errors, `${file}: node ${id}: ${counters.lastError}`).toBe(0);
    expect(c.pose.out).toBeGreaterThan(10);
    expect(c.track.in).toBe(c.pose.out);
    expect(c.publish.in).toBeGreaterThan(10);
    // Every tracked frame reaches each analytic wired to the tracker (the tracker's out also counts its tracks port); healthcare gets the room's sensing frames (the demo's healthcare reads only those: the locator's mean pose has no posture).
    const sensed = c['sense-room']?.out ?? 0;
    if (c['sense-room']) expect(sensed, `${file}: room sensing frames`).toBeGreaterThan(5);
    const fromTracker = (id: string) => flow.data.edges.some((e) => e.source === 'track' && e.target === id);
    for (const analytic of ['health', 'retail', 'security']) if (c[analytic]) expect(c[analytic].in).toBe((fromTracker(analytic) ? c.track.in : 0) + (analytic === 'health' ? sensed : 0));
  });

  it('healthcare-on-ground-truth.json detects the scripted fall and publishes the alert', async () => {
    const flow = loadFlow('healthcare-on-ground-truth.json');
    const alerts: { alertType: string; severity: string; environmentId: string }[] = [];
    rt.hooks.message.tap('examples-test', (trace) => {
      if (trace.to === 'publish' && trace.toPort === 'alerts') alerts.push(trace.value as (typeof alerts)[number]);
    });
    const deployed = await rt.deploy(finite(flow.data, 30));
    expect(await deployed.pipeline.done).toEqual({ status: 'completed' });
    const falls = alerts.filter((a) => a.alertType.includes('fall'));
    expect(falls.length, JSON.stringify(alerts)).toBeGreaterThan(0);
    expect(falls[0].environmentId).toBe('home-truth');
  });

  it('estimate_poses_from_csi locates people in a capture: frames with the estimator id, weights hash and provenance', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-capture-'));
    const capture = path.join(dir, 'home.wfr');
    await recordHomeCapture(rt, capture, 6, 'examples test');
    const flow = loadFlow('estimate-poses-from-csi.json');
    // The capture input is bound to csi.file's path (data.bind); the compiler writes it there.
    const job = await rt.runJob(flow.data, { inputs: { capture }, timeoutMs: 120_000 });
    const result = await job.done;
    expect(result.status, result.error ?? '').toBe('completed');
    const poses = result.outputs.poses as PoseFrame[];
    expect(poses.length).toBeGreaterThan(5);
    for (const p of poses) {
      expect(p.metadata.modelId).toMatch(/^wiflow-locate-/);
      expect(p.metadata.modelHash).toMatch(/^[0-9a-f]{64}$/);
      // The recording was made from the simulator, and its frames keep saying so.
      expect(p.metadata.provenance).toBe('simulated');
      expect(p.environmentId).toBe('home');
    }
  });

  it('occupancy_now answers from the latest published frame, and says when there is none', async () => {
    const flow = loadFlow('occupancy-now.json');
    const before = await (await rt.runJob(flow.data, { inputs: { environment_id: 'nowhere' } })).done;
    expect(before.status, before.error ?? '').toBe('completed');
    expect(before.outputs.occupancy).toMatchObject({ environment_id: 'nowhere', as_of: null, stale: true, person_count: 0, source: null });
    const pipeline = await rt.deploy(finite(loadFlow('default-pipeline.json').data, 8));
    await pipeline.pipeline.done;
    const after = await (await rt.runJob(flow.data, { inputs: { environment_id: 'home' } })).done;
    const answer = after.outputs.occupancy as { environment_id: string; as_of: string; person_count: number; persons: unknown[]; source: { model_id: string } };
    expect(answer.environment_id).toBe('home');
    expect(answer.as_of).not.toBeNull();
    expect(answer.person_count).toBe(answer.persons.length);
    // The demo pipeline's estimator is the empty-room locator (the default wherever a user meets poses).
    expect(answer.source.model_id).toMatch(/^wiflow-locate-/);
  });
});

describe('healthcare fall detection example with a real MQTT broker', () => {
  let broker: Aedes;
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    broker = await Aedes.createBroker();
    server = createServer(broker.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await new Promise<void>((resolve) => broker.close(() => resolve()));
  });

  /** The ESP32 example deployed as a user would: its UDP receiver on a free local port, its MQTT leg on this broker. */
  async function deployEsp32Example(rt: Runtime) {
    const flow = loadFlow('esp32-room-sensing.json');
    expect(rt.compile(flow.data).problems).toEqual([]);
    for (const n of flow.data.nodes) {
      if (n.data.nodeType === 'csi.esp32-udp') n.data.config = { ...n.data.config, port: 0, host: '127.0.0.1' };
      if (n.data.nodeType === 'mqtt.publish') n.data.config = { ...n.data.config, url: `mqtt://127.0.0.1:${port}` };
    }
    const deployed = await rt.deploy(flow.data);
    expect(deployed.outcome).toBeNull();
    return { deployed, udpPort: Number(deployed.pipeline.counters().esp.stats!.port) };
  }

  it('publishes the pipeline output on MQTT topics of its environment', async () => {
    const rt = await runtime();
    const subscriber = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`);
    const topics = new Set<string>();
    subscriber.on('message', (topic) => topics.add(topic));
    await subscriber.subscribeAsync('wiflow/#');
    const flow = loadFlow('healthcare-fall-detection.json');
    const data = finite(flow.data, 15);
    for (const n of data.nodes) if (n.data.nodeType === 'mqtt.publish') n.data.config = { ...n.data.config, url: `mqtt://127.0.0.1:${port}` };
    const deployed = await rt.deploy(data);
    expect(await deployed.pipeline.done).toEqual({ status: 'completed' });
    await rt.stop();
    await subscriber.endAsync();
    expect([...topics].some((t) => t.startsWith('wiflow/home/'))).toBe(true);
    expect(topics.has('wiflow/home/occupancy')).toBe(true);
    expect(deployed.pipeline.counters().health.in).toBeGreaterThan(10);
  });

  it('esp32-room-sensing.json turns an ESP32\'s UDP datagrams into live sensing frames on MQTT, with Home Assistant entities', async () => {
    const rt = await runtime();
    const subscriber = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`);
    const messages = new Map<string, string>();
    subscriber.on('message', (topic, payload) => messages.set(topic, payload.toString()));
    await subscriber.subscribeAsync(['wiflow/room/#', 'homeassistant/#']);
    const { deployed, udpPort } = await deployEsp32Example(rt);
    // An ESP32-CSI-Tool receiver: 15 s of its clock at 20 packets a second.
    expect(await sendEsp32Lines(udpPort, 15)).toBe(300);
    // A room second leaves sense.room once the room has 10 s of its links' time.
    await expect.poll(() => messages.get('wiflow/room/sensing'), { timeout: 20_000 }).toBeDefined();
    const room = JSON.parse(messages.get('wiflow/room/sensing')!) as { environment_id: string; scope: string; presence: boolean; motion: number; source: { estimator_id: string; config_hash: string; provenance: string } };
    expect(room).toMatchObject({ environment_id: 'room', scope: 'room', source: { provenance: 'live' } });
    expect(room.source.estimator_id).toMatch(/^wiflow-sense/);
    expect(room.source.config_hash).toMatch(/^[0-9a-f]{12,}$/);
    expect(typeof room.presence).toBe('boolean');
    expect([...messages.keys()].filter((t) => t.startsWith('homeassistant/') && t.endsWith('/config')).length).toBeGreaterThanOrEqual(3);
    const c = deployed.pipeline.counters();
    expect(c.esp.stats).toMatchObject({ packets: 300 });
    expect(c['sense-link'].stats).toMatchObject({ links: 1 });
    for (const [id, counters] of Object.entries(c)) expect(counters.errors, `node ${id}: ${counters.lastError}`).toBe(0);
    expect(c.publish.in).toBeGreaterThan(0);
    await rt.undeploy(deployed.id, 0);
    await rt.stop();
    await subscriber.endAsync();
  });

  it('esp32-room-sensing.json at the packet rate docs/hardware.md asks for (about 100 /s) reads movement with the ESP32 model fitted at that rate, against the link\'s quiet floor', async () => {
    const rt = await runtime();
    const { deployed, udpPort } = await deployEsp32Example(rt);
    expect(await sendEsp32Lines(udpPort, 12, 100)).toBe(1200);
    type Details = { links: { packetsPerSecond: number | null; lastSecond: number | null; motionModel: string | null; motionFloor: { seconds: number; window: number; quantile: number } | null; checks: { capability: string; verdict: string; reason: string }[] }[] };
    const details = () => (deployed.pipeline.runners.get('sense-link')!.instance as unknown as { details(): Details }).details();
    await expect.poll(() => details().links[0]?.lastSecond ?? -1, { timeout: 20_000 }).toBeGreaterThanOrEqual(10);
    const link = details().links[0];
    expect(link.packetsPerSecond!).toBeGreaterThanOrEqual(95);
    expect(link.motionModel).toBe('captures-rate');
    // The model at the captures' rate reads the floor's minimum (the slow links' one its 25th percentile).
    expect(link.motionFloor).toMatchObject({ window: 300, quantile: 0 });
    const movement = link.checks.find((c) => c.capability === 'movement')!;
    expect(movement.verdict).toBe('ok');
    expect(movement.reason).toMatch(/^\d+ packets\/s, \d+ % of the 10-Hz grid's slots empty; movement is read against the link's own quiet level \(the lowest of each input over its last 5 min, \d+ s held so far\)/);
    for (const [id, counters] of Object.entries(deployed.pipeline.counters())) expect(counters.errors, `node ${id}: ${counters.lastError}`).toBe(0);
    await rt.undeploy(deployed.id, 0);
    await rt.stop();
  });
});
