import { createSocket, type Socket } from 'node:dgram';
import { execFile } from 'node:child_process';
import { constants as fsConstants, createReadStream } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { DataTypes, defineNode, type CsiFrame, type FileAccess } from '@wiflow/core';
import { z } from 'zod';
import { CsiErrorCodes, CsiParseError, DecodeFault, parseErrorFromFault } from '../errors.js';
import { NEXMON_CHIPS, type DecoderOptions } from '../readers/decoder.js';
import { Esp32LineParser } from '../readers/esp32.js';
import { NEXMON_UDP_PORT, NexmonPayloadDecoder } from '../readers/nexmon.js';
import { ReceiverStats } from './live-stats.js';

const chips = ['auto', ...Object.keys(NEXMON_CHIPS)] as [string, ...string[]];

function liveOptions(sourceId: string, chip: string = 'auto'): DecoderOptions {
  return { sourceId, receiverId: sourceId, baseTime: Date.now(), provenance: 'live', chip: chip as DecoderOptions['chip'], nullSubcarriers: 'drop', esp32Field: 'auto', esp32FirstWordInvalid: true };
}

/**
 * Bind a UDP socket and resolve when listening; reject with what an installer can act on (the port
 * taken, not allowed, or the address not this machine's). The socket is exclusive: a second flow
 * (or program) on the same port is refused instead of silently taking the first one's datagrams,
 * as a socket shared with SO_REUSEADDR would on Linux.
 */
function bindUdp(port: number, host: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // A large receive buffer rides out bursts (Nexmon sends one packet per core and stream at once); Linux caps it at rmem_max.
    const socket = createSocket({ type: 'udp4', recvBufferSize: 4 * 1024 * 1024 });
    socket.once('error', (error: NodeJS.ErrnoException) => {
      socket.close();
      reject(new Error(bindProblem(error, port, host)));
    });
    socket.bind(port, host, () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
  });
}

