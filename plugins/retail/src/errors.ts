import { defineError } from '@wiflow/core';

/** Every error the retail analytics raise, one place (codes are never reused). */
export const RetailErrors = {
  optionsInvalid: defineError('WIFLOW_RETAIL_OPTIONS_INVALID', 422, (reason: string) => `invalid retail options: ${reason}`),
  frameInvalid: defineError('WIFLOW_RETAIL_FRAME_INVALID', 422, (reason: string) => `not a usable PoseFrame: ${reason}`),
} as const;

/** The documented error definitions, for docs and tests. */
export const retailErrorCatalogue: { code: string; status: number }[] = Object.values(RetailErrors).map((e) => ({ code: e.code, status: e.status }));
