import { randomUUID } from 'node:crypto';
import {
  StorageErrors,
  hashSecret,
  verifySecret,
  type ApiKeyCreate,
  type ApiKeyRecord,
  type ApiKeyRepository,
  type JsonValue,
  type Page,
  type PageRequest,
  type RefreshTokenConsumption,
  type RefreshTokenIssue,
  type RefreshTokenRecord,
  type RefreshTokenRepository,
  type SettingRecord,
  type SettingRepository,
  type UserCreate,
  type UserPatch,
  type UserRecord,
  type UserRepository,
} from '@wiflow/core';
import {
  checkPageRequest,
  generateToken,
  hashToken,
  makePage,
} from '@wiflow/storage-kit';
import type { SqliteContext } from '../context.js';

// Verifying against a dummy hash when a username is unknown keeps the answer time the same
// whether or not the user exists.
let dummyHash: string | null = null;
/** A hash to verify against when the username is unknown (made on first use: scrypt is slow). */
function timingDummyHash(): string {
  dummyHash ??= hashSecret('wiflow-timing-equaliser');
  return dummyHash;
}

function checkPassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length === 0) throw StorageErrors.invalid('password must be a non-empty string');
}

/** Users with scrypt password hashes that never leave storage. */
export class SqliteUserRepository implements UserRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async create(input: UserCreate): Promise<UserRecord> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null || typeof input.username !== 'string' || input.username.trim() === '') throw StorageErrors.invalid('username must be a non-empty string');
    checkPassword(input.password);
    const now = this.#ctx.now();
    const user: UserRecord = {
      id: input.id ?? randomUUID(),
      username: input.username,
      roles: input.roles ?? [],
      isActive: input.isActive ?? true,
      isSuperuser: input.isSuperuser ?? false,
      profile: input.profile ?? {},
      createdAt: now,
      updatedAt: now,
      lastLoginAt: null,
    };
    const hash = hashSecret(input.password);
    try {
      this.#ctx.db.prepare('INSERT INTO users (id, username, password_hash, body) VALUES (?, ?, ?, ?)').run(user.id, user.username, hash, JSON.stringify(user));
    } catch (error) {
      const message = error instanceof Error ? error.message : '';
      if (message.includes('users.username')) throw StorageErrors.duplicate('user', 'username', user.username);
      if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) throw StorageErrors.duplicate('user', 'id', user.id);
      throw error;
    }
    return user;
  }

  async get(id: string): Promise<UserRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body FROM users WHERE id = ?').get(id) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as UserRecord) : null;
  }

  async getByUsername(username: string): Promise<UserRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body FROM users WHERE username = ?').get(username) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as UserRecord) : null;
  }

  async list(paging: PageRequest): Promise<Page<UserRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const total = (this.#ctx.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
    const rows = this.#ctx.db.prepare('SELECT body FROM users ORDER BY username, id LIMIT ? OFFSET ?').all(paging.perPage, (paging.page - 1) * paging.perPage) as { body: string }[];
    return makePage(rows.map((r) => JSON.parse(r.body) as UserRecord), total, paging);
  }

  async update(id: string, patch: UserPatch): Promise<UserRecord> {
    this.#ctx.ensureOpen();
    let next: UserRecord | undefined;
    try {
      this.#ctx.db.transaction(() => {
        const row = this.#ctx.db.prepare('SELECT body FROM users WHERE id = ?').get(id) as { body: string } | undefined;
        if (!row) throw StorageErrors.notFound('user', id);
        next = { ...(JSON.parse(row.body) as UserRecord), updatedAt: this.#ctx.now() };
        for (const key of ['username', 'roles', 'isActive', 'isSuperuser', 'profile', 'lastLoginAt'] as const) if (patch[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = patch[key];
        if (typeof next.username !== 'string' || next.username.trim() === '') throw StorageErrors.invalid('username must be a non-empty string');
        this.#ctx.db.prepare('UPDATE users SET username = ?, body = ? WHERE id = ?').run(next.username, JSON.stringify(next), id);
      })();
    } catch (error) {
      if ((error instanceof Error ? error.message : '').includes('users.username')) throw StorageErrors.duplicate('user', 'username', String(patch.username));
      throw error;
    }
    return next!;
  }

  async setPassword(id: string, password: string): Promise<void> {
    this.#ctx.ensureOpen();
    checkPassword(password);
    const changes = this.#ctx.db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(hashSecret(password), id).changes;
    if (changes === 0) throw StorageErrors.notFound('user', id);
  }

  async verifyPassword(username: string, password: string): Promise<UserRecord | null> {
    this.#ctx.ensureOpen();
    if (typeof username !== 'string' || typeof password !== 'string') return null;
    const row = this.#ctx.db.prepare('SELECT password_hash, body FROM users WHERE username = ?').get(username) as { password_hash: string; body: string } | undefined;
    const ok = verifySecret(password, row?.password_hash ?? timingDummyHash());
    if (!row || !ok) return null;
    const user = JSON.parse(row.body) as UserRecord;
    return user.isActive ? user : null;
  }

  async delete(id: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    let deleted = false;
    this.#ctx.db.transaction(() => {
      deleted = this.#ctx.db.prepare('DELETE FROM users WHERE id = ?').run(id).changes > 0;
      this.#ctx.db.prepare('DELETE FROM api_keys WHERE user_id = ?').run(id);
      this.#ctx.db.prepare('DELETE FROM refresh_tokens WHERE user_id = ?').run(id);
    })();
    return deleted;
  }

  async count(): Promise<number> {
    this.#ctx.ensureOpen();
    return (this.#ctx.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
  }
}