/** Why a UDP port could not be bound, in words. */
function bindProblem(error: NodeJS.ErrnoException, port: number, host: string): string {
  const where = `UDP port ${port} on ${host}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `${where} is in use (another flow or program receives there): stop it or choose another port`;
    case 'EACCES':
    case 'EPERM':
      return `${where} is not allowed to this process (ports below 1024 need privileges): choose a port of 1024 or more`;
    case 'EADDRNOTAVAIL':
      return `${where}: ${host} is not an address of this machine (0.0.0.0 listens on all of them)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${where}: host ${host} cannot be resolved`;
    default:
      return `${where} cannot be bound: ${error.message}`;
  }
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * Count a bad input and keep its error: a decoder fault becomes the `CsiParseError` naming
 * `where` (a datagram's source, a serial device) and the byte offset in it (`base` is the offset
 * of the decoder's buffer index 0). Anything else is a decoder bug, reported as one, uncoded.
 */
function reportFault(stats: ReceiverStats, error: unknown, where: string, base: number, format: string): void {
  if (error instanceof DecodeFault) {
    const parseError = parseErrorFromFault(error, where, base, format);
    stats.fault(parseError.code, parseError.message);
  } else {
    stats.fault(null, `internal decoder error: ${String(error).slice(0, 200)} (${where})`);
  }
}

/**
 * How a UDP receiver hands frames on. A socket cannot be paused, so when the flow is full (an
 * edge with the `block` policy answers with a promise) the frames that arrive until it has room
 * are dropped here and counted (`droppedFrames`), instead of piling up in the edge's queue past
 * its capacity for as long as the flood lasts.
 */
function udpEmitter(emit: (frame: CsiFrame) => void | Promise<void>, stats: ReceiverStats): (frame: CsiFrame) => void {
  let waiting = false;
  const resume = () => {
    waiting = false;
  };
  return (frame) => {
    if (waiting) {
      stats.dropped++;
      return;
    }
    const wait = emit(frame);
    if (wait) {
      waiting = true;
      wait.then(resume, resume);
    }
  };
}

/** How a datagram's sender is named in errors: `address:port`, IPv6 in brackets. */
function sourceOf(remote: { address: string; port: number; family: string }): string {
  return remote.family === 'IPv6' ? `[${remote.address}]:${remote.port}` : `${remote.address}:${remote.port}`;
}

/**
 * The instance of a UDP source node. Its port is bound when the node is created, so a deploy whose
 * port is taken (or not allowed) answers failed at once, naming node and port; the socket is closed
 * when the node stops, or when the pipeline fails to start after it was bound. Each datagram is
 * counted (packets, rate) and handed, with its sender, to `onDatagram` until the node stops; its
 * stats carry the bound port. A throw from `onDatagram` is counted, never raised: one datagram must
 * not end the receiver, whatever it holds.
 */
async function udpReceiver(ctx: { config: { port: number; host: string }; signal: AbortSignal }, stats: ReceiverStats, onDatagram: (message: Buffer, source: string) => void) {
  const socket = await bindUdp(ctx.config.port, ctx.config.host);
  const port = socket.address().port;
  // From the bind on, an error of the socket is the receiver's to report, never an uncaught event.
  socket.on('error', (error) => {
    stats.lastError = error.message;
  });
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    socket.close();
  };
  return {
    async run() {
      socket.on('message', (message, remote) => {
        stats.packets++;
        stats.rate.tick();
        const source = sourceOf(remote);
        try {
          onDatagram(message, source);
        } catch (error) {
          reportFault(stats, error, `datagram from ${source}`, 0, 'udp');
        }
      });
      await untilAborted(ctx.signal);
      close();
    },
    close,
    stats: () => ({ ...stats.snapshot(), port }),
  };
}

/** Packets in a row that must agree on a Nexmon encoding before a live receiver keeps it (chip 'auto'). */
export const NEXMON_LIVE_CONFIRMATIONS = 16;

/** Config of `csi.nexmon-udp`. */
export const NexmonUdpConfig = z.object({
  port: z.number().int().min(0).max(65535).default(NEXMON_UDP_PORT).describe('UDP port (0 picks a free one, shown in stats)'),
  host: z.string().default('0.0.0.0').describe('Address to bind'),
  chip: z.enum(chips).default('auto').describe('Nexmon chip (decides the CSI encoding; the chip id in packets is unreliable)'),
  sourceId: z.string().default('nexmon'),
});

/** Live Nexmon CSI receiver (UDP, port 5500 by default). */
export const nexmonUdpNode = defineNode({
  type: 'csi.nexmon-udp',
  title: 'Nexmon CSI (UDP)',
  category: 'sources',
  description: 'Receives Nexmon CSI UDP packets (one per core and spatial stream) and reports packet rate, loss and sequence gaps.',
  inputs: {},
  outputs: { frames: { type: DataTypes.CsiFrame, description: 'CSI frames' } },
  config: NexmonUdpConfig,
  capabilities: ['net.listen'],
  source: true,
  create(ctx) {
    const stats = new ReceiverStats(4096);
    // With chip 'auto', 16 packets in a row must agree on the encoding before it is kept (a stray datagram must not decide it).
    const decoder = new NexmonPayloadDecoder(liveOptions(ctx.config.sourceId, ctx.config.chip), NEXMON_LIVE_CONFIRMATIONS);
    const emit = udpEmitter((frame) => ctx.emit('frames', frame), stats);
    return udpReceiver(ctx, stats, (message, source) => {
      // Without the magic it is someone else's traffic; with it, a CSI packet, however short.
      if (message.length < 2 || message[0] !== 0x11 || message[1] !== 0x11) {
        stats.other++;
        return;
      }
      let frame: CsiFrame;
      try {
        const now = Date.now();
        frame = decoder.decode(message, 0, message.length, performance.timeOrigin * 1000 + performance.now() * 1000, now);
      } catch (error) {
        reportFault(stats, error, `datagram from ${source}`, 0, 'nexmon');
        return;
      }
      stats.frames++;
      stats.sequences.observe(String(frame.extra?.mac), frame.sequence);
      emit(frame);
    });
  },
});

/** The longest line the ESP32 receivers hold while waiting for its newline (real lines are under 4 KB). */
export const MAX_LINE_BYTES = 65536;

/**
 * Feeds bytes in, calls back with each complete line and its offset in the stream (shared by
 * the UDP and serial ESP32 receivers). A line that passes `maxLine` bytes without a newline (a
 * wrong baud rate, binary noise) is reported once through `onOverlong` and skipped up to its
 * newline, so the buffer stays bounded and reading resumes on the next line.
 */
class LineSplitter {
  #pending: Buffer = Buffer.alloc(0);
  /** Stream offset of `#pending[0]`. */
  #pendingOffset = 0;
  /** Stream offset of the next byte pushed. */
  #received = 0;
  /** Inside an overlong line: bytes are dropped until its newline. */
  #skipping = false;

  constructor(
    readonly onLine: (buf: Buffer, start: number, end: number, offset: number) => void,
    readonly onOverlong: (offset: number) => void,
    readonly maxLine = MAX_LINE_BYTES,
  ) {}

  push(chunk: Buffer): void {
    let buf = chunk;
    let base = this.#received;
    this.#received += chunk.length;
    if (this.#skipping) {
      const newline = chunk.indexOf(10);
      if (newline < 0) return;
      this.#skipping = false;
      buf = chunk.subarray(newline + 1);
      base += newline + 1;
    } else if (this.#pending.length) {
      buf = Buffer.concat([this.#pending, chunk]);
      base = this.#pendingOffset;
    }
    let start = 0;
    for (;;) {
      const newline = buf.indexOf(10, start);
      if (newline < 0) break;
      this.onLine(buf, start, newline, base + start);
      start = newline + 1;
    }
    if (buf.length - start > this.maxLine) {
      this.onOverlong(base + start);
      this.#pending = Buffer.alloc(0);
      this.#skipping = true;
    } else {
      this.#pending = Buffer.from(buf.subarray(start));
      this.#pendingOffset = base + start;
    }
  }

  /** The last line without a newline. */
  end(): void {
    if (this.#pending.length) this.onLine(this.#pending, 0, this.#pending.length, this.#pendingOffset);
    this.#pending = Buffer.alloc(0);
  }
}

/** Report a line over MAX_LINE_BYTES, at the stream offset where it began. */
function reportOverlong(stats: ReceiverStats, where: string, offset: number): void {
  const error = new CsiParseError(CsiErrorCodes.recordTooLarge.code, `line longer than ${MAX_LINE_BYTES} bytes`, { file: where, offset, format: 'esp32' });
  stats.fault(error.code, error.message);
}

function esp32LineHandler(parser: Esp32LineParser, stats: ReceiverStats, emit: (frame: CsiFrame) => void) {
  return (where: string) => (buf: Buffer, start: number, end: number, offset: number) => {
    let frame: CsiFrame | null;
    try {
      frame = parser.parse(buf, start, end);
    } catch (error) {
      // The fault's position is an index in `buf`, whose index `start` is stream offset `offset`.
      reportFault(stats, error, where, offset - start, 'esp32');
      return;
    }
    if (!frame) {
      stats.other++;
      return;
    }
    stats.frames++;
    stats.sequences.observe(frame.link.tx, frame.sequence);
    emit(frame);
  };
}

/** Config of `csi.esp32-udp`. */
export const Esp32UdpConfig = z.object({
  port: z.number().int().min(0).max(65535).default(5566).describe('UDP port (0 picks a free one, shown in stats)'),
  host: z.string().default('0.0.0.0'),
  sourceId: z.string().default('esp32'),
});

/** Live ESP32 CSI over UDP: each datagram holds one or more CSV lines (esp-csi or ESP32-CSI-Tool). */
export const esp32UdpNode = defineNode({
  type: 'csi.esp32-udp',
  title: 'ESP32 CSI (UDP)',
  category: 'sources',
  description: 'Receives ESP32 CSI CSV lines (esp-csi or ESP32-CSI-Tool) in UDP datagrams and reports packet rate, loss and sequence gaps (from the esp-csi counter).',
  inputs: {},
  outputs: { frames: { type: DataTypes.CsiFrame, description: 'CSI frames' } },
  config: Esp32UdpConfig,
  capabilities: ['net.listen'],
  source: true,
  create(ctx) {
    const stats = new ReceiverStats(2 ** 32);
    const parser = new Esp32LineParser(liveOptions(ctx.config.sourceId));
    const handle = esp32LineHandler(parser, stats, udpEmitter((frame) => ctx.emit('frames', frame), stats));
    return udpReceiver(ctx, stats, (message, source) => {
      const where = `datagram from ${source}`;
      const splitter = new LineSplitter(handle(where), (offset) => reportOverlong(stats, where, offset));
      splitter.push(message);
      splitter.end();
    });
  },
});

/** Config of `csi.esp32-serial`. */
export const Esp32SerialConfig = z.object({
  path: z.string().min(1).describe('Serial device (e.g. /dev/ttyUSB0), or any file or FIFO that yields CSV lines'),
  baudRate: z.number().int().positive().optional().describe('When set, `stty` configures the device (raw, this speed) before reading'),
  sourceId: z.string().optional(),
});

/** Set a tty's speed and raw mode with stty (Linux and macOS spell the device flag differently). */
function configureTty(path: string, baudRate: number): Promise<void> {
  const flag = process.platform === 'darwin' ? '-f' : '-F';
  return new Promise((resolve, reject) => {
    execFile('stty', [flag, path, String(baudRate), 'raw', '-echo'], (error, _stdout, stderr) => (error ? reject(new Error(`stty ${path} ${baudRate}: ${stderr.trim() || error.message}`)) : resolve()));
  });
}

/**
 * The path `csi.esp32-serial` opens: an absolute path to a character device (what the `device`
 * capability grants, wherever it lies), else a file or FIFO the run's file access allows — so
 * a confined run cannot read an ordinary file outside its roots as "serial lines".
 */
async function serialPath(files: FileAccess, requested: string): Promise<string> {
  if (files.confined && requested.startsWith('/')) {
    const real = await realpath(requested).catch(() => null);
    if (real !== null && (await stat(real).catch(() => null))?.isCharacterDevice()) return real;
  }
  return files.resolve(requested, 'read');
}

/** Live ESP32 CSI from a serial port, read as a character device (no native serial library). */
export const esp32SerialNode = defineNode({
  type: 'csi.esp32-serial',
  title: 'ESP32 CSI (serial)',
  category: 'sources',
  description: 'Reads esp-csi / ESP32-CSI-Tool CSV lines from a serial device (configured with stty when a baud rate is given) and reports line rate, loss and sequence gaps.',
  inputs: {},
  outputs: { frames: { type: DataTypes.CsiFrame, description: 'CSI frames' } },
  config: Esp32SerialConfig,
  capabilities: ['device', 'process'],
  source: true,
  async create(ctx) {
    const stats = new ReceiverStats(2 ** 32);
    const parser = new Esp32LineParser(liveOptions(ctx.config.sourceId ?? basename(ctx.config.path)));
    const pending: Promise<void>[] = [];
    const handle = esp32LineHandler(parser, stats, (frame) => {
      const p = ctx.emit('frames', frame);
      if (p) pending.push(p);
    });
    // Checked when the node is created, so a deploy naming a device that is not there (or not
    // readable by this process, or that stty cannot set) answers failed at once. The device is
    // opened when the node runs: opening a FIFO waits for its writer.
    const path = await serialPath(ctx.files, ctx.config.path);
    await access(path, fsConstants.R_OK).catch((error: NodeJS.ErrnoException) => {
      throw new Error(error.code === 'ENOENT' ? `serial device ${ctx.config.path} does not exist` : `serial device ${ctx.config.path} cannot be read by this process (${error.code ?? error.message}; on Linux the user is usually added to the dialout group)`);
    });
    if (ctx.config.baudRate) await configureTty(path, ctx.config.baudRate);
    return {
      async run() {
        const stream = createReadStream(path, { highWaterMark: 16384 });
        const where = `serial ${ctx.config.path}`;
        const onLine = handle(where);
        const splitter = new LineSplitter(
          (buf, start, end, offset) => {
            stats.packets++;
            stats.rate.tick();
            onLine(buf, start, end, offset);
          },
          (offset) => {
            stats.packets++;
            reportOverlong(stats, where, offset);
          },
        );
        const abort = () => stream.destroy();
        ctx.signal.addEventListener('abort', abort, { once: true });
        try {
          for await (const chunk of stream) {
            splitter.push(chunk as Buffer);
            // Honour back-pressure from blocking downstream queues.
            while (pending.length) await pending.shift();
          }
          splitter.end();
        } catch (error) {
          if (!ctx.signal.aborted) throw error;
        } finally {
          ctx.signal.removeEventListener('abort', abort);
        }
      },
      stats: () => stats.snapshot(),
    };
  },
});

/** Every live receiver node type. */
export const receiverNodes = [nexmonUdpNode, esp32UdpNode, esp32SerialNode];
