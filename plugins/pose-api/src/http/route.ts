import { z } from 'zod';
import { defineRoute as defineKitRoute, type RouteDefinition as KitRouteDefinition } from '@wiflow/core';
import type { RateLimitCategory } from '../config.js';

export type { RouteAccess, RouteContext, RouteReply } from '@wiflow/core';

/** A pose API endpoint: core's route definition with the pose service's rate-limit category and system-state guard. */
export interface PoseRoute extends KitRouteDefinition {
  category: RateLimitCategory;
  /** Answer 503 unless the system is running. */
  requiresRunning?: boolean;
}

/** The pose routes' definition (what `routes/*` declare). */
export type RouteDefinition = PoseRoute;

/** Declare a pose API route (schemas compiled once, here). */
export function defineRoute(route: PoseRoute): PoseRoute {
  return defineKitRoute(route);
}

/** ISO 8601 timestamp with milliseconds. */
export const IsoTimestamp = z.iso.datetime({ offset: true }).describe('ISO 8601 timestamp');

/** An ISO 8601 query or body time, parsed to ms since the epoch. */
export const TimeParam = z.iso.datetime({ offset: true, local: true }).describe('ISO 8601 timestamp');

/** A boolean query parameter ('true', 'false', '1', '0', 'yes', 'no'). */
export const QueryBoolean = z.stringbool();

/** ms since the epoch → ISO 8601 with milliseconds. */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Parse an ISO 8601 string (timezone-less ones are UTC) to ms. */
export function parseTime(value: string): number {
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(value) ? value : `${value}Z`);
}
