import type { Request } from 'express';
import { z } from 'zod';
import type { Principal } from '@wiflow/core';
import type { Convention, RateLimitCategory } from '../config.js';

/** Who may call a route: anyone, or a principal with at least this role. */
export type RouteAccess = 'public' | 'viewer' | 'operator' | 'admin';

/** A schema per convention (or one for both). */
export type PerConvention<T> = T | { A: T; B: T };

/** Pick the convention's variant of a PerConvention value. */
export function forConvention<T>(value: PerConvention<T>, convention: Convention): T {
  return typeof value === 'object' && value !== null && 'A' in value && 'B' in value ? (value as { A: T; B: T })[convention] : (value as T);
}

/** What a handler gets. */
export interface RouteContext {
  convention: Convention;
  query: Record<string, any>;
  body: any;
  params: Record<string, any>;
  principal: Principal | undefined;
  requestId: string;
  request: Request;
}

/** What a handler returns: the payload; B wraps it in the envelope (with `extras` beside `data`). */
export interface RouteReply {
  status?: number;
  body: unknown;
  /** Convention B: fields beside `data` in the envelope (e.g. pagination). */
  extras?: Record<string, unknown>;
}

/** One endpoint: its schemas (compiled once), access, rate-limit category and handler. */
export interface RouteDefinition {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI-style path relative to /api/v1, e.g. '/pose/tracking/{track_id}'. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  /** The convention the spec marks the endpoint for (served in both). */
  specConvention?: Convention;
  /** Spec endpoint (false for this service's documented extensions). */
  spec: boolean;
  access: RouteAccess;
  category: RateLimitCategory;
  /** Answer 503 unless the system is running. */
  requiresRunning?: boolean;
  params?: z.ZodObject;
  query?: PerConvention<z.ZodObject>;
  body?: PerConvention<z.ZodType>;
  /** Success status and response payload schema per convention (B: the `data` part). */
  success: { status: number; description: string; A: z.ZodType; B: z.ZodType; extrasB?: z.ZodObject };
  /** Never wrap in the B envelope (GET /health). */
  bare?: boolean;
  /** Error statuses the route can answer besides 401/403/429/500 which every protected route has. */
  errors: number[];
  handler(ctx: RouteContext): Promise<RouteReply>;
}

/** Declare a route (identity, for typing). */
export function defineRoute(route: RouteDefinition): RouteDefinition {
  return route;
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
