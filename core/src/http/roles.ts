import type { Principal } from '../hooks/hooks.js';
import { HttpErrors } from './api-errors.js';

/** The roles behind 403 answers, weakest first: each role includes the ones before it. */
export const ROLES = ['viewer', 'operator', 'admin'] as const;

/** A role name. */
export type Role = (typeof ROLES)[number];

/** Rank of the strongest known role in a list (-1 when none). */
export function roleRank(roles: readonly string[]): number {
  let rank = -1;
  for (const role of roles) rank = Math.max(rank, ROLES.indexOf(role as Role));
  return rank;
}

/** Whether `roles` include `needed` or a stronger role. */
export function hasRole(roles: readonly string[], needed: Role): boolean {
  return roleRank(roles) >= ROLES.indexOf(needed);
}

/**
 * The caller when it holds `needed` or a stronger role: HttpErrors.unauthenticated (with
 * `problem`, the reason presented credentials failed) when nobody is calling, forbidden when
 * the role is too weak.
 */
export function requireRole(principal: Principal | undefined, needed: Role, problem?: string): Principal {
  if (!principal) throw HttpErrors.unauthenticated(problem ?? 'authentication required: send Authorization: Bearer <token> or X-API-Key');
  if (!hasRole(principal.roles, needed)) throw HttpErrors.forbidden(needed, principal.roles);
  return principal;
}
