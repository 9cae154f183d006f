import { randomUUID } from 'node:crypto';
import type { Page, PageRequest } from '../storage/paging.js';
import type {
  ApiKeyCreate,
  ApiKeyRecord,
  RefreshTokenConsumption,
  RefreshTokenIssue,
  RefreshTokenRecord,
  UserCreate,
  UserPatch,
  UserRecord,
} from '../storage/records.js';
import type { ApiKeyRepository, RefreshTokenRepository, UserRepository } from '../storage/storage.js';
import { StorageErrors } from '../storage/errors.js';
import { generateToken, hashToken } from './secret-token.js';
import { hashSecret, verifySecret } from './secret-box.js';

/** A user as a backend keeps it: the record and its password hash (which never leaves the identity rules). */
export interface StoredUser {
  user: UserRecord;
  passwordHash: string;
}

/**
 * Users as plain rows. A backend stores and finds; it checks no password and makes no rule.
 * Usernames are unique case-insensitively: `insert` and `put` fail with StorageErrors.duplicate.
 */
export interface UserStore {
  /** Add a row; duplicate when the id or the username (case-insensitive) is taken. */
  insert(row: StoredUser): Promise<void>;
  get(id: string): Promise<StoredUser | null>;
  /** By username, case-insensitively. */
  findByUsername(username: string): Promise<StoredUser | null>;
  /** Sorted by username (then id). */
  list(paging: PageRequest): Promise<Page<UserRecord>>;
  /** Replace a user's record (not its hash); false when there is no such user; duplicate when the new username is taken. */
  put(user: UserRecord): Promise<boolean>;
  /** Replace a user's password hash; false when there is no such user. */
  putPasswordHash(id: string, passwordHash: string): Promise<boolean>;
  /** Delete a user with their API keys and refresh tokens. */
  delete(id: string): Promise<boolean>;
  count(): Promise<number>;
}

/** API keys as plain rows: the record and the key's SHA-256. */
export interface ApiKeyStore {
  /** Add a row; duplicate when the key hash (or id) is taken. */
  insert(row: { record: ApiKeyRecord; keyHash: string }): Promise<void>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  get(id: string): Promise<ApiKeyRecord | null>;
  /** A user's keys, newest first. */
  listByUser(userId: string): Promise<ApiKeyRecord[]>;
  /** Set these fields of a key's record, leaving the others as stored (a use never undoes a revocation); false when there is no such key. */
  patch(id: string, fields: Partial<Pick<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>>): Promise<boolean>;
  delete(id: string): Promise<boolean>;
}

/** Refresh tokens as plain rows: the record and the token's SHA-256. */
export interface RefreshTokenStore {
  insert(row: { record: RefreshTokenRecord; tokenHash: string }): Promise<void>;
  findByHash(tokenHash: string): Promise<RefreshTokenRecord | null>;
  /** Set usedAt, atomically, only on a token not used and not revoked; false when it was (two callers racing get one true). */
  markUsed(id: string, at: number): Promise<boolean>;
  /** Set revokedAt on every not yet revoked token of a family or of a user; how many. */
  revokeWhere(filter: { familyId: string } | { userId: string }, at: number): Promise<number>;
  /** Delete tokens that expired before `before`; how many. */
  deleteExpired(before: number): Promise<number>;
}

/** The plain identity stores a storage backend provides. */
export interface IdentityStores {
  users: UserStore;
  apiKeys: ApiKeyStore;
  refreshTokens: RefreshTokenStore;
}

/** The identity repositories every Storage exposes, with their rules applied once. */
export interface IdentityRepositories {
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  refreshTokens: RefreshTokenRepository;
}

// Verifying against a dummy hash when a username is unknown keeps the answer time the same
// whether or not the user exists.
let dummyHash: string | null = null;
function timingDummyHash(): string {
  dummyHash ??= hashSecret('wiflow-timing-equaliser');
  return dummyHash;
}

function checkPassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length === 0) throw StorageErrors.invalid('password must be a non-empty string');
}

function checkUsername(username: unknown): asserts username is string {
  if (typeof username !== 'string' || username.trim() === '') throw StorageErrors.invalid('username must be a non-empty string');
}

const PATCHABLE = ['username', 'roles', 'isActive', 'isSuperuser', 'profile', 'lastLoginAt'] as const;

/**
 * The identity rules, written once above any backend: passwords hashed (scrypt) and checked
 * in constant time (unknown users included), API keys and refresh tokens generated and kept
 * as SHA-256, keys that are revoked or expired refused, refresh tokens single use with
 * rotation families (a reused token revokes its family). `now` is the backend's clock.
 */
