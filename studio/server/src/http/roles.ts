import type { NextFunction, Request, Response } from 'express';
import { ROLES, hasRole, type Role } from '@wiflow/core';
import { StudioErrors } from '../errors.js';
import { principalOf } from './auth.js';

/** The flow service's roles: core's, weakest first (each includes the ones before it). */
export const FLOW_ROLES = ROLES;

/** A flow service role. */
export type FlowRole = Role;

/** The strongest known role in a list; a principal with none counts as a viewer (read-only) here. */
export function roleOf(roles: readonly string[]): FlowRole {
  return [...ROLES].reverse().find((role) => hasRole(roles, role)) ?? 'viewer';
}

/** Whether `roles` include `needed` or a stronger role (no role at all counts as viewer). */
export function hasFlowRole(roles: readonly string[], needed: FlowRole): boolean {
  return hasRole([...roles, 'viewer'], needed);
}

/** Middleware (after requireUser): 403 unless the caller holds `needed` or more. */
export function requireRole(needed: FlowRole, what: string) {
  return (_req: Request, res: Response, next: NextFunction): void => {
    const roles = principalOf(res).roles;
    if (!hasFlowRole(roles, needed)) return next(StudioErrors.forbidden(`role ${roleOf(roles)} may not ${what}: ${needed} or admin is needed`));
    next();
  };
}

/**
 * Middleware (after requireUser): viewers are read-only, so any request that is not a read
 * needs an operator. `reads` lists POST paths that only read (a zip download of ids).
 */
export function writesNeedOperator(reads: RegExp[] = []) {
  const guard = requireRole('operator', 'change anything (viewers are read-only)');
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS' || reads.some((r) => r.test(req.path))) return next();
    guard(req, res, next);
  };
}
