import type { Request } from 'express';
import type { z } from 'zod';
import type { Principal } from '../hooks/hooks.js';
import type { ApiConvention } from './api-errors.js';
import type { Role } from './roles.js';

/** Who may call a route: anyone, or a principal with at least this role. */
export type RouteAccess = 'public' | Role;

/** A schema per convention (or one for both). */
export type PerConvention<T> = T | { A: T; B: T };

/** Pick the convention's variant of a PerConvention value. */
export function forConvention<T>(value: PerConvention<T>, convention: ApiConvention): T {
  return typeof value === 'object' && value !== null && 'A' in value && 'B' in value ? (value as { A: T; B: T })[convention] : (value as T);
}

/** What a handler gets. */
export interface RouteContext {
  convention: ApiConvention;
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
  /** The payload; undefined answers without a body (204). */
  body: unknown;
  /** Convention B: fields beside `data` in the envelope (e.g. pagination). */
  extras?: Record<string, unknown>;
  /** Response headers (e.g. Location). */
  headers?: Record<string, string>;
}

/** One endpoint: its schemas (compiled once, when the route is defined), access and handler. */
export interface RouteDefinition {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** OpenAPI-style path relative to where the router is mounted, e.g. '/pose/tracking/{track_id}'. */
  path: string;
  summary: string;
  description?: string;
  tags: string[];
  /** The convention the spec marks the endpoint for (served in both). */
  specConvention?: ApiConvention;
  /** Spec endpoint (false for documented extensions). */
  spec: boolean;
  access: RouteAccess;
  /** Rate-limit category, where the API limits rates. */
  category?: string;
  params?: z.ZodObject;
  query?: PerConvention<z.ZodObject>;
  body?: PerConvention<z.ZodType>;
  /**
   * How unknown keys are reported: one field error per key (default), or one for the object
   * that holds them with zod's message (the webhook API's documented answer).
   */
  unknownKeys?: 'each' | 'together';
  /** Success status and response payload schema per convention (B: the `data` part). */
  success: { status: number; description: string; A: z.ZodType; B: z.ZodType; extrasB?: z.ZodObject };
  /** Never wrap in the B envelope (GET /health). */
  bare?: boolean;
  /** Error statuses the route can answer besides 401/403/429/500 which every protected route has. */
  errors: number[];
  handler(ctx: RouteContext): Promise<RouteReply>;
}

/** Declare a route (identity, for typing; `R` adds an API's own fields, e.g. the pose API's `requiresRunning`). */
export function defineRoute<R extends RouteDefinition = RouteDefinition>(route: R): R {
  return route;
}

/** Express path from an OpenAPI path ('/a/{id}' → '/a/:id'). */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}
