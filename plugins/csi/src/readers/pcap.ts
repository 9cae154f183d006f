import type { CsiFrame } from '@wiflow/core';
import { DecodeFault } from '../errors.js';
import type { DecoderOptions, FrameDecoder } from './decoder.js';
import { NEXMON_UDP_PORT, NexmonPayloadDecoder } from './nexmon.js';

/** Largest packet a pcap record may claim before it counts as a length field that lies. */
const MAX_PACKET = 262144;

/** Link-layer types whose frames we can walk down to UDP. */
const LINKTYPE_ETHERNET = 1;
const LINKTYPE_RAW = 101;
const LINKTYPE_RAW_ALT = 12;
const LINKTYPE_IPV4 = 228;
const LINKTYPE_LINUX_SLL = 113;

/** Counters of what the pcap held besides CSI. */
export interface PcapCounters {
  packets: number;
  csiPackets: number;
  /** Packets that were not Nexmon CSI (other traffic), passed over. */
  otherPackets: number;
}

/**
 * Find the UDP payload of a captured frame; null when it is not IPv4/UDP to the Nexmon port
 * (other traffic in the capture). Throws nothing: headers are bounds-checked.
 */
export function udpPayload(data: Uint8Array, pos: number, length: number, linkType: number): { at: number; length: number } | null {
  let ip: number;
  if (linkType === LINKTYPE_ETHERNET) {
    if (length < 14) return null;
    let etherType = (data[pos + 12] << 8) | data[pos + 13];
    ip = pos + 14;
    if (etherType === 0x8100 && length >= 18) {
      etherType = (data[pos + 16] << 8) | data[pos + 17];
      ip = pos + 18;
    }
    if (etherType !== 0x0800) return null;
  } else if (linkType === LINKTYPE_RAW || linkType === LINKTYPE_RAW_ALT || linkType === LINKTYPE_IPV4) {
    ip = pos;
  } else if (linkType === LINKTYPE_LINUX_SLL) {
    if (length < 16 || ((data[pos + 14] << 8) | data[pos + 15]) !== 0x0800) return null;
    ip = pos + 16;
  } else {
    return null;
  }
  const end = pos + length;
  if (ip + 20 > end || data[ip] >> 4 !== 4) return null;
  const ihl = (data[ip] & 15) * 4;
  if (ihl < 20 || data[ip + 9] !== 17 || ip + ihl + 8 > end) return null;
  const udp = ip + ihl;
  const port = (data[udp + 2] << 8) | data[udp + 3];
  if (port !== NEXMON_UDP_PORT) return null;
  const udpLength = (data[udp + 4] << 8) | data[udp + 5];
  const available = end - (udp + 8);
  const payloadLength = udpLength >= 8 ? Math.min(udpLength - 8, available) : available;
  return { at: udp + 8, length: payloadLength };
}

/** Reads Nexmon CSI from classic pcap files (either byte order, µs or ns timestamps). */
export class NexmonPcapDecoder implements FrameDecoder {
  readonly format = 'nexmon-pcap' as const;
  need = 24;
  readonly payloads: NexmonPayloadDecoder;
  readonly counters: PcapCounters = { packets: 0, csiPackets: 0, otherPackets: 0 };
  #littleEndian = true;
  #nanoseconds = false;
  #linkType = -1;

  constructor(options: DecoderOptions) {
    this.payloads = new NexmonPayloadDecoder(options);
  }

