import { defineApiError } from '@wiflow/core';

/**
 * Every error plugin-identity raises besides core's HTTP kit's (401 and 403 are
 * `HttpErrors.unauthenticated` / `forbidden`); codes are never reused.
 */
export const IdentityErrors = {
  /** No storage service: users, tokens and API keys need one. */
  storageUnavailable: defineApiError('WIFLOW_IDENTITY_STORAGE_UNAVAILABLE', 'SYSTEM_NOT_READY', 503, () =>
    'no storage is configured; users, tokens and API keys need one (install @wiflow/plugin-sqlite)'),
} as const;

/** The documented error definitions, for docs and tests. */
export const identityErrorCatalogue: { code: string; specCode: string; status: number }[] = Object.values(IdentityErrors).map((e) => ({ code: e.code, specCode: e.specCode, status: e.status }));
