import { WiflowError } from '@wiflow/core';

/** Every error code this package raises (codes are never reused). */
export const SenseErrorCodes = {
  /** A node, function or command got arguments it cannot work with. */
  invalidArgument: { code: 'WIFLOW_SENSE_INVALID_ARGUMENT', status: 400 },
  /** An environment or reference file could not be read or is not what it claims. */
  badInputFile: { code: 'WIFLOW_SENSE_BAD_INPUT_FILE', status: 422 },
} as const;

/** The documented error codes, for docs and tests. */
export const senseErrorCatalogue: { code: string; status: number }[] = Object.values(SenseErrorCodes).map((e) => ({ code: e.code, status: e.status }));

/** A programming or configuration error. */
export function invalidArgument(message: string): WiflowError {
  return new WiflowError(SenseErrorCodes.invalidArgument.code, message, SenseErrorCodes.invalidArgument.status);
}

/** An auxiliary input file (environment, reference) is unreadable or wrong. */
export function badInputFile(file: string, reason: string): WiflowError {
  return new WiflowError(SenseErrorCodes.badInputFile.code, `${file}: ${reason}`, SenseErrorCodes.badInputFile.status, { file });
}
