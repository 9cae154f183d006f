import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defineNode, definePlugin, FileAccess, type CsiFrame, type CsiWindow, type Runtime } from '@wiflow/core';
import { buildFlow, createTestRuntime, runFlow } from '@wiflow/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import csiPlugin, { decodeCapture, encodeRecording, readCapture } from '../index.js';

// Public sample captures (CSIKit, ESP32-CSI-Tool) kept in the package: test-fixtures/README.md.
const DATA = resolve(import.meta.dirname, '../../test-fixtures');
const file = (p: string) => resolve(DATA, p);
const tmp = mkdtempSync(join(tmpdir(), 'wiflow-csi-nodes-'));

/** Test sink: keeps what arrives, per run, so a stream-mode test can wait for it. */
const received: unknown[] = [];
let onReceive: (() => void) | null = null;
const sinkPlugin = definePlugin({
  name: 'test:csi-sink',
  setup(ctx) {
    ctx.registerNode(defineNode({
      type: 'test.sink',
      title: 'sink',
      category: 'testing',
      description: 'collects values',
      inputs: { in: { type: 'any' } },
      outputs: {},
      config: z.object({}),
      create: () => ({ receive: (_p, v) => { received.push(v); onReceive?.(); } }),
    }));
  },
});

function waitFor(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting (have ${received.length})`)), timeoutMs);
    const check = () => {
      if (!condition()) return;
      clearTimeout(timer);
      onReceive = null;
      resolvePromise();
    };
    onReceive = check;
    check();
  });
}

async function poll(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out polling');
    await new Promise((r) => setTimeout(r, 10));
  }
}

let runtime: Runtime | null = null;
afterEach(async () => {
  received.length = 0;
  onReceive = null;
  await runtime?.stop(2000);
  runtime = null;
});

async function start(): Promise<Runtime> {
  runtime = await createTestRuntime({ plugins: [csiPlugin, sinkPlugin] });
  await runtime.start();
  return runtime;
}

function sameFrame(a: CsiFrame, b: CsiFrame) {
  expect(Array.from(a.csi.re)).toEqual(Array.from(b.csi.re));
  expect(Array.from(a.csi.im)).toEqual(Array.from(b.csi.im));
  expect(Array.from(a.subcarriers)).toEqual(Array.from(b.subcarriers));
  expect(a.sequence).toBe(b.sequence);
  expect([a.ntx, a.nrx, a.nsc]).toEqual([b.ntx, b.nrx, b.nsc]);
}

describe('live receivers on loopback', () => {
  it('csi.nexmon-udp gets the same frames as the pcap reader, and counts the gap of two dropped packets', async () => {
    const rt = await start();
    const deployed = await rt.deploy(buildFlow({ source: ['csi.nexmon-udp', { port: 0, host: '127.0.0.1', sourceId: 'example_4366c0.pcap' }], sink: ['test.sink'] }, ['source.frames -> sink.in']));
    let port = 0;
    await new Promise<void>((r) => {
      const poll = () => {
        port = Number(deployed.pipeline.counters().source?.stats?.port ?? 0);
        if (port) r();
        else setTimeout(poll, 10);
      };
      poll();
    });
    const pcap = readFileSync(file('nexmon/example_4366c0.pcap'));
    const expected = decodeCapture(pcap).frames;
    const payloads: Buffer[] = [];
    for (let p = 24; p + 16 <= pcap.length; ) {
      const length = pcap.readUInt32LE(p + 8);
      payloads.push(pcap.subarray(p + 16 + 42, p + 16 + length));
      p += 16 + length;
    }
    const client = createSocket('udp4');
    const sent = payloads.slice(0, 100).filter((_, i) => i !== 20 && i !== 21);
    for (const payload of sent) {
      await new Promise<void>((r, j) => client.send(payload, port, '127.0.0.1', (e) => (e ? j(e) : r())));
      // Loopback UDP drops when a burst overruns the socket buffer; pace a little.
      await new Promise((r) => setImmediate(r));
    }
    client.send(Buffer.from('not csi'), port, '127.0.0.1');
    await waitFor(() => received.length === sent.length);
    const frames = received as CsiFrame[];
    const kept = expected.slice(0, 100).filter((_, i) => i !== 20 && i !== 21);
    frames.forEach((f, i) => {
      sameFrame(f, kept[i]);
      expect(f.provenance).toBe('live');
      expect(f.link.tx).toBe(kept[i].link.tx);
    });
    await poll(() => Number(deployed.pipeline.counters().source?.stats?.otherPackets) === 1);
    const stats = deployed.pipeline.counters().source!.stats!;
    expect(stats.frames).toBe(98);
    expect(stats.lost).toBe(2);
    expect(stats.sequenceGaps).toBe(1);
    expect(Number(stats.packetRate)).toBeGreaterThan(0);
    client.close();
  });

  it('csi.esp32-udp decodes CSV lines from datagrams like the file reader', async () => {
    const rt = await start();
    const deployed = await rt.deploy(buildFlow({ source: ['csi.esp32-udp', { port: 0, host: '127.0.0.1' }], sink: ['test.sink'] }, ['source.frames -> sink.in']));
    let port = 0;
    while (!port) {
      port = Number(deployed.pipeline.counters().source?.stats?.port ?? 0);
      await new Promise((r) => setTimeout(r, 10));
    }
    const lines = readFileSync(file('esp32/example_data.csv'), 'latin1').split('\n').filter((l) => l.startsWith('CSI_DATA'));
    const expected = await readCapture(file('esp32/example_data.csv'));
    const client = createSocket('udp4');
    for (let i = 0; i < lines.length; i += 2) {
      // Two lines per datagram, as a batching sender would.
      await new Promise<void>((r, j) => client.send(Buffer.from(lines.slice(i, i + 2).join('\n') + '\n'), port, '127.0.0.1', (e) => (e ? j(e) : r())));
      await new Promise((r) => setImmediate(r));
    }
    await waitFor(() => received.length === 60);
    (received as CsiFrame[]).forEach((f, i) => sameFrame(f, expected[i]));
    expect(deployed.pipeline.counters().source!.stats!.packets).toBe(30);
    client.close();
  });

  it('a receiver whose UDP port is taken fails the deployment as it starts, naming node and port; a second flow on a port in use is refused, not fed', async () => {
    const rt = await start();
    // A program already receives on the port (no SO_REUSEADDR, as most do).
    const other = createSocket('udp4');
    await new Promise<void>((r) => other.bind(0, '127.0.0.1', () => r()));
    const taken = other.address().port;
    const onTaken = await rt.deploy(buildFlow({ source: ['csi.esp32-udp', { port: taken, host: '127.0.0.1' }], sink: ['test.sink'] }, ['source.frames -> sink.in']));
    expect(onTaken.outcome).toMatchObject({ status: 'failed', error: `node source (csi.esp32-udp) failed to start: UDP port ${taken} on 127.0.0.1 is in use (another flow or program receives there): stop it or choose another port` });
    await rt.undeploy(onTaken.id, 0);
    other.close();

    // Two flows on one port: the first receives, the second is refused (it used to bind too and take every datagram).
    const first = await rt.deploy(buildFlow({ source: ['csi.nexmon-udp', { port: 0, host: '127.0.0.1' }], sink: ['test.sink'] }, ['source.frames -> sink.in']));
    expect(first.outcome).toBeNull();
    // The port is bound when the node is created: its stats carry it from the deploy's answer on.
    const port = Number(first.pipeline.counters().source!.stats!.port);
    expect(port).toBeGreaterThan(0);
    const second = await rt.deploy(buildFlow({ source: ['csi.nexmon-udp', { port, host: '127.0.0.1' }], sink: ['test.sink'] }, ['source.frames -> sink.in']));
    expect(second.outcome).toMatchObject({ status: 'failed', error: expect.stringContaining(`failed to start: UDP port ${port} on 127.0.0.1 is in use`) });
    await rt.undeploy(second.id, 0);
    const client = createSocket('udp4');
    await new Promise<void>((r, j) => client.send(Buffer.from([0x00, 0x01]), port, '127.0.0.1', (e) => (e ? j(e) : r())));
    await poll(() => Number(first.pipeline.counters().source!.stats!.packets) === 1);
    client.close();

    // An address that is not this machine's says so.
    const elsewhere = await rt.deploy(buildFlow({ source: ['csi.esp32-udp', { port: 0, host: '192.0.2.1' }], sink: ['test.sink'] }, ['source.frames -> sink.in']));
    expect(elsewhere.outcome).toMatchObject({ status: 'failed', error: expect.stringContaining('192.0.2.1 is not an address of this machine') });
    await rt.undeploy(elsewhere.id, 0);

    // Undeployed, the port is free again at once.
    await rt.undeploy(first.id, 0);
    const again = createSocket('udp4');
    await new Promise<void>((r, j) => {
      again.once('error', j);
      again.bind(port, '127.0.0.1', () => r());
    });
    again.close();
    expect(received).toEqual([]);
  });

  it('a flow that fails to start after its receiver bound the port gives the port back', async () => {
    const rt = await start();
    const probe = createSocket('udp4');
    await new Promise<void>((r) => probe.bind(0, '127.0.0.1', () => r()));
    const port = probe.address().port;
    probe.close();
    // The receiver is created first (it has no inputs); the file source after it cannot start.
    const deployed = await rt.deploy(buildFlow({ receiver: ['csi.esp32-udp', { port, host: '127.0.0.1' }], reader: ['csi.file', { path: join(tmp, 'no-such-capture.dat') }], sink: ['test.sink'] }, ['receiver.frames -> sink.in', 'reader.frames -> sink.in']));
    expect(deployed.outcome).toMatchObject({ status: 'failed', error: expect.stringMatching(/^node reader \(csi\.file\) failed to start: .*no-such-capture\.dat/) });
    await rt.undeploy(deployed.id, 0);
    const rebind = createSocket('udp4');
    await new Promise<void>((r, j) => {
      rebind.once('error', j);
      rebind.bind(port, '127.0.0.1', () => r());
    });
    rebind.close();
  });

  it('csi.esp32-serial fails the deployment as it starts when its device is not there, naming it', async () => {
    const rt = await start();
    const deployed = await rt.deploy(buildFlow({ source: ['csi.esp32-serial', { path: '/dev/ttyWIFLOW-missing0' }], sink: ['test.sink'] }, ['source.frames -> sink.in']));
    expect(deployed.outcome).toMatchObject({ status: 'failed', error: expect.stringMatching(/^node source \(csi\.esp32-serial\) failed to start: .*ttyWIFLOW-missing0/) });
    await rt.undeploy(deployed.id, 0);
  });

  it('csi.esp32-serial reads lines from a device path (a file here) until it ends', async () => {
    const path = join(tmp, 'tty.log');
    const text = readFileSync(file('esp32/example_data.csv'), 'latin1');
    writeFileSync(path, `I (123) boot: garbage before the data\n${text}`);
    const rt = await start();
    const snapshot = await runFlow(rt, buildFlow({ source: ['csi.esp32-serial', { path }], sink: ['test.sink'] }, ['source.frames -> sink.in']));
    expect(snapshot.status).toBe('completed');
    const expected = await readCapture(file('esp32/example_data.csv'));
    expect(received.length).toBe(60);
    (received as CsiFrame[]).forEach((f, i) => sameFrame(f, expected[i]));
  });

  it('csi.esp32-serial in a confined run reads a character device or a file inside its roots, never an ordinary file outside', async () => {
    const root = mkdtempSync(join(tmpdir(), 'wiflow-serial-root-'));
    const text = readFileSync(file('esp32/example_data.csv'), 'latin1');
    writeFileSync(join(root, 'tty.log'), text);
    const secret = join(tmp, 'secret.csv');
    writeFileSync(secret, text);
    symlinkSync(secret, join(root, 'link.csv'));
    const rt = await start();
    const run = async (path: string) => {
      received.length = 0;
      const job = await rt.runJob(buildFlow({ source: ['csi.esp32-serial', { path }], sink: ['test.sink'] }, ['source.frames -> sink.in']), { timeoutMs: 30_000, access: { files: new FileAccess([root]) } });
      return job.done;
    };
    expect((await run('tty.log')).status).toBe('completed');
    expect(received.length).toBe(60);
    expect(await run('/dev/null')).toMatchObject({ status: 'completed', error: null });
    for (const path of [secret, 'link.csv', join(tmp, 'missing.csv'), '../secret.csv']) {
      const refused = await run(path);
      expect(refused.status, path).toBe('failed');
      expect(refused.error).toContain(`file ${JSON.stringify(path)} is not available to this flow: it does not exist or lies outside the folders this flow may use`);
      expect(received).toEqual([]);
    }
  });
});

describe('file, record and replay nodes', () => {
  it('a file source that cannot read its file fails the deployment as it starts, naming the node and the file (not a moment after)', async () => {
    const rt = await start();
    const notCsi = join(tmp, 'notes.txt');
    writeFileSync(notCsi, 'not a capture\n');
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['csi.file', { path: join(tmp, 'missing.dat') }, /^node source \(csi\.file\) failed to start: .*missing\.dat/],
      ['csi.file', { path: notCsi }, /^node source \(csi\.file\) failed to start: .*notes\.txt/],
      ['csi.replay', { path: join(tmp, 'missing.wfr') }, /^node source \(csi\.replay\) failed to start: .*missing\.wfr/],
    ];
    for (const [type, config, error] of cases) {
      const deployed = await rt.deploy(buildFlow({ source: [type, config], sink: ['test.sink'] }, ['source.frames -> sink.in']));
      // Read as deploy returns: the answer a deploy request gets carries the failure.
      expect(deployed.outcome, type).toMatchObject({ status: 'failed', error: expect.stringMatching(error) });
      await rt.undeploy(deployed.id, 0);
    }
    // In a confined run the same refusal as every other file node, still at start.
    const confined = await rt.deploy(buildFlow({ source: ['csi.file', { path: 'missing.dat' }], sink: ['test.sink'] }, ['source.frames -> sink.in']), { access: { files: new FileAccess([tmp]) } });
    expect(confined.outcome).toMatchObject({ status: 'failed', error: expect.stringContaining('file "missing.dat" is not available to this flow') });
    await rt.undeploy(confined.id, 0);
    expect(received).toEqual([]);
  });

  it('csi.file → csi.record writes a recording csi.replay plays back unchanged, truth included', async () => {
    const out = join(tmp, 'intel.wfr');
    const rt = await start();
    const recorded = await runFlow(rt, buildFlow({ source: ['csi.file', { path: file('intel/log.all_csi.6.7.6.dat') }], record: ['csi.record', { path: out }] }, ['source.frames -> record.frames']));
    expect(recorded.status).toBe('completed');
    const original = await readCapture(file('intel/log.all_csi.6.7.6.dat'));
    const back = await readCapture(out);
    expect(back.length).toBe(29);
    back.forEach((f, i) => sameFrame(f, original[i]));

    const withTruth = join(tmp, 'truth.wfr');
    const frames = original.slice(0, 5).map((f, i) => ({ ...f, truth: { time: i, environmentId: 'lab', persons: [], events: [] } }));
    writeFileSync(withTruth, encodeRecording(frames));
    const played = await runFlow(rt, buildFlow({ replay: ['csi.replay', { path: withTruth, speed: 0 }], frames: ['test.sink'], truth: ['test.sink'] }, ['replay.frames -> frames.in', 'replay.truth -> truth.in']));
    expect(played.status).toBe('completed');
    const replayedFrames = received.filter((v) => (v as CsiFrame).csi) as CsiFrame[];
    const truths = received.filter((v) => !(v as CsiFrame).csi);
    expect(replayedFrames.length).toBe(5);
    expect(truths.length).toBe(5);
    expect(replayedFrames[3].truth?.time).toBe(3);
  });

  it('csi.replay paces at the recorded rate times speed, and loops with monotonic timestamps', async () => {
    const rt = await start();
    const esp = await readCapture(file('esp32/example_data.csv'));
    const path = join(tmp, 'esp.wfr');
    writeFileSync(path, encodeRecording(esp.slice(0, 20)));
    const span = (esp[19].timestamp - esp[0].timestamp) / 1e6;
    const speed = span / 0.6;
    const t0 = performance.now();
    const snapshot = await runFlow(rt, buildFlow({ replay: ['csi.replay', { path, speed }], sink: ['test.sink'] }, ['replay.frames -> sink.in']));
    const elapsed = (performance.now() - t0) / 1000;
    expect(snapshot.status).toBe('completed');
    expect(received.length).toBe(20);
    expect(elapsed).toBeGreaterThan(0.55);
    expect(elapsed).toBeLessThan(5);

    received.length = 0;
    const deployed = await rt.deploy(buildFlow({ replay: ['csi.replay', { path, speed: 0, loop: true }], sink: ['test.sink'] }, ['replay.frames -> sink.in']));
    await waitFor(() => received.length >= 50);
    await rt.undeploy(deployed.id);
    const stamps = (received as CsiFrame[]).map((f) => f.timestamp);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThanOrEqual(stamps[i - 1]);
    expect(stamps[20]).toBeGreaterThan(stamps[19]);
  });

  it('csi.file stops at a fault with the frames before it, and reports the error in stats', async () => {
    const intel = readFileSync(file('intel/log.all_csi.6.7.6.dat'));
    const path = join(tmp, 'cut.dat');
    writeFileSync(path, intel.subarray(0, 2000));
    const rt = await start();
    const deployed = await rt.deploy(buildFlow({ source: ['csi.file', { path }], sink: ['test.sink'] }, ['source.frames -> sink.in']));
    await deployed.pipeline.done;
    expect(received.length).toBeGreaterThan(0);
    expect(String(deployed.pipeline.counters().source?.stats?.error)).toMatch(/byte offset \d+/);
  });
});

describe('signal nodes in a flow', () => {
  it('csi.file → csi.signal-chain → windows; csi.window → csi.doppler → spectra', async () => {
    const rt = await start();
    const snapshot = await runFlow(rt, buildFlow({
      source: ['csi.file', { path: file('nexmon/example_4366c0.pcap') }],
      chain: ['csi.signal-chain', { grid: 'vht80', windowLength: 32, hop: 16, environmentId: 'lab' }],
      windows: ['test.sink'],
    }, ['source.frames -> chain.frames', 'chain.windows -> windows.in']));
    expect(snapshot.status).toBe('completed');
    const windows = received as CsiWindow[];
    expect(windows.length).toBe(1 + Math.floor((293 - 32) / 16));
    expect(windows[0].nsc).toBe(242);
    expect(windows[0].environmentId).toBe('lab');
    received.length = 0;
    const doppler = await runFlow(rt, buildFlow({
      source: ['csi.file', { path: file('nexmon/example_4366c0.pcap') }],
      resample: ['csi.resample', { grid: 'vht80' }],
      sanitize: ['csi.sanitize-phase'],
      hampel: ['csi.hampel'],
      normalize: ['csi.normalize'],
      window: ['csi.window', { length: 64, hop: 64 }],
      doppler: ['csi.doppler'],
      spectra: ['test.sink'],
    }, ['source.frames -> resample.frames', 'resample.frames -> sanitize.frames', 'sanitize.frames -> hampel.frames', 'hampel.frames -> normalize.frames', 'normalize.frames -> window.frames', 'window.windows -> doppler.windows', 'doppler.spectra -> spectra.in']));
    expect(doppler.status).toBe('completed');
    expect(received.length).toBe(Math.floor(293 / 64));
    const spectrum = received[0] as { power: Float32Array; frequenciesHz: Float32Array; sampleRateHz: number };
    expect(spectrum.power.length).toBe(64);
    expect(spectrum.sampleRateHz).toBeGreaterThan(0);
    expect(spectrum.power.every(Number.isFinite)).toBe(true);
  });

  it('csi.conjugate turns 3 chains into 2, and counts single-chain frames as node errors, not crashes', async () => {
    const rt = await start();
    const snapshot = await runFlow(rt, buildFlow({ source: ['csi.file', { path: file('atheros/example_bigEndian.dat') }], conj: ['csi.conjugate'], sink: ['test.sink'] }, ['source.frames -> conj.frames', 'conj.frames -> sink.in']));
    expect(snapshot.status).toBe('completed');
    expect(received.length).toBe(16);
    expect((received[0] as CsiFrame).nrx).toBe(2);
    received.length = 0;
    const deployed = await rt.deploy(buildFlow({ source: ['csi.file', { path: file('esp32/example_data.csv') }], conj: ['csi.conjugate'], sink: ['test.sink'] }, ['source.frames -> conj.frames', 'conj.frames -> sink.in']));
    await deployed.pipeline.done;
    const counters = deployed.pipeline.counters().conj!;
    expect(counters.errors).toBe(60);
    expect(counters.lastError).toMatch(/at least 2 receive chains/);
    expect(received.length).toBe(0);
  });
});
