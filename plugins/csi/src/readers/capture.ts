import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CsiFrame, GroundTruthFrame } from '@wiflow/core';
import { CsiErrorCodes, CsiParseError, DecodeFault, invalidArgument, parseErrorFromFault } from '../errors.js';
import { CAPTURE_FORMATS, type CaptureFormat, type DecoderOptions, type FrameDecoder } from './decoder.js';
import { DETECT_HEAD_BYTES, detectFormat } from './detect.js';
import { createDecoder } from './registry.js';

/** What to do when the content is bad at some byte. */
export type OnError = 'throw' | 'stop' | 'skip';

/** Options of `openCapture` and `decodeCapture`. */
export interface CaptureOptions extends Partial<DecoderOptions> {
  /** Force a format instead of detecting it from the content. */
  format?: CaptureFormat;
  /**
   * 'throw' (default): deliver the frames before the fault, then throw a `CsiParseError`.
   * 'stop': deliver them and end quietly (the error is on `reader.error`).
   * 'skip': pass over bad records whose framing survived (counted in `reader.skipped`), stop at the rest.
   */
  onError?: OnError;
  /** Bytes read from the file at a time (default 256 KiB). */
  chunkBytes?: number;
  /** Largest record accepted; a length field claiming more is an error (default 16 MiB). */
  maxRecordBytes?: number;
  /** Name used in errors for in-memory content (default 'buffer'). */
  name?: string;
  /** Receives the ground-truth side records of wiflow recordings. */
  onTruth?: (truth: GroundTruthFrame) => void;
}

/** Outcome of decoding content held in memory. */
export interface DecodeResult {
  format: CaptureFormat | null;
  frames: CsiFrame[];
  /** The fault that ended decoding early, if any. */
  error: CsiParseError | null;
  /** Records passed over with `onError: 'skip'`. */
  skipped: CsiParseError[];
}

const DEFAULT_CHUNK = 256 * 1024;
const DEFAULT_MAX_RECORD = 16 * 1024 * 1024;

function decoderOptions(options: CaptureOptions, sourceId: string, baseTime: number): DecoderOptions {
  return {
    sourceId: options.sourceId ?? sourceId,
    receiverId: options.receiverId ?? options.sourceId ?? sourceId,
    baseTime: options.baseTime ?? baseTime,
    provenance: options.provenance ?? 'replay',
    chip: options.chip ?? 'auto',
    nullSubcarriers: options.nullSubcarriers ?? 'drop',
    esp32Field: options.esp32Field ?? 'auto',
    esp32FirstWordInvalid: options.esp32FirstWordInvalid ?? true,
  };
}

/** State shared by the memory and file drivers: runs a decoder over a buffer window and routes faults. */
class DecodeLoop {
  error: CsiParseError | null = null;
  readonly skipped: CsiParseError[] = [];
  constructor(
    readonly decoder: FrameDecoder,
    readonly file: string,
    readonly onError: OnError,
  ) {}

  /** Decode `buf[start, end)`; returns bytes consumed. Sets `error` when it must stop. */
  run(buf: Buffer, start: number, end: number, eof: boolean, base: number, out: CsiFrame[]): number {
    let pos = start;
    while (pos < end) {
      let consumed: number;
      try {
        consumed = this.decoder.decode(buf, pos, end, eof, out);
      } catch (error) {
        const fault = error instanceof DecodeFault ? error : new DecodeFault('malformed', pos, `internal decoder error: ${error instanceof Error ? error.message : String(error)}`);
        const parseError = parseErrorFromFault(fault, this.file, base, this.decoder.format);
        if (this.onError === 'skip' && fault.resumeAt !== undefined && fault.resumeAt > pos && fault.resumeAt <= end) {
          this.skipped.push(parseError);
          pos = fault.resumeAt;
          continue;
        }
        this.error = parseError;
        return pos - start;
      }
      if (consumed <= 0) break;
      pos += consumed;
    }
    return pos - start;
  }
}