/** API keys stored as SHA-256 hashes. */
export class SqliteApiKeyRepository implements ApiKeyRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async create(input: ApiKeyCreate): Promise<{ record: ApiKeyRecord; key: string }> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null || typeof input.userId !== 'string' || typeof input.name !== 'string') throw StorageErrors.invalid('an API key needs a userId and a name');
    if (input.key !== undefined && (typeof input.key !== 'string' || input.key.length < 16)) throw StorageErrors.invalid('a given API key must be a string of at least 16 characters');
    const key = input.key ?? generateToken('wf_');
    const record: ApiKeyRecord = {
      id: randomUUID(),
      userId: input.userId,
      name: input.name,
      prefix: key.slice(0, 8),
      scopes: input.scopes ?? [],
      createdAt: this.#ctx.now(),
      expiresAt: input.expiresAt ?? null,
      lastUsedAt: null,
      revokedAt: null,
    };
    try {
      this.#ctx.db.prepare('INSERT INTO api_keys (id, user_id, key_hash, created_at, body) VALUES (?, ?, ?, ?, ?)').run(record.id, record.userId, hashToken(key), record.createdAt, JSON.stringify(record));
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) throw StorageErrors.duplicate('API key', 'key', record.prefix);
      throw error;
    }
    return { record, key };
  }

  async verify(key: string, now: number = this.#ctx.now()): Promise<ApiKeyRecord | null> {
    this.#ctx.ensureOpen();
    if (typeof key !== 'string' || key === '') return null;
    const row = this.#ctx.db.prepare('SELECT body FROM api_keys WHERE key_hash = ?').get(hashToken(key)) as { body: string } | undefined;
    if (!row) return null;
    const record = JSON.parse(row.body) as ApiKeyRecord;
    if (record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt <= now)) return null;
    record.lastUsedAt = now;
    this.#ctx.db.prepare('UPDATE api_keys SET body = ? WHERE id = ?').run(JSON.stringify(record), record.id);
    return record;
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT body FROM api_keys WHERE id = ?').get(id) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as ApiKeyRecord) : null;
  }

  async list(userId: string): Promise<ApiKeyRecord[]> {
    this.#ctx.ensureOpen();
    const rows = this.#ctx.db.prepare('SELECT body FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, rowid DESC').all(userId) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as ApiKeyRecord);
  }

  async revoke(id: string, at: number = this.#ctx.now()): Promise<boolean> {
    this.#ctx.ensureOpen();
    const record = await this.get(id);
    if (!record) return false;
    if (record.revokedAt === null) {
      record.revokedAt = at;
      this.#ctx.db.prepare('UPDATE api_keys SET body = ? WHERE id = ?').run(JSON.stringify(record), id);
    }
    return true;
  }

  async delete(id: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('DELETE FROM api_keys WHERE id = ?').run(id).changes > 0;
  }
}

type TokenRow = { id: string; user_id: string; family_id: string; created_at: number; expires_at: number; used_at: number | null; revoked_at: number | null };

function decodeToken(row: TokenRow): RefreshTokenRecord {
  return { id: row.id, userId: row.user_id, familyId: row.family_id, createdAt: row.created_at, expiresAt: row.expires_at, usedAt: row.used_at, revokedAt: row.revoked_at };
}