  decode(buf: Buffer, pos: number, end: number, eof: boolean, out: CsiFrame[]): number {
    if (this.#linkType < 0) {
      if (end - pos < 24) return this.#more(24, eof, pos, 'pcap global header');
      const magic = buf.readUInt32LE(pos);
      if (magic === 0xa1b2c3d4) this.#littleEndian = true;
      else if (magic === 0xd4c3b2a1) this.#littleEndian = false;
      else if (magic === 0xa1b23c4d) { this.#littleEndian = true; this.#nanoseconds = true; }
      else if (magic === 0x4d3cb2a1) { this.#littleEndian = false; this.#nanoseconds = true; }
      else throw new DecodeFault('malformed', pos, `not a pcap magic number (0x${magic.toString(16)})`);
      this.#linkType = (this.#littleEndian ? buf.readUInt32LE(pos + 20) : buf.readUInt32BE(pos + 20)) & 0xffff;
      return 24;
    }
    if (end - pos < 16) return this.#more(16, eof, pos, 'pcap record header');
    const le = this.#littleEndian;
    const seconds = le ? buf.readUInt32LE(pos) : buf.readUInt32BE(pos);
    const fraction = le ? buf.readUInt32LE(pos + 4) : buf.readUInt32BE(pos + 4);
    const captured = le ? buf.readUInt32LE(pos + 8) : buf.readUInt32BE(pos + 8);
    if (captured > MAX_PACKET) throw new DecodeFault('recordTooLarge', pos + 8, `pcap record claims ${captured} captured bytes`);
    const total = 16 + captured;
    if (end - pos < total) return this.#more(total, eof, pos, 'pcap record');
    const micros = this.#nanoseconds ? fraction / 1000 : fraction;
    if (micros >= 1e6) throw new DecodeFault('malformed', pos + 4, `pcap timestamp fraction ${fraction} out of range`, pos + total);
    this.#packet(buf, pos + 16, captured, seconds, micros, out, pos + total);
    return total;
  }

  #packet(buf: Buffer, at: number, length: number, seconds: number, micros: number, out: CsiFrame[], resumeAt: number): void {
    this.counters.packets++;
    const udp = udpPayload(buf, at, length, this.#linkType);
    if (!udp || !NexmonPayloadDecoder.isCsiPayload(buf, udp.at, udp.length)) {
      this.counters.otherPackets++;
      return;
    }
    const timestampUs = seconds * 1e6 + micros;
    try {
      out.push(this.payloads.decode(buf, udp.at, udp.length, timestampUs, timestampUs / 1000));
      this.counters.csiPackets++;
    } catch (error) {
      if (error instanceof DecodeFault) throw new DecodeFault(error.kind, error.position, error.message, resumeAt);
      throw error;
    }
  }

  #more(total: number, eof: boolean, pos: number, what: string): number {
    if (eof) throw new DecodeFault('truncated', pos, `${what} cut short (needs ${total} bytes)`);
    this.need = total;
    return 0;
  }
}

/** Reads Nexmon CSI from pcapng files (section header, interface description, enhanced and simple packet blocks). */
export class NexmonPcapngDecoder implements FrameDecoder {
  readonly format = 'nexmon-pcapng' as const;
  need = 12;
  readonly payloads: NexmonPayloadDecoder;
  readonly counters: PcapCounters = { packets: 0, csiPackets: 0, otherPackets: 0 };
  #littleEndian: boolean | null = null;
  #interfaces: { linkType: number; unitsPerSecond: number }[] = [];

  constructor(options: DecoderOptions) {
    this.payloads = new NexmonPayloadDecoder(options);
  }

