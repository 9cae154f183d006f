import { defineError } from '@wiflow/core';

/** Every error the security analytics raise, one place (codes are never reused). */
export const SecurityErrors = {
  optionsInvalid: defineError('WIFLOW_SECURITY_OPTIONS_INVALID', 422, (reason: string) => `invalid security options: ${reason}`),
  frameInvalid: defineError('WIFLOW_SECURITY_FRAME_INVALID', 422, (reason: string) => `not a usable PoseFrame: ${reason}`),
  authorizationInvalid: defineError('WIFLOW_SECURITY_AUTHORIZATION_INVALID', 422, (reason: string) => `invalid authorisation: ${reason}`),
} as const;

/** The documented error definitions, for docs and tests. */
export const securityErrorCatalogue: { code: string; status: number }[] = Object.values(SecurityErrors).map((e) => ({ code: e.code, status: e.status }));