/** Single-use refresh tokens with rotation families, stored as SHA-256 hashes. */
export class SqliteRefreshTokenRepository implements RefreshTokenRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async issue(input: RefreshTokenIssue): Promise<{ record: RefreshTokenRecord; token: string }> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null || typeof input.userId !== 'string' || !Number.isFinite(input.expiresAt)) throw StorageErrors.invalid('a refresh token needs a userId and a finite expiresAt');
    const token = generateToken('wfr_');
    const record: RefreshTokenRecord = { id: randomUUID(), userId: input.userId, familyId: input.familyId ?? randomUUID(), createdAt: this.#ctx.now(), expiresAt: input.expiresAt, usedAt: null, revokedAt: null };
    this.#ctx.db
      .prepare('INSERT INTO refresh_tokens (id, user_id, family_id, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(record.id, record.userId, record.familyId, hashToken(token), record.createdAt, record.expiresAt);
    return { record, token };
  }

  async consume(token: string, now: number = this.#ctx.now()): Promise<RefreshTokenConsumption> {
    this.#ctx.ensureOpen();
    if (typeof token !== 'string' || token === '') return { status: 'invalid' };
    const db = this.#ctx.db;
    let result: RefreshTokenConsumption = { status: 'invalid' };
    db.transaction(() => {
      const row = db.prepare('SELECT * FROM refresh_tokens WHERE token_hash = ?').get(hashToken(token)) as TokenRow | undefined;
      if (!row) return;
      if (row.used_at !== null) {
        db.prepare('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL').run(now, row.family_id);
        result = { status: 'reused', token: decodeToken({ ...row, revoked_at: row.revoked_at ?? now }) };
        return;
      }
      if (row.revoked_at !== null) {
        result = { status: 'revoked', token: decodeToken(row) };
        return;
      }
      if (row.expires_at <= now) {
        result = { status: 'expired', token: decodeToken(row) };
        return;
      }
      db.prepare('UPDATE refresh_tokens SET used_at = ? WHERE id = ?').run(now, row.id);
      result = { status: 'ok', token: decodeToken({ ...row, used_at: now }) };
    }).immediate();
    return result;
  }

  async revokeFamily(familyId: string, at: number = this.#ctx.now()): Promise<number> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('UPDATE refresh_tokens SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL').run(at, familyId).changes;
  }

  async revokeUser(userId: string, at: number = this.#ctx.now()): Promise<number> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('UPDATE refresh_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL').run(at, userId).changes;
  }

  async purgeExpired(now: number = this.#ctx.now()): Promise<number> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('DELETE FROM refresh_tokens WHERE expires_at < ?').run(now).changes;
  }
}

type SettingRow = { namespace: string; key: string; value: string; updated_at: number; revision: number };

/** Key/value JSON documents. */
export class SqliteSettingRepository implements SettingRepository {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async get<T extends JsonValue = JsonValue>(namespace: string, key: string): Promise<SettingRecord<T> | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT * FROM settings WHERE namespace = ? AND key = ?').get(namespace, key) as SettingRow | undefined;
    return row ? this.#decode<T>(row) : null;
  }

  async set<T extends JsonValue>(namespace: string, key: string, value: T, options: { expectedRevision?: number } = {}): Promise<SettingRecord<T>> {
    this.#ctx.ensureOpen();
    if (typeof namespace !== 'string' || namespace === '' || typeof key !== 'string' || key === '') throw StorageErrors.invalid('setting namespace and key must be non-empty strings');
    if (value === undefined) throw StorageErrors.invalid('a setting value must be JSON (use delete to remove it)');
    const text = JSON.stringify(value);
    let record: SettingRecord<T> | undefined;
    this.#ctx.db.transaction(() => {
      const current = this.#ctx.db.prepare('SELECT revision FROM settings WHERE namespace = ? AND key = ?').get(namespace, key) as { revision: number } | undefined;
      const revision = current?.revision ?? 0;
      if (options.expectedRevision !== undefined && options.expectedRevision !== revision) throw StorageErrors.conflict(`setting ${namespace}/${key}`, options.expectedRevision, revision);
      const now = this.#ctx.now();
      this.#ctx.db
        .prepare('INSERT INTO settings (namespace, key, value, updated_at, revision) VALUES (?, ?, ?, ?, ?) ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, revision = excluded.revision')
        .run(namespace, key, text, now, revision + 1);
      record = { namespace, key, value: JSON.parse(text) as T, updatedAt: now, revision: revision + 1 };
    }).immediate();
    return record!;
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('DELETE FROM settings WHERE namespace = ? AND key = ?').run(namespace, key).changes > 0;
  }

  async list(namespace: string): Promise<SettingRecord[]> {
    this.#ctx.ensureOpen();
    const rows = this.#ctx.db.prepare('SELECT * FROM settings WHERE namespace = ? ORDER BY key').all(namespace) as SettingRow[];
    return rows.map((r) => this.#decode(r));
  }

  #decode<T extends JsonValue>(row: SettingRow): SettingRecord<T> {
    return { namespace: row.namespace, key: row.key, value: JSON.parse(row.value) as T, updatedAt: row.updated_at, revision: row.revision };
  }
}
