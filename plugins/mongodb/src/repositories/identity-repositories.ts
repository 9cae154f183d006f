import { randomUUID } from 'node:crypto';
import type { Document } from 'mongodb';
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
import { duplicateKeyFields, type MongoContext } from '../context.js';

let dummyHash: string | null = null;
/** A hash to verify against when the username is unknown (made on first use: scrypt is slow). */
function timingDummyHash(): string {
  dummyHash ??= hashSecret('wiflow-timing-equaliser');
  return dummyHash;
}

function checkPassword(password: unknown): asserts password is string {
  if (typeof password !== 'string' || password.length === 0) throw StorageErrors.invalid('password must be a non-empty string');
}

/** Users (collection `users`; usernames unique case-insensitively through `usernameKey`). */
export class MongoUserRepository implements UserRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #users() {
    return this.#ctx.db.collection('users');
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
    try {
      await this.#users.insertOne({ _id: user.id as never, usernameKey: user.username.toLowerCase(), passwordHash: hashSecret(input.password), body: user });
    } catch (error) {
      const keys = duplicateKeyFields(error);
      if (keys?.includes('usernameKey')) throw StorageErrors.duplicate('user', 'username', user.username);
      if (keys) throw StorageErrors.duplicate('user', 'id', user.id);
      throw error;
    }
    return user;
  }

  async get(id: string): Promise<UserRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#users.findOne({ _id: id as never });
    return doc ? (doc.body as UserRecord) : null;
  }

  async getByUsername(username: string): Promise<UserRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#users.findOne({ usernameKey: String(username).toLowerCase() });
    return doc ? (doc.body as UserRecord) : null;
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

  async update(id: string, patch: UserPatch): Promise<UserRecord> {
    this.#ctx.ensureOpen();
    const current = await this.get(id);
    if (!current) throw StorageErrors.notFound('user', id);
    const next: UserRecord = { ...current, updatedAt: this.#ctx.now() };
    for (const key of ['username', 'roles', 'isActive', 'isSuperuser', 'profile', 'lastLoginAt'] as const) if (patch[key] !== undefined) (next as unknown as Record<string, unknown>)[key] = patch[key];
    if (typeof next.username !== 'string' || next.username.trim() === '') throw StorageErrors.invalid('username must be a non-empty string');
    try {
      await this.#users.updateOne({ _id: id as never }, { $set: { usernameKey: next.username.toLowerCase(), body: next } });
    } catch (error) {
      if (duplicateKeyFields(error)) throw StorageErrors.duplicate('user', 'username', next.username);
      throw error;
    }
    return next;
  }

  async setPassword(id: string, password: string): Promise<void> {
    this.#ctx.ensureOpen();
    checkPassword(password);
    const result = await this.#users.updateOne({ _id: id as never }, { $set: { passwordHash: hashSecret(password) } });
    if (result.matchedCount === 0) throw StorageErrors.notFound('user', id);
  }

  async verifyPassword(username: string, password: string): Promise<UserRecord | null> {
    this.#ctx.ensureOpen();
    if (typeof username !== 'string' || typeof password !== 'string') return null;
    const doc = await this.#users.findOne({ usernameKey: username.toLowerCase() });
    const ok = verifySecret(password, (doc?.passwordHash as string | undefined) ?? timingDummyHash());
    if (!doc || !ok) return null;
    const user = doc.body as UserRecord;
    return user.isActive ? user : null;
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

/** API keys (collection `api_keys`, unique `keyHash`). */
export class MongoApiKeyRepository implements ApiKeyRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #keys() {
    return this.#ctx.db.collection('api_keys');
  }

  async create(input: ApiKeyCreate): Promise<{ record: ApiKeyRecord; key: string }> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null || typeof input.userId !== 'string' || typeof input.name !== 'string') throw StorageErrors.invalid('an API key needs a userId and a name');
    if (input.key !== undefined && (typeof input.key !== 'string' || input.key.length < 16)) throw StorageErrors.invalid('a given API key must be a string of at least 16 characters');
    const key = input.key ?? generateToken('wf_');
    const record: ApiKeyRecord = { id: randomUUID(), userId: input.userId, name: input.name, prefix: key.slice(0, 8), scopes: input.scopes ?? [], createdAt: this.#ctx.now(), expiresAt: input.expiresAt ?? null, lastUsedAt: null, revokedAt: null };
    const seq = await this.#ctx.reserveSeq('api_keys', 1);
    try {
      await this.#keys.insertOne({ _id: record.id as never, userId: record.userId, keyHash: hashToken(key), seq, body: record });
    } catch (error) {
      if (duplicateKeyFields(error)) throw StorageErrors.duplicate('API key', 'key', record.prefix);
      throw error;
    }
    return { record, key };
  }

  async verify(key: string, now: number = this.#ctx.now()): Promise<ApiKeyRecord | null> {
    this.#ctx.ensureOpen();
    if (typeof key !== 'string' || key === '') return null;
    const doc = await this.#keys.findOne({ keyHash: hashToken(key) });
    if (!doc) return null;
    const record = doc.body as ApiKeyRecord;
    if (record.revokedAt !== null || (record.expiresAt !== null && record.expiresAt <= now)) return null;
    record.lastUsedAt = now;
    await this.#keys.updateOne({ _id: doc._id }, { $set: { 'body.lastUsedAt': now } });
    return record;
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    this.#ctx.ensureOpen();
    const doc = await this.#keys.findOne({ _id: id as never });
    return doc ? (doc.body as ApiKeyRecord) : null;
  }

  async list(userId: string): Promise<ApiKeyRecord[]> {
    this.#ctx.ensureOpen();
    const docs = await this.#keys.find({ userId }).sort({ 'body.createdAt': -1, seq: -1 }).toArray();
    return docs.map((d) => d.body as ApiKeyRecord);
  }

  async revoke(id: string, at: number = this.#ctx.now()): Promise<boolean> {
    this.#ctx.ensureOpen();
    const result = await this.#keys.updateOne({ _id: id as never }, [{ $set: { 'body.revokedAt': { $ifNull: ['$body.revokedAt', at] } } }]);
    return result.matchedCount > 0;
  }

  async delete(id: string): Promise<boolean> {
    this.#ctx.ensureOpen();
    return (await this.#keys.deleteOne({ _id: id as never })).deletedCount > 0;
  }
}

