import { serviceToken, type ServiceToken } from '@wiflow/core';
import { SecurityErrors } from './errors.js';

/** Token of the access service (`services.get(ACCESS_SERVICE)`). */
export const ACCESS_SERVICE: ServiceToken<AccessService> = serviceToken<AccessService>('security.access');

/** A grant of access. */
export interface AccessGrant {
  environmentId: string | null;
  /** A track, or null for "the next person who enters" (a badge swipe at a door). */
  trackId: number | null;
  /** Line id the next-entry grant is for (null: any line). */
  lineId: string | null;
  from: number;
  until: number;
  grantedBy: string;
  used: boolean;
}

/**
 * Authorisations the security analytics consult, given through an API call (an access
 * control system, a receptionist, the pose API): authorise a known track for a time, or
 * the next entry across a perimeter line within a time (a badge swipe at the door).
 */
export class AccessService {
  readonly #grants: AccessGrant[] = [];

  /** Authorise a track for `seconds` from `at` (default now). */
  authorizeTrack(input: { trackId: number; environmentId?: string; seconds?: number; at?: number; by?: string }): AccessGrant {
    if (!Number.isInteger(input.trackId)) throw SecurityErrors.authorizationInvalid(`trackId must be an integer, got ${input.trackId}`);
    return this.#add({ environmentId: input.environmentId ?? null, trackId: input.trackId, lineId: null, seconds: input.seconds ?? 3600, at: input.at, by: input.by });
  }

  /** Authorise the next person crossing inwards (over `lineId`, or any line) within `seconds` of `at`. */
  authorizeNextEntry(input: { environmentId?: string; lineId?: string; seconds?: number; at?: number; by?: string } = {}): AccessGrant {
    return this.#add({ environmentId: input.environmentId ?? null, trackId: null, lineId: input.lineId ?? null, seconds: input.seconds ?? 30, at: input.at, by: input.by });
  }

  #add(g: { environmentId: string | null; trackId: number | null; lineId: string | null; seconds: number; at?: number; by?: string }): AccessGrant {
    if (!(g.seconds > 0) || !Number.isFinite(g.seconds)) throw SecurityErrors.authorizationInvalid(`seconds must be a positive number, got ${g.seconds}`);
    const from = g.at ?? Date.now();
    if (!Number.isFinite(from)) throw SecurityErrors.authorizationInvalid('at must be a time in ms');
    const grant: AccessGrant = { environmentId: g.environmentId, trackId: g.trackId, lineId: g.lineId, from, until: from + g.seconds * 1000, grantedBy: g.by ?? 'api', used: false };
    this.#grants.push(grant);
    return grant;
  }

  /** Revoke every grant of a track. */
  revokeTrack(trackId: number): number {
    let n = 0;
    for (const g of this.#grants) if (g.trackId === trackId && g.until > 0) {
      g.until = 0;
      n++;
    }
    return n;
  }

  /** Whether a track is authorised at time t. */
  isTrackAuthorized(environmentId: string, trackId: number, t: number): boolean {
    return this.#grants.some((g) => g.trackId === trackId && (!g.environmentId || g.environmentId === environmentId) && t >= g.from && t <= g.until);
  }

  /** Use a next-entry grant for a crossing at time t; true when one was available. */
  consumeEntry(environmentId: string, lineId: string, t: number): boolean {
    const g = this.#grants.find((x) => x.trackId === null && !x.used && (!x.environmentId || x.environmentId === environmentId) && (!x.lineId || x.lineId === lineId) && t >= x.from && t <= x.until);
    if (!g) return false;
    g.used = true;
    return true;
  }

  /** Grants still valid at time t. */
  active(t = Date.now()): AccessGrant[] {
    return this.#grants.filter((g) => t <= g.until && !g.used).map((g) => ({ ...g }));
  }
}
