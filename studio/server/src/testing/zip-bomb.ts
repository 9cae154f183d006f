// Test-only: craft zip archives whose entries inflate to far more than they weigh (zip bombs).
import { createDeflateRaw, crc32 } from 'node:zlib';

/** One deflated entry of `size` zero bytes (or the given text), with its CRC. */
interface CraftedEntry {
  name: string;
  compressed: Buffer;
  crc: number;
  size: number;
}

/** Deflate `size` zero bytes without ever holding them: 1 MiB of zeros fed repeatedly. */
async function deflateZeros(size: number): Promise<{ compressed: Buffer; crc: number }> {
  const chunk = Buffer.alloc(Math.min(size, 1024 * 1024));
  const deflate = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflate.on('data', (c: Buffer) => out.push(c));
  const finished = new Promise((resolve, reject) => (deflate.on('end', resolve), deflate.on('error', reject)));
  let crc = 0;
  for (let left = size; left > 0; left -= chunk.length) {
    const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
    crc = crc32(piece, crc);
    if (!deflate.write(piece)) await new Promise((resolve) => deflate.once('drain', resolve));
  }
  deflate.end();
  await finished;
  return { compressed: Buffer.concat(out), crc };
}

/** Assemble a zip (deflate entries, UTF-8 names) from crafted entries. */
function assemble(entries: CraftedEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.compressed.length, 18);
    local.writeUInt32LE(e.size >>> 0, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(e.crc >>> 0, 16);
    central.writeUInt32LE(e.compressed.length, 20);
    central.writeUInt32LE(e.size >>> 0, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, e.compressed);
    centrals.push(central, name);
    offset += 30 + name.length + e.compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A zip of `count` JSON-named entries, each inflating to `entryBytes` zero bytes. */
export async function zipBomb(count: number, entryBytes: number): Promise<Buffer> {
  const { compressed, crc } = await deflateZeros(entryBytes);
  return assemble(Array.from({ length: count }, (_, i) => ({ name: `flow-${i}.json`, compressed, crc, size: entryBytes })));
}
