import { defineError } from '@wiflow/core';

/** Every error the evaluation plugin raises, one place (codes are never reused). */
export const EvaluationErrors = {
  optionsInvalid: defineError('WIFLOW_EVAL_OPTIONS_INVALID', 422, (reason: string) => `invalid evaluation options: ${reason}`),
  runFailed: defineError('WIFLOW_EVAL_RUN_FAILED', 500, (what: string, reason: string) => `the end-to-end flow failed on ${what}: ${reason}`),
} as const;

/** The documented error definitions, for docs and tests. */
export const evaluationErrorCatalogue: { code: string; status: number }[] = Object.values(EvaluationErrors).map((e) => ({ code: e.code, status: e.status }));