function decodeToken(doc: Document): RefreshTokenRecord {
  return { id: doc._id as unknown as string, userId: doc.userId, familyId: doc.familyId, createdAt: doc.createdAt, expiresAt: doc.expiresAt, usedAt: doc.usedAt ?? null, revokedAt: doc.revokedAt ?? null };
}

/** Refresh tokens (collection `refresh_tokens`, unique `tokenHash`). */
export class MongoRefreshTokenRepository implements RefreshTokenRepository {
  readonly #ctx: MongoContext;

  constructor(ctx: MongoContext) {
    this.#ctx = ctx;
  }

  get #tokens() {
    return this.#ctx.db.collection('refresh_tokens');
  }

  async issue(input: RefreshTokenIssue): Promise<{ record: RefreshTokenRecord; token: string }> {
    this.#ctx.ensureOpen();
    if (typeof input !== 'object' || input === null || typeof input.userId !== 'string' || !Number.isFinite(input.expiresAt)) throw StorageErrors.invalid('a refresh token needs a userId and a finite expiresAt');
    const token = generateToken('wfr_');
    const record: RefreshTokenRecord = { id: randomUUID(), userId: input.userId, familyId: input.familyId ?? randomUUID(), createdAt: this.#ctx.now(), expiresAt: input.expiresAt, usedAt: null, revokedAt: null };
    await this.#tokens.insertOne({ _id: record.id as never, userId: record.userId, familyId: record.familyId, tokenHash: hashToken(token), createdAt: record.createdAt, expiresAt: record.expiresAt, usedAt: null, revokedAt: null });
    return { record, token };
  }

  async consume(token: string, now: number = this.#ctx.now()): Promise<RefreshTokenConsumption> {
    this.#ctx.ensureOpen();
    if (typeof token !== 'string' || token === '') return { status: 'invalid' };
    const tokenHash = hashToken(token);
    // One atomic step marks a valid token used; only then is it 'ok'.
    const used = await this.#tokens.findOneAndUpdate({ tokenHash, usedAt: null, revokedAt: null, expiresAt: { $gt: now } }, { $set: { usedAt: now } }, { returnDocument: 'after' });
    if (used) return { status: 'ok', token: decodeToken(used) };
    const doc = await this.#tokens.findOne({ tokenHash });
    if (!doc) return { status: 'invalid' };
    if (doc.usedAt !== null) {
      await this.#tokens.updateMany({ familyId: doc.familyId, revokedAt: null }, { $set: { revokedAt: now } });
      return { status: 'reused', token: decodeToken({ ...doc, revokedAt: doc.revokedAt ?? now }) };
    }
    if (doc.revokedAt !== null) return { status: 'revoked', token: decodeToken(doc) };
    return { status: 'expired', token: decodeToken(doc) };
  }

  async revokeFamily(familyId: string, at: number = this.#ctx.now()): Promise<number> {
    this.#ctx.ensureOpen();
    return (await this.#tokens.updateMany({ familyId, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount;
  }

  async revokeUser(userId: string, at: number = this.#ctx.now()): Promise<number> {
    this.#ctx.ensureOpen();
    return (await this.#tokens.updateMany({ userId, revokedAt: null }, { $set: { revokedAt: at } })).modifiedCount;
  }

  async purgeExpired(now: number = this.#ctx.now()): Promise<number> {
    this.#ctx.ensureOpen();
    return (await this.#tokens.deleteMany({ expiresAt: { $lt: now } })).deletedCount;
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
