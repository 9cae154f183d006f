// Which environment the live view shows: the saved choice, else the first one the server knows.

/** The value that stands for "every environment together" in the URL and in local storage. */
export const ALL_ENVIRONMENTS = '*';
/** Local storage key of the last choice (the URL's `?environment=` wins over it). */
export const ENVIRONMENT_STORAGE_KEY = 'wiflow.live.environment';

/** A choice: one environment id, or ALL_ENVIRONMENTS. */
export type EnvironmentChoice = string;

/** The environments to offer, in the server's order (its own pipeline first), each once. */
export function knownEnvironments(...lists: readonly (readonly (string | null | undefined)[])[]): string[] {
  const out: string[] = [];
  for (const list of lists) for (const id of list) if (id && !out.includes(id)) out.push(id);
  return out;
}

/**
 * The environment to show: the saved choice when there is one, else the first known environment.
 * One room's plan is drawn to scale, so two rooms' trails and counts drawn together mislead;
 * "all" is offered, never assumed. With nothing known yet, all (null: no filter).
 */
export function effectiveEnvironment(saved: EnvironmentChoice | null, known: readonly string[]): string | null {
  if (saved === ALL_ENVIRONMENTS) return null;
  if (saved) return saved;
  return known[0] ?? null;
}
