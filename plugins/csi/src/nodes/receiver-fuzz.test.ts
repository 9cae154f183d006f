// Hostile input to the live receivers: real datagrams to the bound UDP sockets of
// csi.nexmon-udp and csi.esp32-udp, and real byte streams through a FIFO to csi.esp32-serial
// (the node's own read path: createReadStream on a path; a pty would need socat, which the
// build machines lack). Each receiver must live, keep its memory bounded, report bad input
// with a code, its source and a byte offset, and decode the good input that follows.
import { createSocket, type Socket } from 'node:dgram';
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { defineNode, definePlugin, mulberry32, type CsiFrame, type Runtime } from '@wiflow/core';
import { buildFlow, createTestRuntime } from '@wiflow/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import csiPlugin, { decodeCapture, readCapture, SequenceTracker } from '../index.js';

const DATA = resolve(import.meta.dirname, '../../test-fixtures');
const file = (p: string) => resolve(DATA, p);
const tmp = mkdtempSync(join(tmpdir(), 'wiflow-csi-receiver-fuzz-'));

const received: CsiFrame[] = [];
/** The sink takes its next frame only once this settles (a flow that cannot keep up). */
let sinkGate: Promise<void> = Promise.resolve();
const sinkPlugin = definePlugin({
  name: 'test:csi-fuzz-sink',
  setup(ctx) {
    ctx.registerNode(defineNode({
      type: 'test.sink',
      title: 'sink',
      category: 'testing',
      description: 'collects frames',
      inputs: { in: { type: 'any' } },
      outputs: {},
      config: z.object({}),
      create: () => ({
        receive: async (_p, v) => {
          received.push(v as CsiFrame);
          await sinkGate;
        },
      }),
    }));
  },
});

const bytes = (next: () => number, n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(next() * 256)));

