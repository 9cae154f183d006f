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
