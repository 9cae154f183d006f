// Writing pcapng files for the reader tests: blocks padded to 32 bits with their length at both ends.

/** One pcapng block: type, total length, the body padded to 32 bits, total length again. */
export function pcapngBlock(type: number, body: Buffer): Buffer {
  const padded = Buffer.concat([body, Buffer.alloc((4 - (body.length % 4)) % 4)]);
  const out = Buffer.alloc(12 + padded.length);
  out.writeUInt32LE(type, 0);
  out.writeUInt32LE(out.length, 4);
  padded.copy(out, 8);
  out.writeUInt32LE(out.length, out.length - 4);
  return out;
}

/**
 * The blocks a little-endian pcapng opens with: a section header (version 1.0; `sectionLength`
 * written when given, -1 meaning unknown) and one Ethernet interface description.
 */
export function pcapngPreamble(sectionLength?: bigint): Buffer[] {
  const shb = Buffer.alloc(16);
  shb.writeUInt32LE(0x1a2b3c4d, 0);
  shb.writeUInt16LE(1, 4);
  if (sectionLength !== undefined) shb.writeBigInt64LE(sectionLength, 8);
  const idb = Buffer.alloc(8);
  idb.writeUInt16LE(1, 0);
  return [pcapngBlock(0x0a0d0d0a, shb), pcapngBlock(1, idb)];
}