/** Decode content held in memory (a whole capture). Never throws for bad content: see `error`. */
export function decodeCapture(content: Uint8Array, options: CaptureOptions = {}): DecodeResult {
  const buf = Buffer.isBuffer(content) ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  const name = options.name ?? 'buffer';
  const format = options.format ?? detectFormat(buf.subarray(0, DETECT_HEAD_BYTES));
  if (!format) return { format: null, frames: [], error: unknownFormatError(name, buf), skipped: [] };
  const frames: CsiFrame[] = [];
  let decoder: FrameDecoder;
  try {
    decoder = createDecoder(format, buf.subarray(0, DETECT_HEAD_BYTES), decoderOptions(options, name, 0), options.onTruth);
  } catch (error) {
    if (error instanceof DecodeFault) return { format, frames, error: parseErrorFromFault(error, name, 0, format), skipped: [] };
    throw error;
  }
  const loop = new DecodeLoop(decoder, name, options.onError ?? 'throw');
  const consumed = loop.run(buf, 0, buf.length, true, 0, frames);
  if (!loop.error && consumed < buf.length) {
    loop.error = new CsiParseError(CsiErrorCodes.truncated.code, 'content ends inside a record', { file: name, offset: consumed, format }, CsiErrorCodes.truncated.status);
  }
  return { format, frames, error: loop.error, skipped: loop.skipped };
}

function unknownFormatError(file: string, head: Uint8Array): CsiParseError {
  const shown = Buffer.from(head.subarray(0, 8)).toString('hex');
  return new CsiParseError(CsiErrorCodes.unknownFormat.code, `content is not a supported capture (first bytes ${shown || 'none'}; supported: ${CAPTURE_FORMATS.join(', ')})`, { file, offset: 0, format: 'unknown' }, CsiErrorCodes.unknownFormat.status);
}

/**
 * A capture file opened for streaming: iterate it with `for await` (constant memory, any
 * file size). Frames come in file order; a fault ends the iteration as `onError` says.
 */
export class CaptureReader implements AsyncIterable<CsiFrame> {
  /** The fault that ended reading, once one did. */
  error: CsiParseError | null = null;
  /** Records passed over with `onError: 'skip'`. */
  skipped: CsiParseError[] = [];
  /** Bytes read from the file so far. */
  bytesRead = 0;
  #options: CaptureOptions;
  #started = false;

  constructor(
    /** The file's path. */
    readonly path: string,
    /** The detected (or forced) format. */
    readonly format: CaptureFormat,
    /** File size in bytes when opened. */
    readonly size: number,
    /** Modification time of the file (ms since epoch). */
    readonly modifiedTime: number,
    options: CaptureOptions,
  ) {
    this.#options = options;
  }

  [Symbol.asyncIterator](): AsyncIterator<CsiFrame> {
    return this.frames();
  }