async function poll(condition: () => boolean, what: () => string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting: ${what()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

function sameFrame(a: CsiFrame, b: CsiFrame) {
  expect(Array.from(a.csi.re)).toEqual(Array.from(b.csi.re));
  expect(Array.from(a.csi.im)).toEqual(Array.from(b.csi.im));
  expect(Array.from(a.subcarriers)).toEqual(Array.from(b.subcarriers));
  expect(a.sequence).toBe(b.sequence);
}

let runtime: Runtime | null = null;
let client: Socket | null = null;
afterEach(async () => {
  received.length = 0;
  client?.close();
  client = null;
  await runtime?.stop(2000);
  runtime = null;
});

/** Deploy one receiver into a sink; its live stats and (for UDP) its bound port. */
async function deployReceiver(type: string, config: Record<string, unknown>, edge?: { capacity: number; overflow: 'block' }) {
  runtime = await createTestRuntime({ plugins: [csiPlugin, sinkPlugin] });
  await runtime.start();
  const flow = buildFlow({ source: [type, config], sink: ['test.sink'] }, ['source.frames -> sink.in']);
  if (edge) flow.edges[0].data = edge;
  const deployed = await runtime.deploy(flow);
  const stats = () => (deployed.pipeline.counters().source?.stats ?? {}) as Record<string, number | string | null>;
  const sinkQueued = () => Number(deployed.pipeline.counters().sink?.queued);
  return { stats, sinkQueued };
}

/** A UDP sender that waits, every `burst` datagrams, until the receiver has counted them all (loopback drops when its buffer overruns). */
async function udpSender(port: number, stats: () => Record<string, number | string | null>) {
  client = createSocket('udp4');
  const socket = client;
  let sent = 0;
  const settle = () => poll(() => Number(stats().packets) === sent, () => `packets ${stats().packets} of ${sent}`);
  return {
    async send(datagram: Buffer, burst = 20) {
      await new Promise<void>((r, j) => socket.send(datagram, port, '127.0.0.1', (e) => (e ? j(e) : r())));
      if (++sent % burst === 0) await settle();
    },
    settle,
    get sent() {
      return sent;
    },
    get localPort() {
      return socket.address().port;
    },
  };
}

async function boundPort(stats: () => Record<string, number | string | null>): Promise<number> {
  await poll(() => Number(stats().port) > 0, () => 'port');
  return Number(stats().port);
}

/** Random datagrams of each kind per test: 500 in CI; set WIFLOW_RECEIVER_FUZZ_N for a longer run. */
const RANDOM_DATAGRAMS = Number(process.env.WIFLOW_RECEIVER_FUZZ_N ?? 500);

/** One line of figures for the record (the longer local runs quote it). */
function report(name: string, sent: number, stats: Record<string, number | string | null>) {
  const rssMb = Math.round(process.memoryUsage().rss / 2 ** 20);
  console.log(`${name}: ${sent} datagrams or lines, ${stats.frames} frames, ${stats.invalid} invalid, ${stats.otherPackets} other, ${stats.droppedFrames} dropped (flow full), ${stats.transmitters} transmitters tracked, test process RSS ${rssMb} MB`);
}

/** The largest UDP payload IPv4 carries (65,535 − 8 − 20). */
const MAX_DATAGRAM = 65_507;

/** The UDP payloads of the 4366c0 sample capture, and its frames as the pcap reader decodes them. */
function nexmonCapture(): { payloads: Buffer[]; expected: CsiFrame[] } {
  const pcap = readFileSync(file('nexmon/example_4366c0.pcap'));
  const payloads: Buffer[] = [];
  for (let p = 24; p + 16 <= pcap.length; ) {
    const length = pcap.readUInt32LE(p + 8);
    payloads.push(pcap.subarray(p + 16 + 42, p + 16 + length));
    p += 16 + length;
  }
  return { payloads, expected: decodeCapture(pcap).frames };
}

describe('csi.nexmon-udp under hostile datagrams', () => {
  it('lives through empty, 64 KiB, truncated, random, lying and flooding datagrams, reports each bad one, and decodes the good ones after', async () => {
    const { stats, sinkQueued } = await deployReceiver('csi.nexmon-udp', { port: 0, host: '127.0.0.1', chip: 'bcm4366c0', sourceId: 'fuzz' });
    const port = await boundPort(stats);
    const { payloads, expected } = nexmonCapture();
    const udp = await udpSender(port, stats);
    const next = mulberry32(1); // seeded, so a failure can be replayed
    const good = payloads[0];

    await udp.send(Buffer.alloc(0));
    await udp.send(bytes(next, MAX_DATAGRAM));
    // Truncated headers: the magic and then less than the 18-byte header.
    for (let k = 2; k < 18; k++) await udp.send(good.subarray(0, k));
    await udp.settle();
    expect(Number(stats().invalid)).toBe(16);
    expect(stats().lastError).toMatch(new RegExp(`^WIFLOW_CSI_MALFORMED: datagram from 127\\.0\\.0\\.1:${udp.localPort}: Nexmon payload of 17 bytes is shorter than its 18-byte header at byte offset 0`));
    expect(stats().lastErrorCode).toBe('WIFLOW_CSI_MALFORMED');
    // A header that claims 80 MHz (chanspec) over fewer than 64 bins of data: a length that lies.
    const lying = Buffer.from(good.subarray(0, 18 + 100));
    lying.writeUInt16LE(0xe000 | 42, 14);
    await udp.send(lying);
    await udp.settle();
    expect(stats().lastError).toMatch(/^WIFLOW_CSI_MALFORMED: datagram from 127\.0\.0\.1:\d+: Nexmon payload carries 100 CSI bytes, fewer than 64 bins at byte offset 18/);
    // Random bytes, with and without the magic; a flood of well-formed headers from 5,000 (10 × N) transmitters.
    for (let i = 0; i < RANDOM_DATAGRAMS; i++) await udp.send(bytes(next, 1 + Math.floor(next() * 1500)), 50);
    for (let i = 0; i < RANDOM_DATAGRAMS; i++) await udp.send(Buffer.concat([Buffer.from([0x11, 0x11]), bytes(next, Math.floor(next() * 1500))]), 50);
    for (let i = 0; i < 10 * RANDOM_DATAGRAMS; i++) {
      const flood = Buffer.from(good);
      flood.writeUInt32BE(i, 6);
      await udp.send(flood, 100);
    }
    await udp.settle();
    // The loss tracker keeps a bounded number of transmitters, not one entry per MAC ever seen.
    expect(Number(stats().transmitters)).toBeLessThanOrEqual(256);
    // Let the flow drain the flood first (past its queue's capacity the receiver drops frames, tested below).
    await poll(() => sinkQueued() === 0, () => `sink queue ${sinkQueued()}`);
    const before = received.length;
    for (const payload of payloads.slice(0, 50)) await udp.send(payload);
    await udp.settle();
    await poll(() => received.length >= before + 50, () => `frames ${received.length - before} of 50`);
    received.slice(before).forEach((f, i) => sameFrame(f, expected[i]));
    expect(Number(stats().packets)).toBe(udp.sent);
    report('nexmon-udp', udp.sent, stats());
  }, 600_000);
  it('with chip auto, stray datagrams that start with the magic do not decide how the real packets are decoded', async () => {
    const { stats, sinkQueued } = await deployReceiver('csi.nexmon-udp', { port: 0, host: '127.0.0.1', chip: 'auto', sourceId: 'fuzz' });
    const port = await boundPort(stats);
    const { payloads, expected } = nexmonCapture();
    const udp = await udpSender(port, stats);
    // Magic, an unknown chip id, 256 bins of a constant: the content guess for it is int16, not the 4366c0's float-12-6.
    const stray = Buffer.alloc(18 + 256 * 4, 0x55);
    stray.writeUInt16BE(0x1111, 0);
    stray.writeUInt16LE(0, 16);
    for (let i = 0; i < 3; i++) await udp.send(stray);
    await udp.settle();
    // Let the flow drain the flood first (past its queue's capacity the receiver drops frames, tested below).
    await poll(() => sinkQueued() === 0, () => `sink queue ${sinkQueued()}`);
    const before = received.length;
    for (const payload of payloads.slice(0, 50)) await udp.send(payload);
    await udp.settle();
    await poll(() => received.length >= before + 50, () => `frames ${received.length - before} of 50`);
    received.slice(before).forEach((f, i) => sameFrame(f, expected[i]));
    expect(received.at(-1)!.extra?.encoding).toBe('float-12-6');
  }, 60_000);
});

describe('a UDP receiver whose flow cannot keep up', () => {
  it('drops and counts the frames that arrive while the flow is full, instead of queueing them past the edge capacity', async () => {
    let release!: () => void;
    sinkGate = new Promise<void>((r) => (release = r));
    const { stats, sinkQueued } = await deployReceiver('csi.nexmon-udp', { port: 0, host: '127.0.0.1', chip: 'bcm4366c0' }, { capacity: 32, overflow: 'block' });
    const port = await boundPort(stats);
    const { payloads } = nexmonCapture();
    const udp = await udpSender(port, stats);
    for (let i = 0; i < 2000; i++) await udp.send(payloads[i % payloads.length], 100);
    await udp.settle();
    expect(Number(stats().frames)).toBe(2000);
    // The sink holds one frame; the edge holds its capacity and at most the one frame that found it full.
    expect(sinkQueued()).toBeLessThanOrEqual(33);
    const dropped = Number(stats().droppedFrames);
    expect(dropped).toBeGreaterThanOrEqual(2000 - 34);
    release();
    sinkGate = Promise.resolve();
    await poll(() => received.length === 2000 - dropped, () => `frames ${received.length} of ${2000 - dropped}`);
    // Once the flow has room again, new packets flow through.
    for (const payload of payloads.slice(0, 10)) await udp.send(payload);
    await udp.settle();
    await poll(() => received.length === 2010 - dropped, () => `frames ${received.length} of ${2010 - dropped}`);
    expect(Number(stats().droppedFrames)).toBe(dropped);
  }, 60_000);
});

describe('csi.esp32-udp under hostile datagrams', () => {
  it('lives through empty, 64 KiB, cut, random and lying lines, reports each bad one with its offset, and decodes the good lines after', async () => {
    const { stats, sinkQueued } = await deployReceiver('csi.esp32-udp', { port: 0, host: '127.0.0.1' });
    const port = await boundPort(stats);
    const lines = readFileSync(file('esp32/example_data.csv'), 'latin1').split('\n').filter((l) => l.startsWith('CSI_DATA'));
    const expected = await readCapture(file('esp32/example_data.csv'));
    const udp = await udpSender(port, stats);
    const next = mulberry32(2); // seeded, so a failure can be replayed
    const line = lines[0];

    await udp.send(Buffer.alloc(0));
    await udp.send(Buffer.from('\n'.repeat(1000)));
    await udp.send(bytes(next, MAX_DATAGRAM));
    await udp.send(Buffer.from('CSI_DATA,' + 'x'.repeat(MAX_DATAGRAM - 9)));
    await udp.settle();
    // A good line, then one cut inside its data: the error gives the offset in the datagram.
    const cut = `${line}\n${line.slice(0, line.indexOf('['))}[18 38 97\n`;
    await udp.send(Buffer.from(cut));
    await udp.settle();
    expect(stats().lastError).toMatch(new RegExp(`^WIFLOW_CSI_MALFORMED: datagram from 127\\.0\\.0\\.1:${udp.localPort}: CSI data field is not closed with \\] at byte offset ${cut.length - 1}\\b`));
    expect(stats().lastErrorCode).toBe('WIFLOW_CSI_MALFORMED');
    // Every cut of a line, random bytes with newlines, lines whose len column lies.
    const invalidBefore = Number(stats().invalid);
    let cuts = 0;
    for (let k = 0; k < line.length; k += 7) {
      await udp.send(Buffer.from(line.slice(0, k)), 50);
      // Shorter than "CSI_DATA" it is some other line; longer, a CSI line without its closing ].
      if (k >= 'CSI_DATA'.length) cuts++;
    }
    await udp.settle();
    expect(Number(stats().invalid) - invalidBefore).toBe(cuts);
    for (let i = 0; i < RANDOM_DATAGRAMS; i++) await udp.send(bytes(next, 1 + Math.floor(next() * 2000)), 50);
    for (const len of ['0', '99999', '-1', '1e9']) await udp.send(Buffer.from(line.replace(/,384,\[/, `,${len},[`)));
    // A flood of lines from 1,000 (2 × N) transmitters whose "MAC" is 8 KB of text (ESP32-CSI-Tool lines carry
    // no counter, so the loss tracker keeps nothing of them; the tracker's bound is tested below).
    for (let i = 0; i < 2 * RANDOM_DATAGRAMS; i++) await udp.send(Buffer.from(line.replace('D0:6E:DE:27:6B:63', `${i}:${'m'.repeat(8000)}`)), 50);
    await udp.settle();
    // Let the flow drain the flood first (past its queue's capacity the receiver drops frames, tested below).
    await poll(() => sinkQueued() === 0, () => `sink queue ${sinkQueued()}`);
    const before = received.length;
    for (let i = 0; i < lines.length; i += 2) await udp.send(Buffer.from(lines.slice(i, i + 2).join('\n') + '\n'));
    await udp.settle();
    await poll(() => received.length >= before + 60, () => `frames ${received.length - before} of 60`);
    received.slice(before).forEach((f, i) => sameFrame(f, expected[i]));
    report('esp32-udp', udp.sent, stats());
  }, 600_000);
});

describe('the loss tracker under a flood of transmitters', () => {
  it('remembers at most 256, the most recently heard, with keys cut to 64 characters, and still counts their gaps', () => {
    const tracker = new SequenceTracker(4096);
    for (let i = 0; i < 10_000; i++) tracker.observe(`${i}:${'m'.repeat(8000)}`, i % 4096);
    expect(tracker.transmitters).toBe(256);
    // Keys are cut to 64 characters: two that differ only after that are one transmitter (a jump 1 → 4 loses 2).
    const long = 'x'.repeat(64);
    tracker.observe(`${long}A`, 1);
    tracker.observe(`${long}B`, 4);
    expect(tracker.gaps).toBe(1);
    expect(tracker.lost).toBe(2);
    expect(tracker.transmitters).toBe(256);
  });
});

describe('csi.esp32-serial under hostile byte streams (a FIFO: the node reads it like a tty)', () => {
  /** Deploy the serial receiver on a fresh FIFO and write `chunks` into it, one write each, then close it. */
  async function feed(chunks: (Buffer | string)[]) {
    const fifo = join(tmp, `tty-${Math.random().toString(36).slice(2)}`);
    execFileSync('mkfifo', [fifo]);
    const { stats } = await deployReceiver('csi.esp32-serial', { path: fifo });
    const out = createWriteStream(fifo);
    for (const chunk of chunks) if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
    await new Promise<void>((r) => out.end(r));
    return stats;
  }

  const text = () => readFileSync(file('esp32/example_data.csv'), 'latin1');

  it('caps a line that never ends: it is reported once as too long, at its offset, and reading resumes on the next line', async () => {
    const runaway = Buffer.alloc(1024 * 1024, 'CSI_DATA,1,2,3,'.repeat(100));
    const chunks: Buffer[] = [Buffer.from('I (12) boot: ok\n')];
    for (let i = 0; i < runaway.length; i += 16_384) chunks.push(runaway.subarray(i, i + 16_384));
    const stats = await feed([...chunks, '\n', text()]);
    const expected = await readCapture(file('esp32/example_data.csv'));
    await poll(() => received.length === 60, () => `frames ${received.length} of 60`);
    received.forEach((f, i) => sameFrame(f, expected[i]));
    expect(Number(stats().invalid)).toBe(1);
    expect(stats().lastError).toMatch(/^WIFLOW_CSI_RECORD_TOO_LARGE: serial .*tty-\w+: line longer than 65536 bytes at byte offset 16\b/);
  });

  it('passes over binary noise and garbage lines, reports the bad CSI lines with their stream offset, and decodes the good lines after', async () => {
    const next = mulberry32(3); // seeded, so a failure can be replayed
    const noise = bytes(next, 200_000);
    const lines = text().split('\n');
    const cut = lines[1].slice(0, 40);
    const stats = await feed([noise, '\n', 'garbage,\x00,\xff\n', `${cut}\n`, text()]);
    const expected = await readCapture(file('esp32/example_data.csv'));
    await poll(() => received.length >= 60, () => `frames ${received.length} of 60`);
    received.slice(-60).forEach((f, i) => sameFrame(f, expected[i]));
    expect(Number(stats().invalid)).toBeGreaterThanOrEqual(1);
    // The cut line is the last bad one: the offset counts every byte of the stream before it.
    const cutAt = noise.length + 1 + Buffer.byteLength('garbage,\x00,\xff\n');
    expect(stats().lastError).toMatch(new RegExp(`^WIFLOW_CSI_MALFORMED: serial .*tty-\\w+: .* at byte offset ${cutAt}\\b`));
  });
});
