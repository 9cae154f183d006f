import { inflateRawSync } from 'node:zlib';
import { StudioErrors } from '../errors.js';

/** How much an archive import may inflate: entry count, bytes per entry and bytes in all. */
export interface ArchiveLimits {
  maxEntries: number;
  maxEntryBytes: number;
  maxTotalBytes: number;
}

/** One inflated archive entry. */
export interface ArchiveEntry {
  name: string;
  content: Buffer;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

/** Where the end-of-central-directory record starts (it ends the file, after a comment of up to 64 KiB). */
function findEndOfCentralDirectory(buffer: Buffer): number {
  const earliest = Math.max(0, buffer.length - 22 - 0xffff);
  for (let at = buffer.length - 22; at >= earliest; at--) {
    if (buffer.readUInt32LE(at) === EOCD_SIGNATURE) return at;
  }
  throw StudioErrors.invalidUpload('not a readable zip file: no end of central directory record');
}

function archiveTooLarge(detail: string): Error {
  return StudioErrors.archiveTooLarge(detail);
}

/**
 * Read the entries of a zip held in memory, inflating only those `wanted` accepts, under
 * `limits`. Why not JSZip: it inflates an entry whole before anyone can count its bytes;
 * here the entry count is checked from the central directory before any inflation, and
 * each entry inflates with zlib's `maxOutputLength`, which stops at the limit instead of
 * allocating what the archive claims (or hides). Zip64 and encrypted entries are refused.
 */
export function readZipArchive(buffer: Buffer, limits: ArchiveLimits, wanted: (name: string) => boolean): ArchiveEntry[] {
  if (buffer.length < 22) throw StudioErrors.invalidUpload('not a readable zip file: too short');
  const eocd = findEndOfCentralDirectory(buffer);
  const count = buffer.readUInt16LE(eocd + 10);
  const directorySize = buffer.readUInt32LE(eocd + 12);
  const directoryOffset = buffer.readUInt32LE(eocd + 16);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw StudioErrors.invalidUpload('zip64 archives are not supported for imports');
  if (count > limits.maxEntries) throw archiveTooLarge(`the archive has ${count} entries; imports accept at most ${limits.maxEntries}`);
  if (directoryOffset + directorySize > eocd) throw StudioErrors.invalidUpload('not a readable zip file: the central directory lies outside the file');

  const entries: ArchiveEntry[] = [];
  let total = 0;
  let at = directoryOffset;
  for (let i = 0; i < count; i++) {
    if (at + 46 > eocd || buffer.readUInt32LE(at) !== CENTRAL_SIGNATURE) throw StudioErrors.invalidUpload(`not a readable zip file: central directory entry ${i} at byte ${at} is damaged`);
    const flags = buffer.readUInt16LE(at + 8);
    const method = buffer.readUInt16LE(at + 10);
    const compressedSize = buffer.readUInt32LE(at + 20);
    const nameLength = buffer.readUInt16LE(at + 28);
    const extraLength = buffer.readUInt16LE(at + 30);
    const commentLength = buffer.readUInt16LE(at + 32);
    const localOffset = buffer.readUInt32LE(at + 42);
    const name = buffer.subarray(at + 46, at + 46 + nameLength).toString(flags & 0x800 ? 'utf8' : 'latin1');
    at += 46 + nameLength + extraLength + commentLength;
    if (name.endsWith('/') || !wanted(name)) continue;
    if (flags & 0x1) throw StudioErrors.invalidUpload(`${name}: encrypted zip entries are not supported`);
    if (localOffset + 30 > buffer.length || buffer.readUInt32LE(localOffset) !== LOCAL_SIGNATURE) throw StudioErrors.invalidUpload(`not a readable zip file: the local header of ${name} at byte ${localOffset} is damaged`);
    const dataStart = localOffset + 30 + buffer.readUInt16LE(localOffset + 26) + buffer.readUInt16LE(localOffset + 28);
    if (dataStart + compressedSize > buffer.length) throw StudioErrors.invalidUpload(`not a readable zip file: ${name} runs past the end of the file`);
    const compressed = buffer.subarray(dataStart, dataStart + compressedSize);
    const room = Math.min(limits.maxEntryBytes, limits.maxTotalBytes - total);
    let content: Buffer | null;
    if (method === STORED) {
      content = compressed;
    } else if (method === DEFLATED) {
      try {
        // One byte over the room tells "exactly at the limit" from "over it".
        content = inflateRawSync(compressed, { maxOutputLength: room + 1 });
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') content = null;
        else throw StudioErrors.invalidUpload(`${name}: cannot be inflated (${(error as Error).message})`);
      }
    } else {
      throw StudioErrors.invalidUpload(`${name}: compression method ${method} is not supported (stored or deflate only)`);
    }
    if (content === null || content.length > room) {
      if (room === limits.maxEntryBytes) throw archiveTooLarge(`${name} inflates to more than ${formatBytes(limits.maxEntryBytes)}, the most one archive entry may hold`);
      throw archiveTooLarge(`the archive inflates to more than ${formatBytes(limits.maxTotalBytes)}, the most one import may hold`);
    }
    total += content.length;
    entries.push({ name, content });
  }
  return entries;
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`;
}
