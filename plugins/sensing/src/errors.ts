import { WiflowError } from '@wiflow/core';

/** Every error code this package raises (codes are never reused). */
export const SenseErrorCodes = {
  /** An environment or reference file could not be read or is not what it claims. */
  badInputFile: { code: 'WIFLOW_SENSE_BAD_INPUT_FILE', status: 422 },
} as const;

/** The documented error codes, for docs and tests. */
export const senseErrorCatalogue: { code: string; status: number }[] = Object.values(SenseErrorCodes).map((e) => ({ code: e.code, status: e.status }));

/** An auxiliary input file (environment, reference) is unreadable or wrong. */
export function badInputFile(file: string, reason: string): WiflowError {
  return new WiflowError(SenseErrorCodes.badInputFile.code, `${file}: ${reason}`, SenseErrorCodes.badInputFile.status, { file });
}