  /** The frames of the file; can be called once. */
  async *frames(): AsyncGenerator<CsiFrame> {
    if (this.#started) throw invalidArgument(`${this.path}: a CaptureReader can be iterated once; open the file again`);
    this.#started = true;
    const options = this.#options;
    const chunk = Math.max(4096, options.chunkBytes ?? DEFAULT_CHUNK);
    const maxRecord = options.maxRecordBytes ?? DEFAULT_MAX_RECORD;
    const onError = options.onError ?? 'throw';
    const handle = await open(this.path, 'r').catch((error: unknown) => {
      throw new CsiParseError(CsiErrorCodes.readFailed.code, `cannot open: ${(error as Error).message}`, { file: this.path, offset: 0, format: this.format }, CsiErrorCodes.readFailed.status);
    });
    try {
      let buf = Buffer.allocUnsafe(Math.max(chunk, DETECT_HEAD_BYTES));
      let start = 0;
      let end = 0;
      let base = 0;
      let eof = false;
      let loop: DecodeLoop | null = null;
      const out: CsiFrame[] = [];
      for (;;) {
        if (!eof) {
          if (start > 0) {
            buf.copy(buf, 0, start, end);
            base += start;
            end -= start;
            start = 0;
          }
          const { bytesRead } = await handle.read(buf, end, buf.length - end, null);
          this.bytesRead += bytesRead;
          if (bytesRead === 0) eof = true;
          end += bytesRead;
        }
        if (!loop) {
          if (end < Math.min(DETECT_HEAD_BYTES, this.size) && !eof && end < buf.length) continue;
          let decoder: FrameDecoder;
          try {
            decoder = createDecoder(this.format, buf.subarray(0, end), decoderOptions(options, basename(this.path), this.modifiedTime), options.onTruth);
          } catch (error) {
            if (!(error instanceof DecodeFault)) throw error;
            this.error = parseErrorFromFault(error, this.path, 0, this.format);
            if (onError === 'throw') throw this.error;
            return;
          }
          loop = new DecodeLoop(decoder, this.path, onError);
        }
        const consumed = loop.run(buf, start, end, eof, base, out);
        start += consumed;
        this.skipped = loop.skipped;
        for (let i = 0; i < out.length; i++) yield out[i];
        out.length = 0;
        if (loop.error) {
          this.error = loop.error;
          if (onError === 'throw') throw loop.error;
          return;
        }
        if (eof) {
          if (start < end) {
            this.error = new CsiParseError(CsiErrorCodes.truncated.code, 'file ends inside a record', { file: this.path, offset: base + start, format: this.format }, CsiErrorCodes.truncated.status);
            if (onError === 'throw') throw this.error;
          }
          return;
        }
        const need = loop.decoder.need;
        if (need > maxRecord) {
          this.error = new CsiParseError(CsiErrorCodes.recordTooLarge.code, `record claims ${need} bytes, more than the ${maxRecord}-byte limit`, { file: this.path, offset: base + start, format: this.format }, CsiErrorCodes.recordTooLarge.status);
          if (onError === 'throw') throw this.error;
          return;
        }
        if (need > buf.length - start && need > buf.length) {
          const bigger = Buffer.allocUnsafe(Math.max(need, buf.length * 2));
          buf.copy(bigger, 0, start, end);
          base += start;
          end -= start;
          start = 0;
          buf = bigger;
        }
      }
    } finally {
      await handle.close();
    }
  }
}

/** Open a capture file of any supported format for streaming; the format is detected from content. */
export async function openCapture(path: string, options: CaptureOptions = {}): Promise<CaptureReader> {
  const info = await stat(path).catch((error: unknown) => {
    throw new CsiParseError(CsiErrorCodes.readFailed.code, `cannot open: ${(error as Error).message}`, { file: path, offset: 0, format: 'unknown' }, CsiErrorCodes.readFailed.status);
  });
  if (!info.isFile()) throw new CsiParseError(CsiErrorCodes.readFailed.code, 'not a regular file', { file: path, offset: 0, format: 'unknown' }, CsiErrorCodes.readFailed.status);
  let format = options.format;
  if (!format) {
    const handle = await open(path, 'r');
    try {
      const head = Buffer.alloc(Math.min(DETECT_HEAD_BYTES, info.size));
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      format = detectFormat(head.subarray(0, bytesRead)) ?? undefined;
      if (!format) throw unknownFormatError(path, head.subarray(0, bytesRead));
    } finally {
      await handle.close();
    }
  }
  return new CaptureReader(path, format, info.size, info.mtimeMs, options);
}

/** Read a whole capture file into an array (convenience for small files and tests). */
export async function readCapture(path: string, options: CaptureOptions = {}): Promise<CsiFrame[]> {
  const reader = await openCapture(path, options);
  const frames: CsiFrame[] = [];
  for await (const frame of reader) frames.push(frame);
  return frames;
}