export function createIdentityRepositories(stores: IdentityStores, now: () => number): IdentityRepositories {
  const { users, apiKeys, refreshTokens } = stores;

  const userRepository: UserRepository = {
    async create(input: UserCreate) {
      if (typeof input !== 'object' || input === null) throw StorageErrors.invalid('username must be a non-empty string');
      checkUsername(input.username);
      checkPassword(input.password);
      const at = now();
      const user: UserRecord = {
        id: input.id ?? randomUUID(),
        username: input.username,
        roles: input.roles ?? [],
        isActive: input.isActive ?? true,
        isSuperuser: input.isSuperuser ?? false,
        profile: input.profile ?? {},
        createdAt: at,
        updatedAt: at,
        lastLoginAt: null,
      };
      await users.insert({ user, passwordHash: hashSecret(input.password) });
      return user;
    },
    async get(id) {
      return (await users.get(id))?.user ?? null;
    },
    async getByUsername(username) {
      return (await users.findByUsername(String(username)))?.user ?? null;
    },
    list: (paging) => users.list(paging),
    async update(id: string, patch: UserPatch) {
      const current = await users.get(id);
      if (!current) throw StorageErrors.notFound('user', id);
      const next: UserRecord = { ...current.user, updatedAt: now() };
      for (const key of PATCHABLE) if (patch[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = patch[key];
      checkUsername(next.username);
      if (!(await users.put(next))) throw StorageErrors.notFound('user', id);
      return next;
    },
    async setPassword(id, password) {
      checkPassword(password);
      if (!(await users.putPasswordHash(id, hashSecret(password)))) throw StorageErrors.notFound('user', id);
    },
    async verifyPassword(username, password) {
      if (typeof username !== 'string' || typeof password !== 'string') return null;
      const row = await users.findByUsername(username);
      // Always one scrypt, so an unknown user answers as slowly as a wrong password.
      const ok = verifySecret(password, row?.passwordHash ?? timingDummyHash());
      if (!row || !ok) return null;
      return row.user.isActive ? row.user : null;
    },
    delete: (id) => users.delete(id),
    count: () => users.count(),
  };

  const apiKeyRepository: ApiKeyRepository = {
    async create(input: ApiKeyCreate) {
      if (typeof input !== 'object' || input === null || typeof input.userId !== 'string' || typeof input.name !== 'string') throw StorageErrors.invalid('an API key needs a userId and a name');
      if (input.key !== undefined && (typeof input.key !== 'string' || input.key.length < 16)) throw StorageErrors.invalid('a given API key must be a string of at least 16 characters');
      const key = input.key ?? generateToken('wf_');
      const record: ApiKeyRecord = {
        id: randomUUID(),
        userId: input.userId,
        name: input.name,
        prefix: key.slice(0, 8),
        scopes: input.scopes ?? [],
        createdAt: now(),
        expiresAt: input.expiresAt ?? null,
        lastUsedAt: null,
        revokedAt: null,
      };
      await apiKeys.insert({ record, keyHash: hashToken(key) });
      return { record, key };
    },
    async verify(key, at = now()) {
      if (typeof key !== 'string' || key === '') return null;
      const record = await apiKeys.findByHash(hashToken(key));
      if (!record) return null;
      if (record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt <= at)) return null;
      await apiKeys.patch(record.id, { lastUsedAt: at });
      return { ...record, lastUsedAt: at };
    },
    get: (id) => apiKeys.get(id),
    list: (userId) => apiKeys.listByUser(userId),
    async revoke(id, at = now()) {
      const record = await apiKeys.get(id);
      if (!record) return false;
      if (record.revokedAt === null) await apiKeys.patch(id, { revokedAt: at });
      return true;
    },
    delete: (id) => apiKeys.delete(id),
  };

  const refreshTokenRepository: RefreshTokenRepository = {
    async issue(input: RefreshTokenIssue) {
      if (typeof input !== 'object' || input === null || typeof input.userId !== 'string' || !Number.isFinite(input.expiresAt)) {
        throw StorageErrors.invalid('a refresh token needs a userId and a finite expiresAt');
      }
      const token = generateToken('wfr_');
      const record: RefreshTokenRecord = { id: randomUUID(), userId: input.userId, familyId: input.familyId ?? randomUUID(), createdAt: now(), expiresAt: input.expiresAt, usedAt: null, revokedAt: null };
      await refreshTokens.insert({ record, tokenHash: hashToken(token) });
      return { record, token };
    },
    async consume(token, at = now()): Promise<RefreshTokenConsumption> {
      if (typeof token !== 'string' || token === '') return { status: 'invalid' };
      const record = await refreshTokens.findByHash(hashToken(token));
      if (!record) return { status: 'invalid' };
      const reused = async (): Promise<RefreshTokenConsumption> => {
        // A used token shown again was most likely stolen: its whole family dies.
        await refreshTokens.revokeWhere({ familyId: record.familyId }, at);
        return { status: 'reused', token: { ...record, revokedAt: record.revokedAt ?? at } };
      };
      if (record.usedAt !== null) return reused();
      if (record.revokedAt !== null) return { status: 'revoked', token: record };
      if (record.expiresAt <= at) return { status: 'expired', token: record };
      // Losing the race to another consumer of the same token is a reuse too.
      if (!(await refreshTokens.markUsed(record.id, at))) return reused();
      return { status: 'ok', token: { ...record, usedAt: at } };
    },
    revokeFamily: (familyId, at = now()) => refreshTokens.revokeWhere({ familyId }, at),
    revokeUser: (userId, at = now()) => refreshTokens.revokeWhere({ userId }, at),
    purgeExpired: (at = now()) => refreshTokens.deleteExpired(at),
  };

  return { users: userRepository, apiKeys: apiKeyRepository, refreshTokens: refreshTokenRepository };
}