  decode(buf: Buffer, pos: number, end: number, eof: boolean, out: CsiFrame[]): number {
    if (end - pos < 12) return this.#more(12, eof, pos);
    const typeLE = buf.readUInt32LE(pos);
    if (typeLE === 0x0a0d0d0a) {
      const order = buf.readUInt32LE(pos + 8);
      if (order === 0x1a2b3c4d) this.#littleEndian = true;
      else if (order === 0x4d3c2b1a) this.#littleEndian = false;
      else throw new DecodeFault('malformed', pos + 8, `bad pcapng byte-order magic 0x${order.toString(16)}`);
      this.#interfaces = [];
    } else if (this.#littleEndian === null) {
      throw new DecodeFault('malformed', pos, 'pcapng does not start with a section header block');
    }
    const le = this.#littleEndian;
    const type = le ? typeLE : buf.readUInt32BE(pos);
    const length = le ? buf.readUInt32LE(pos + 4) : buf.readUInt32BE(pos + 4);
    if (length < 12 || length % 4 !== 0) throw new DecodeFault('malformed', pos + 4, `pcapng block length ${length} is not a multiple of 4 of at least 12`);
    if (length > MAX_PACKET + 64) throw new DecodeFault('recordTooLarge', pos + 4, `pcapng block claims ${length} bytes`);
    if (end - pos < length) return this.#more(length, eof, pos);
    const trailer = le ? buf.readUInt32LE(pos + length - 4) : buf.readUInt32BE(pos + length - 4);
    if (trailer !== length) throw new DecodeFault('malformed', pos + length - 4, `pcapng block trailer length ${trailer} differs from ${length}`);
    const body = pos + 8;
    const bodyEnd = pos + length - 4;
    const u32 = (at: number) => (le ? buf.readUInt32LE(at) : buf.readUInt32BE(at));
    const u16 = (at: number) => (le ? buf.readUInt16LE(at) : buf.readUInt16BE(at));
    if (type === 1) {
      if (bodyEnd - body < 8) throw new DecodeFault('malformed', body, 'interface description block too short', pos + length);
      let unitsPerSecond = 1e6;
      let opt = body + 8;
      while (opt + 4 <= bodyEnd) {
        const code = u16(opt);
        const optLength = u16(opt + 2);
        if (code === 0) break;
        if (code === 9 && optLength >= 1 && opt + 4 < bodyEnd) {
          const v = buf[opt + 4];
          unitsPerSecond = v & 0x80 ? 2 ** (v & 0x7f) : 10 ** (v & 0x7f);
        }
        opt += 4 + ((optLength + 3) & ~3);
      }
      this.#interfaces.push({ linkType: u16(body), unitsPerSecond });
    } else if (type === 6) {
      if (bodyEnd - body < 20) throw new DecodeFault('malformed', body, 'enhanced packet block too short', pos + length);
      const iface = this.#interfaces[u32(body)];
      if (!iface) throw new DecodeFault('malformed', body, `packet refers to undeclared interface ${u32(body)}`, pos + length);
      const ticks = u32(body + 4) * 4294967296 + u32(body + 8);
      const captured = u32(body + 12);
      if (body + 20 + captured > bodyEnd) throw new DecodeFault('malformed', body + 12, `packet of ${captured} bytes overruns its block`, pos + length);
      const timestampUs = (ticks / iface.unitsPerSecond) * 1e6;
      this.#packet(buf, body + 20, captured, iface.linkType, timestampUs, out, pos + length);
    } else if (type === 3) {
      const iface = this.#interfaces[0];
      if (!iface) throw new DecodeFault('malformed', body, 'simple packet block before any interface', pos + length);
      const captured = Math.min(u32(body), bodyEnd - body - 4);
      this.#packet(buf, body + 4, captured, iface.linkType, Number.NaN, out, pos + length);
    }
    return length;
  }

  #packet(buf: Buffer, at: number, length: number, linkType: number, timestampUs: number, out: CsiFrame[], resumeAt: number): void {
    this.counters.packets++;
    const udp = udpPayload(buf, at, length, linkType);
    if (!udp || !NexmonPayloadDecoder.isCsiPayload(buf, udp.at, udp.length)) {
      this.counters.otherPackets++;
      return;
    }
    const ts = Number.isFinite(timestampUs) ? timestampUs : this.counters.csiPackets;
    try {
      out.push(this.payloads.decode(buf, udp.at, udp.length, ts, ts / 1000));
      this.counters.csiPackets++;
    } catch (error) {
      if (error instanceof DecodeFault) throw new DecodeFault(error.kind, error.position, error.message, resumeAt);
      throw error;
    }
  }

  #more(total: number, eof: boolean, pos: number): number {
    if (eof) throw new DecodeFault('truncated', pos, `pcapng block cut short (needs ${total} bytes)`);
    this.need = total;
    return 0;
  }
}
