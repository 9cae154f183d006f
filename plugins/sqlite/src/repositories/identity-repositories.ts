import {
  StorageErrors,
  type ApiKeyRecord,
  type ApiKeyStore,
  type JsonValue,
  type Page,
  type PageRequest,
  type RefreshTokenRecord,
  type RefreshTokenStore,
  type SettingRecord,
  type SettingRepository,
  type StoredUser,
  type UserRecord,
  type UserStore,
} from '@wiflow/core';
import { checkPageRequest, makePage } from '@wiflow/storage-kit';
import type { SqliteContext } from '../context.js';

// Plain rows only: the identity rules (hashing, verification, rotation) are core's
// `createIdentityRepositories`, applied above these stores.

/** Users: the record as JSON, the password hash beside it; usernames unique (COLLATE NOCASE). */
export class SqliteUserStore implements UserStore {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async insert({ user, passwordHash }: StoredUser): Promise<void> {
    this.#ctx.ensureOpen();
    try {
      this.#ctx.db.prepare('INSERT INTO users (id, username, password_hash, body) VALUES (?, ?, ?, ?)').run(user.id, user.username, passwordHash, JSON.stringify(user));
    } catch (error) {
      if ((error instanceof Error ? error.message : '').includes('users.username')) throw StorageErrors.duplicate('user', 'username', user.username);
      if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) throw StorageErrors.duplicate('user', 'id', user.id);
      throw error;
    }
  }

  async get(id: string): Promise<StoredUser | null> {
    this.#ctx.ensureOpen();
    return decodeUser(this.#ctx.db.prepare('SELECT password_hash, body FROM users WHERE id = ?').get(id));
  }

  async findByUsername(username: string): Promise<StoredUser | null> {
    this.#ctx.ensureOpen();
    return decodeUser(this.#ctx.db.prepare('SELECT password_hash, body FROM users WHERE username = ?').get(username));
  }

  async list(paging: PageRequest): Promise<Page<UserRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const total = (this.#ctx.db.prepare('SELECT COUNT(*) AS n FROM users').get() as { n: number }).n;
    const rows = this.#ctx.db.prepare('SELECT body FROM users ORDER BY username, id LIMIT ? OFFSET ?').all(paging.perPage, (paging.page - 1) * paging.perPage) as { body: string }[];
    return makePage(rows.map((r) => JSON.parse(r.body) as UserRecord), total, paging);
  }

  async put(user: UserRecord): Promise<boolean> {
    this.#ctx.ensureOpen();
    try {
      return this.#ctx.db.prepare('UPDATE users SET username = ?, body = ? WHERE id = ?').run(user.username, JSON.stringify(user), user.id).changes > 0;
    } catch (error) {
      if ((error instanceof Error ? error.message : '').includes('users.username')) throw StorageErrors.duplicate('user', 'username', user.username);
      throw error;
    }
  }

  async putPasswordHash(id: string, passwordHash: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(passwordHash, id).changes > 0;
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

function decodeUser(row: unknown): StoredUser | null {
  const r = row as { password_hash: string; body: string } | undefined;
  return r ? { user: JSON.parse(r.body) as UserRecord, passwordHash: r.password_hash } : null;
}

/** API keys: the record as JSON, keyed by the key's hash. */
export class SqliteApiKeyStore implements ApiKeyStore {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async insert({ record, keyHash }: { record: ApiKeyRecord; keyHash: string }): Promise<void> {
    this.#ctx.ensureOpen();
    try {
      this.#ctx.db.prepare('INSERT INTO api_keys (id, user_id, key_hash, created_at, body) VALUES (?, ?, ?, ?, ?)').run(record.id, record.userId, keyHash, record.createdAt, JSON.stringify(record));
    } catch (error) {
      if ((error as { code?: string }).code?.startsWith('SQLITE_CONSTRAINT')) throw StorageErrors.duplicate('API key', 'key', record.prefix);
      throw error;
    }
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    this.#ctx.ensureOpen();
    return decodeKey(this.#ctx.db.prepare('SELECT body FROM api_keys WHERE key_hash = ?').get(keyHash));
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    this.#ctx.ensureOpen();
    return decodeKey(this.#ctx.db.prepare('SELECT body FROM api_keys WHERE id = ?').get(id));
  }

  async listByUser(userId: string): Promise<ApiKeyRecord[]> {
    this.#ctx.ensureOpen();
    const rows = this.#ctx.db.prepare('SELECT body FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, rowid DESC').all(userId) as { body: string }[];
    return rows.map((r) => JSON.parse(r.body) as ApiKeyRecord);
  }

  async patch(id: string, fields: Partial<Pick<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>>): Promise<boolean> {
    this.#ctx.ensureOpen();
    let changed = false;
    this.#ctx.db.transaction(() => {
      const row = this.#ctx.db.prepare('SELECT body FROM api_keys WHERE id = ?').get(id) as { body: string } | undefined;
      if (!row) return;
      this.#ctx.db.prepare('UPDATE api_keys SET body = ? WHERE id = ?').run(JSON.stringify({ ...(JSON.parse(row.body) as ApiKeyRecord), ...fields }), id);
      changed = true;
    }).immediate();
    return changed;
  }

  async delete(id: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('DELETE FROM api_keys WHERE id = ?').run(id).changes > 0;
  }
}

function decodeKey(row: unknown): ApiKeyRecord | null {
  const r = row as { body: string } | undefined;
  return r ? (JSON.parse(r.body) as ApiKeyRecord) : null;
}

type TokenRow = { id: string; user_id: string; family_id: string; created_at: number; expires_at: number; used_at: number | null; revoked_at: number | null };

/** Refresh tokens: one row per token, keyed by the token's hash. */
export class SqliteRefreshTokenStore implements RefreshTokenStore {
  readonly #ctx: SqliteContext;

  constructor(ctx: SqliteContext) {
    this.#ctx = ctx;
  }

  async insert({ record, tokenHash }: { record: RefreshTokenRecord; tokenHash: string }): Promise<void> {
    this.#ctx.ensureOpen();
    this.#ctx.db
      .prepare('INSERT INTO refresh_tokens (id, user_id, family_id, token_hash, created_at, expires_at, used_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(record.id, record.userId, record.familyId, tokenHash, record.createdAt, record.expiresAt, record.usedAt, record.revokedAt);
  }

  async findByHash(tokenHash: string): Promise<RefreshTokenRecord | null> {
    this.#ctx.ensureOpen();
    const row = this.#ctx.db.prepare('SELECT * FROM refresh_tokens WHERE token_hash = ?').get(tokenHash) as TokenRow | undefined;
    return row ? { id: row.id, userId: row.user_id, familyId: row.family_id, createdAt: row.created_at, expiresAt: row.expires_at, usedAt: row.used_at, revokedAt: row.revoked_at } : null;
  }

  async markUsed(id: string, at: number): Promise<boolean> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('UPDATE refresh_tokens SET used_at = ? WHERE id = ? AND used_at IS NULL AND revoked_at IS NULL').run(at, id).changes > 0;
  }

  async revokeWhere(filter: { familyId: string } | { userId: string }, at: number): Promise<number> {
    this.#ctx.ensureOpen();
    const [column, value] = 'familyId' in filter ? ['family_id', filter.familyId] : ['user_id', filter.userId];
    return this.#ctx.db.prepare(`UPDATE refresh_tokens SET revoked_at = ? WHERE ${column} = ? AND revoked_at IS NULL`).run(at, value).changes;
  }

  async deleteExpired(before: number): Promise<number> {
    this.#ctx.ensureOpen();
    return this.#ctx.db.prepare('DELETE FROM refresh_tokens WHERE expires_at < ?').run(before).changes;
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
