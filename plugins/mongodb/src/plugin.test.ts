import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Runtime, StorageErrors } from '@wiflow/core';
import { afterAll, describe, expect, it } from 'vitest';
import mongodbPlugin, { MongoStorage, createMongoStorage, databaseFromUrl, redactUrl, resolveConnection } from './index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-mongodb-plugin-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('plugin-mongodb configuration', () => {
  it('takes the URL from storage.url, else MONGODB_URL, and says what is missing', () => {
    expect(resolveConnection({ kind: 'mongodb', url: 'mongodb://db.example:27017/poses' }, {})).toMatchObject({ url: 'mongodb://db.example:27017/poses', database: 'poses', maxPoolSize: 20 });
    expect(resolveConnection({ kind: 'mongodb', database: 'other' }, { MONGODB_URL: 'mongodb://h/x' })).toMatchObject({ url: 'mongodb://h/x', database: 'other' });
    expect(resolveConnection({ kind: 'mongodb' }, { MONGODB_URL: 'mongodb://h' }).database).toBe('wiflow');
    expect(() => resolveConnection({ kind: 'mongodb' }, {})).toThrow(/set storage.url in the config or MONGODB_URL/);
    expect(() => resolveConnection({ kind: 'mongodb', url: 'http://nope' }, {})).toThrow(/must start with mongodb:\/\//);
    expect(() => resolveConnection({ kind: 'mongodb', url: 'mongodb://h', maxPoolSize: 0 }, {})).toThrow();
  });

  it('never shows a password in health details', async () => {
    expect(redactUrl('mongodb://alice:s3cret@db:27017/wiflow?authSource=admin')).toBe('mongodb://alice:***@db:27017/wiflow?authSource=admin');
    expect(redactUrl('mongodb+srv://bob:pw@cluster.example/db')).toBe('mongodb+srv://bob:***@cluster.example/db');
    expect(databaseFromUrl('mongodb://h:1/some%20db?x=1')).toBe('some db');
    const storage = new MongoStorage({ url: 'mongodb://alice:s3cret@127.0.0.1:1/wiflow', database: 'wiflow', maxPoolSize: 7 });
    const health = await storage.health();
    expect(health.status).toBe('unhealthy');
    expect(health.details).toMatchObject({ open: false, url: 'mongodb://alice:***@127.0.0.1:1/wiflow', maxPoolSize: 7 });
    expect(JSON.stringify(health)).not.toContain('s3cret');
    expect(storage.clientOptions()).toMatchObject({ maxPoolSize: 7, ignoreUndefined: true });
  });

  it('refuses bad options and work before open', async () => {
    expect(() => new MongoStorage({ url: 'postgres://x', database: 'd' })).toThrow(/mongodb:\/\//);
    expect(() => new MongoStorage({ url: 'mongodb://x', database: '' })).toThrow(/database/);
    const storage = new MongoStorage({ url: 'mongodb://127.0.0.1:1', database: 'd' });
    expect(() => storage.flows).toThrow(expect.objectContaining({ code: StorageErrors.closed.code }));
  });

  it('fails to open with a clear backend error when no server answers', async () => {
    const storage = new MongoStorage({ url: 'mongodb://127.0.0.1:1/wiflow', database: 'wiflow', serverSelectionTimeoutMS: 300 });
    await expect(storage.open()).rejects.toMatchObject({ code: StorageErrors.backend.code, message: expect.stringContaining('cannot open mongodb://127.0.0.1:1/wiflow') });
  });

  it('resolves storage kind mongodb through the runtime hook, and only that kind', async () => {
    const runtime = await Runtime.create({ discover: false, plugins: [mongodbPlugin], dataDir: dir, config: { storage: { kind: 'mongodb', url: 'mongodb://127.0.0.1:1/wf', maxPoolSize: 3 }, privacy: { anonymize_data: true } } });
    const storage = await runtime.hooks.resolveStorage.promise({ kind: 'mongodb', dataDir: dir, host: runtime });
    expect(storage).toBeInstanceOf(MongoStorage);
    expect(storage!.privacy()).toEqual({ dataRetentionDays: 30, anonymizeData: true, enableEncryption: false });
    expect((await storage!.health()).details).toMatchObject({ database: 'wf', maxPoolSize: 3 });
    expect(await runtime.hooks.resolveStorage.promise({ kind: 'sqlite', dataDir: dir, host: runtime })).toBeUndefined();
    expect(createMongoStorage(runtime, {})).toBeInstanceOf(MongoStorage);
  });
});
