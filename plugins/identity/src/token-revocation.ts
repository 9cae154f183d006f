import type { Storage, UserRecord } from '@wiflow/core';

/** Settings namespace of revoked sessions (refresh-token families): key = family id, value = { revoked_at, expires_at }. */
export const REVOKED_SESSIONS_NAMESPACE = 'auth.revoked-sessions';
/** Settings namespace of per-user "tokens issued before this instant are dead" marks: key = user id, value = { not_before }. */
export const USER_NOT_BEFORE_NAMESPACE = 'auth.not-before';

/** Most users and sessions whose standing one instance keeps cached. */
const MAX_CACHED = 10_000;

interface UserStanding {
  user: UserRecord | null;
  notBefore: number;
  checkedAt: number;
}

/**
 * Revocation of access tokens that are otherwise valid until they expire. The marks live in
 * storage (settings), so every server sharing the store (the studio server, cluster
 * instances, a `wiflow users passwd` run in another process) sees them; each instance keeps
 * what it read for at most `maxAgeMs`, so a revocation elsewhere takes effect within that
 * time and at once on the instance that made it.
 */
export class TokenRevocation {
  readonly #users = new Map<string, UserStanding>();
  readonly #sessions = new Map<string, { revoked: boolean; checkedAt: number }>();

  constructor(
    private readonly storage: () => Storage,
    private readonly maxAgeMs: () => number,
  ) {}

  /** The user behind an access token when the token still stands: the user exists, is active, and the token is newer than the user's mark and its session is not revoked. */
  async standing(userId: string, sessionId: string | undefined, issuedAtMs: number): Promise<UserRecord | undefined> {
    const now = Date.now();
    let user = this.#users.get(userId);
    if (!user || now - user.checkedAt > this.maxAgeMs()) {
      const storage = this.storage();
      const [record, mark] = await Promise.all([storage.users.get(userId), storage.settings.get<{ not_before: number }>(USER_NOT_BEFORE_NAMESPACE, userId)]);
      user = { user: record, notBefore: mark?.value.not_before ?? 0, checkedAt: now };
      remember(this.#users, userId, user);
    }
    if (!user.user || !user.user.isActive || issuedAtMs < user.notBefore) return undefined;
    if (sessionId) {
      let session = this.#sessions.get(sessionId);
      if (!session || now - session.checkedAt > this.maxAgeMs()) {
        session = { revoked: (await this.storage().settings.get(REVOKED_SESSIONS_NAMESPACE, sessionId)) !== null, checkedAt: now };
        remember(this.#sessions, sessionId, session);
      }
      if (session.revoked) return undefined;
    }
    return user.user;
  }

  /** Kill the access tokens of one session (logout, refresh-token reuse) until they would have expired anyway. */
  async revokeSession(sessionId: string, accessTokenTtlMs: number): Promise<void> {
    const now = Date.now();
    const settings = this.storage().settings;
    await settings.set(REVOKED_SESSIONS_NAMESPACE, sessionId, { revoked_at: now, expires_at: now + accessTokenTtlMs });
    this.#sessions.set(sessionId, { revoked: true, checkedAt: now });
    // Marks outlive no token: drop the ones whose tokens have all expired.
    for (const mark of await settings.list(REVOKED_SESSIONS_NAMESPACE)) {
      const expiresAt = (mark.value as { expires_at?: number }).expires_at ?? 0;
      if (expiresAt < now) await settings.delete(REVOKED_SESSIONS_NAMESPACE, mark.key);
    }
  }

  /** Kill every token of a user issued before now (password change, user disabled): refresh tokens and access tokens. */
  async revokeUser(userId: string): Promise<void> {
    await revokeUserTokens(this.storage(), userId);
    this.#users.delete(userId);
  }
}

/**
 * Kill every token of a user issued before now, straight in storage (the CLI's `users passwd`
 * runs in its own process; running servers see the mark within their cache age).
 */
export async function revokeUserTokens(storage: Storage, userId: string): Promise<void> {
  await storage.refreshTokens.revokeUser(userId);
  // +1 ms: a token signed in this same millisecond, before the change, is older than the mark.
  await storage.settings.set(USER_NOT_BEFORE_NAMESPACE, userId, { not_before: Date.now() + 1 });
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  cache.delete(key);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, value);
}
