import type { Document } from 'mongodb';
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
import { duplicateKeyFields, type MongoContext } from '../context.js';

// Plain documents only: the identity rules (hashing, verification, rotation) are core's
// `createIdentityRepositories`, applied above these stores.

/** Users (collection `users`; usernames unique case-insensitively through `usernameKey`). */
export class MongoUserStore implements UserStore {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #users() {
    return this.#ctx.db.collection('users');
  }

  async insert({ user, passwordHash }: StoredUser): Promise<void> {
    this.#ctx.ensureOpen();
    try {
      await this.#users.insertOne({ _id: user.id as never, usernameKey: user.username.toLowerCase(), passwordHash, body: user });
    } catch (error) {
      const keys = duplicateKeyFields(error);
      if (keys?.includes('usernameKey')) throw StorageErrors.duplicate('user', 'username', user.username);
      if (keys) throw StorageErrors.duplicate('user', 'id', user.id);
      throw error;
    }
  }

  async get(id: string): Promise<StoredUser | null> {
    this.#ctx.ensureOpen();
    return decodeUser(await this.#users.findOne({ _id: id as never }));
  }

  async findByUsername(username: string): Promise<StoredUser | null> {
    this.#ctx.ensureOpen();
    return decodeUser(await this.#users.findOne({ usernameKey: String(username).toLowerCase() }));
  }

  async list(paging: PageRequest): Promise<Page<UserRecord>> {
    this.#ctx.ensureOpen();
    checkPageRequest(paging);
    const [total, docs] = await Promise.all([
      this.#users.countDocuments({}),
      this.#users.find({}).sort({ usernameKey: 1, _id: 1 }).skip((paging.page - 1) * paging.perPage).limit(paging.perPage).toArray(),
    ]);
    return makePage(docs.map((d) => d.body as UserRecord), total, paging);
  }

  async put(user: UserRecord): Promise<boolean> {
    this.#ctx.ensureOpen();
    try {
      return (await this.#users.updateOne({ _id: user.id as never }, { $set: { usernameKey: user.username.toLowerCase(), body: user } })).matchedCount > 0;
    } catch (error) {
      if (duplicateKeyFields(error)) throw StorageErrors.duplicate('user', 'username', user.username);
      throw error;
    }
  }

  async putPasswordHash(id: string, passwordHash: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    return (await this.#users.updateOne({ _id: id as never }, { $set: { passwordHash } })).matchedCount > 0;
  }

  async delete(id: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    const result = await this.#users.deleteOne({ _id: id as never });
    await this.#ctx.db.collection('api_keys').deleteMany({ userId: id });
    await this.#ctx.db.collection('refresh_tokens').deleteMany({ userId: id });
    return result.deletedCount > 0;
  }

  async count(): Promise<number> {
    this.#ctx.ensureOpen();
    return this.#users.countDocuments({});
  }
}

function decodeUser(doc: Document | null): StoredUser | null {
  return doc ? { user: doc.body as UserRecord, passwordHash: doc.passwordHash as string } : null;
}

/** API keys (collection `api_keys`, unique `keyHash`). */
export class MongoApiKeyStore implements ApiKeyStore {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #keys() {
    return this.#ctx.db.collection('api_keys');
  }

  async insert({ record, keyHash }: { record: ApiKeyRecord; keyHash: string }): Promise<void> {
    this.#ctx.ensureOpen();
    // `seq` orders keys created in the same millisecond (newest first).
    const seq = await this.#ctx.reserveSeq('api_keys', 1);
    try {
      await this.#keys.insertOne({ _id: record.id as never, userId: record.userId, keyHash, seq, body: record });
    } catch (error) {
      if (duplicateKeyFields(error)) throw StorageErrors.duplicate('API key', 'key', record.prefix);
      throw error;
    }
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#keys.findOne({ keyHash });
    return doc ? (doc.body as ApiKeyRecord) : null;
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#keys.findOne({ _id: id as never });
    return doc ? (doc.body as ApiKeyRecord) : null;
  }

  async listByUser(userId: string): Promise<ApiKeyRecord[]> {
    this.#ctx.ensureOpen();
    const docs = await this.#keys.find({ userId }).sort({ 'body.createdAt': -1, seq: -1 }).toArray();
    return docs.map((d) => d.body as ApiKeyRecord);
  }

  async patch(id: string, fields: Partial<Pick<ApiKeyRecord, 'lastUsedAt' | 'revokedAt'>>): Promise<boolean> {
    this.#ctx.ensureOpen();
    const set = Object.fromEntries(Object.entries(fields).map(([field, value]) => [`body.${field}`, value]));
    return (await this.#keys.updateOne({ _id: id as never }, { $set: set })).matchedCount > 0;
  }

  async delete(id: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    return (await this.#keys.deleteOne({ _id: id as never })).deletedCount > 0;
  }
}

/** Refresh tokens (collection `refresh_tokens`, unique `tokenHash`). */
export class MongoRefreshTokenStore implements RefreshTokenStore {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #tokens() {
    return this.#ctx.db.collection('refresh_tokens');
  }

  async insert({ record, tokenHash }: { record: RefreshTokenRecord; tokenHash: string }): Promise<void> {
    this.#ctx.ensureOpen();
    await this.#tokens.insertOne({ _id: record.id as never, userId: record.userId, familyId: record.familyId, tokenHash, createdAt: record.createdAt, expiresAt: record.expiresAt, usedAt: record.usedAt, revokedAt: record.revokedAt });
  }

  async findByHash(tokenHash: string): Promise<RefreshTokenRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#tokens.findOne({ tokenHash });
    return doc
      ? { id: doc._id as unknown as string, userId: doc.userId, familyId: doc.familyId, createdAt: doc.createdAt, expiresAt: doc.expiresAt, usedAt: doc.usedAt ?? null, revokedAt: doc.revokedAt ?? null }
      : null;
  }

  async markUsed(id: string, at: number): Promise<boolean> {
    this.#ctx.ensureOpen();
    // One atomic conditional update: of two consumers racing, one matches.
    return (await this.#tokens.updateOne({ _id: id as never, usedAt: null, revokedAt: null }, { $set: { usedAt: at } })).modifiedCount > 0;
  }

  async revokeWhere(filter: { familyId: string } | { userId: string }, at: number): Promise<number> {
    this.#ctx.ensureOpen();
    return (await this.#tokens.updateMany({ ...filter, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount;
  }

  async deleteExpired(before: number): Promise<number> {
    this.#ctx.ensureOpen();
    return (await this.#tokens.deleteMany({ expiresAt: { $lt: before } })).deletedCount;
  }
}

/** The _id of a setting: unambiguous whatever characters namespace and key hold. */
function settingId(namespace: string, key: string): string {
  return JSON.stringify([namespace, key]);
}

/** Settings documents (collection `settings`, _id = JSON of [namespace, key]). */
export class MongoSettingRepository implements SettingRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #settings() {
    return this.#ctx.db.collection('settings');
  }

  async get<T extends JsonValue = JsonValue>(namespace: string, key: string): Promise<SettingRecord<T> | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#settings.findOne({ _id: settingId(namespace, key) as never });
    return doc ? this.#decode<T>(doc) : null;
  }

  async set<T extends JsonValue>(namespace: string, key: string, value: T, options: { expectedRevision?: number } = {}): Promise<SettingRecord<T>> {
    this.#ctx.ensureOpen();
    if (typeof namespace !== 'string' || namespace === '' || typeof key !== 'string' || key === '') throw StorageErrors.invalid('setting namespace and key must be non-empty strings');
    if (value === undefined) throw StorageErrors.invalid('a setting value must be JSON (use delete to remove it)');
    const id = settingId(namespace, key);
    // JSON text keeps the value exactly as given (BSON would turn keys with dots or $ into errors).
    const text = JSON.stringify(value);
    const now = this.#ctx.now();
    const expected = options.expectedRevision;
    if (expected === 0) {
      try {
        await this.#settings.insertOne({ _id: id as never, namespace, key, value: text, updatedAt: now, revision: 1 });
      } catch (error) {
        if (!duplicateKeyFields(error)) throw error;
        const current = await this.get(namespace, key);
        throw StorageErrors.conflict(`setting ${namespace}/${key}`, 0, current?.revision ?? 0);
      }
      return { namespace, key, value: JSON.parse(text) as T, updatedAt: now, revision: 1 };
    }
    const filter: Document = { _id: id };
    if (expected !== undefined) filter.revision = expected;
    try {
      const doc = await this.#settings.findOneAndUpdate(filter, { $set: { namespace, key, value: text, updatedAt: now }, $inc: { revision: 1 } }, { upsert: expected === undefined, returnDocument: 'after' });
      if (!doc) {
        const current = await this.get(namespace, key);
        throw StorageErrors.conflict(`setting ${namespace}/${key}`, expected!, current?.revision ?? 0);
      }
      return this.#decode<T>(doc);
    } catch (error) {
      if (duplicateKeyFields(error)) {
        const current = await this.get(namespace, key);
        throw StorageErrors.conflict(`setting ${namespace}/${key}`, expected ?? 0, current?.revision ?? 0);
      }
      throw error;
    }
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    return (await this.#settings.deleteOne({ _id: settingId(namespace, key) as never })).deletedCount > 0;
  }

  async list(namespace: string): Promise<SettingRecord[]> {
    this.#ctx.ensureOpen();
    const docs = await this.#settings.find({ namespace }).sort({ key: 1 }).toArray();
    return docs.map((d) => this.#decode(d));
  }

  #decode<T extends JsonValue>(doc: Document): SettingRecord<T> {
    return { namespace: doc.namespace, key: doc.key, value: JSON.parse(doc.value as string) as T, updatedAt: doc.updatedAt, revision: doc.revision };
  }
}
