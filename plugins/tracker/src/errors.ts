import { defineError } from '@wiflow/core';

/** Every error the tracker raises, one place (codes are never reused). */
export const TrackerErrors = {
  optionsInvalid: defineError('WIFLOW_TRACKER_OPTIONS_INVALID', 422, (reason: string) => `invalid tracker options: ${reason}`),
  frameInvalid: defineError('WIFLOW_TRACKER_FRAME_INVALID', 422, (reason: string) => `not a usable PoseFrame: ${reason}`),
  frameOutOfOrder: defineError('WIFLOW_TRACKER_FRAME_OUT_OF_ORDER', 422, (environmentId: string, previous: number, got: number) =>
    `pose frame of ${environmentId} at ${new Date(got).toISOString()} is older than the previous one (${new Date(previous).toISOString()}); frames must arrive in time order`),
  evaluationInvalid: defineError('WIFLOW_TRACKER_EVALUATION_INVALID', 422, (reason: string) => `cannot evaluate tracking: ${reason}`),
} as const;

/** The documented error definitions, for docs and tests. */
export const trackerErrorCatalogue: { code: string; status: number }[] = Object.values(TrackerErrors).map((e) => ({ code: e.code, status: e.status }));
