import { defineError } from '@wiflow/core';

/** Every error the healthcare analytics raise, one place (codes are never reused). */
export const HealthcareErrors = {
  optionsInvalid: defineError('WIFLOW_HEALTHCARE_OPTIONS_INVALID', 422, (reason: string) => `invalid healthcare options: ${reason}`),
  frameInvalid: defineError('WIFLOW_HEALTHCARE_FRAME_INVALID', 422, (reason: string) => `not a usable PoseFrame: ${reason}`),
  evaluationInvalid: defineError('WIFLOW_HEALTHCARE_EVALUATION_INVALID', 422, (reason: string) => `cannot evaluate fall detection: ${reason}`),
} as const;

/** The documented error definitions, for docs and tests. */
export const healthcareErrorCatalogue: { code: string; status: number }[] = Object.values(HealthcareErrors).map((e) => ({ code: e.code, status: e.status }));
