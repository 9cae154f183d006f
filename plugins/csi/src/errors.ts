import { WiflowError } from '@wiflow/core';

/** Where a parse error happened: the file (or source name) and the byte offset in it. */
export interface CsiErrorLocation {
  file: string;
  offset: number;
  format: string;
}

/**
 * A capture could not be decoded at a known place. Every reader fault is one of these:
 * the message names the file and the byte offset, and the frames before the fault have
 * already been delivered (or can be, with `onError: 'stop'`).
 */
export class CsiParseError extends WiflowError {
  readonly file: string;
  readonly offset: number;
  readonly format: string;
  constructor(code: string, reason: string, where: CsiErrorLocation, status = 422) {
    super(code, `${where.file}: ${reason} at byte offset ${where.offset} (${where.format})`, status, { file: where.file, offset: where.offset, format: where.format, reason });
    this.name = 'CsiParseError';
    this.file = where.file;
    this.offset = where.offset;
    this.format = where.format;
  }
}

/** Every error code this package raises (codes are never reused). */
export const CsiErrorCodes = {
  /** The content matches no supported capture format. */
  unknownFormat: { code: 'WIFLOW_CSI_UNKNOWN_FORMAT', status: 415 },
  /** The file ends inside a record. */
  truncated: { code: 'WIFLOW_CSI_TRUNCATED', status: 422 },
  /** A record's fields contradict each other or the format. */
  malformed: { code: 'WIFLOW_CSI_MALFORMED', status: 422 },
  /** A record claims more bytes than any real record has (a length field that lies). */
  recordTooLarge: { code: 'WIFLOW_CSI_RECORD_TOO_LARGE', status: 422 },
  /** A valid record of a kind this reader does not decode (device type, layout). */
  unsupported: { code: 'WIFLOW_CSI_UNSUPPORTED', status: 422 },
  /** The file could not be read. */
  readFailed: { code: 'WIFLOW_CSI_READ_FAILED', status: 500 },
  /** A node or function was given arguments it cannot work with. */
  invalidArgument: { code: 'WIFLOW_CSI_INVALID_ARGUMENT', status: 400 },
} as const;

/** The documented error codes, for docs and tests. */
export const csiErrorCatalogue: { code: string; status: number }[] = Object.values(CsiErrorCodes).map((e) => ({ code: e.code, status: e.status }));

/** A programming or configuration error (not tied to a byte offset). */
export function invalidArgument(message: string): WiflowError {
  return new WiflowError(CsiErrorCodes.invalidArgument.code, message, CsiErrorCodes.invalidArgument.status);
}

/** The kinds of decoder fault, by their error entry. */
export type FaultKind = Exclude<keyof typeof CsiErrorCodes, 'invalidArgument' | 'readFailed'>;

/**
 * Thrown by a decoder at a position in its current buffer; the driver that owns the
 * buffer turns it into a `CsiParseError` with the absolute file offset.
 */
export class DecodeFault extends Error {
  readonly kind: FaultKind;
  /** Index in the decoder's buffer where the fault is. */
  readonly position: number;
  /** Buffer index where decoding can continue past the bad record, when the framing survived. */
  readonly resumeAt: number | undefined;
  constructor(kind: FaultKind, position: number, reason: string, resumeAt?: number) {
    super(reason);
    this.name = 'DecodeFault';
    this.kind = kind;
    this.position = position;
    this.resumeAt = resumeAt;
  }
}

/** Build the public error for a decoder fault. */
export function parseErrorFromFault(fault: DecodeFault, file: string, base: number, format: string): CsiParseError {
  const entry = CsiErrorCodes[fault.kind];
  return new CsiParseError(entry.code, fault.message, { file, offset: base + fault.position, format }, entry.status);
}
