import { MongoClient, type Db, type MongoClientOptions } from 'mongodb';
import {
  createIdentityRepositories,
  StorageErrors,
  type AlertRepository,
  type ApiKeyRepository,
  type EventRepository,
  type FileRepository,
  type FlowRepository,
  type JobRepository,
  type MessageRepository,
  type MetricRepository,
  type SensingRepository,
  type PoseRepository,
  type PrivacySettings,
  type ProjectRepository,
  type RefreshTokenRepository,
  type RetentionReport,
  type RevisionRepository,
  type SettingRepository,
  type Storage,
  type StorageHealth,
  type TrackRepository,
  type UserRepository,
} from '@wiflow/core';
import { AsyncWriteBuffer, type PendingWrites } from './async-write-buffer.js';
import { redactUrl } from './config.js';
import type { MongoContext } from './context.js';
import { MongoFileRepository, MongoMessageRepository } from './repositories/content-repositories.js';
import { MongoFlowRepository, MongoProjectRepository, MongoRevisionRepository } from './repositories/flow-repositories.js';
import { MongoApiKeyStore, MongoRefreshTokenStore, MongoSettingRepository, MongoUserStore } from './repositories/identity-repositories.js';
import { MongoJobRepository } from './repositories/job-repository.js';
import { MongoPoseRepository } from './repositories/pose-repository.js';
import { MongoAlertRepository, MongoEventRepository, MongoMetricRepository, MongoSensingRepository } from './repositories/time-series-repositories.js';
import { MongoTrackRepository } from './repositories/track-repository.js';

/** Seals and opens strings (the runtime's SecretBox fits). */
export interface BodySealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** Options of a MongoDB storage. */
export interface MongoStorageOptions {
  url: string;
  database: string;
  maxPoolSize?: number;
  minPoolSize?: number;
  serverSelectionTimeoutMS?: number;
  privacy?: () => PrivacySettings;
  flushIntervalMs?: number;
  flushMaxRecords?: number;
  maxBufferedRecords?: number;
  retentionIntervalMs?: number;
  sealer?: BodySealer;
  onError?: (error: unknown) => void;
  now?: () => number;
}

const DAY_MS = 86_400_000;
const SEALED_PREFIX = 'sealed:';
const DEFAULT_PRIVACY: PrivacySettings = { dataRetentionDays: 30, anonymizeData: false, enableEncryption: false };

/** The collections, their kind and indexes. Pose data lives in time-series collections. */
const TIME_SERIES = ['pose_frames', 'pose_persons'] as const;
const INDEXES: Record<string, { key: Record<string, 1 | -1>; unique?: boolean; partialFilterExpression?: Record<string, unknown> }[]> = {
  pose_frames: [{ key: { env: 1, ts: 1, seq: 1 } }, { key: { ts: 1, seq: 1 } }, { key: { seq: 1 } }],
  // Persons are found by (env, ts, seq) — also a frame's own persons — and by track.
  pose_persons: [{ key: { env: 1, ts: 1, seq: 1 } }, { key: { ts: 1, seq: 1 } }, { key: { trackId: 1, env: 1, ts: 1 } }],
  pose_minutes: [{ key: { env: 1, minute: 1 } }, { key: { minute: 1 } }],
  events: [{ key: { ts: 1, seq: 1 } }, { key: { env: 1, ts: 1 } }],
  alerts: [{ key: { ts: 1, seq: 1 } }],
  metrics: [{ key: { ts: 1, seq: 1 } }, { key: { kind: 1, source: 1, ts: 1 } }],
  sensing_frames: [{ key: { ts: 1, seq: 1 } }, { key: { env: 1, scope: 1, ts: 1 } }],
  flows: [
    { key: { userKey: 1, name: 1 }, unique: true },
    { key: { userKey: 1, endpointName: 1 }, unique: true, partialFilterExpression: { endpointName: { $type: 'string' } } },
    { key: { folderId: 1 } },
    { key: { updatedAt: -1 } },
  ],
  flow_revisions: [{ key: { flowId: 1, revision: -1 } }],
  projects: [{ key: { userKey: 1, name: 1 }, unique: true }],
  messages: [{ key: { sessionId: 1, ts: 1 } }, { key: { flowId: 1, ts: 1 } }, { key: { ts: 1, seq: 1 } }],
  files: [{ key: { userId: 1, createdAt: -1 } }],
  users: [{ key: { usernameKey: 1 }, unique: true }],
  api_keys: [{ key: { keyHash: 1 }, unique: true }, { key: { userId: 1 } }],
  refresh_tokens: [{ key: { tokenHash: 1 }, unique: true }, { key: { familyId: 1 } }, { key: { userId: 1 } }],
  settings: [{ key: { namespace: 1, key: 1 } }],
  jobs: [{ key: { createdAt: -1, seq: -1 } }, { key: { userKey: 1, createdAt: -1, seq: -1 } }, { key: { status: 1, runnerId: 1 } }],
};

/**
 * wiflow storage on MongoDB (7.0 or newer: deletes on time-series collections). Pose frames
 * and person records go to time-series collections (timeField `ts`, metaField `env`);
 * everything else to ordinary collections with unique indexes where the interface promises
 * uniqueness. Time-series writes are buffered like SQLite's; acknowledged writes use the
 * client's write concern (set `w=majority&journal=true` in the URL for durability across
 * failover).
 */
export class MongoStorage implements Storage {
  readonly kind = 'mongodb';
  readonly #options: MongoStorageOptions;
  #client: MongoClient | null = null;
  #db: Db | null = null;
  #buffer: AsyncWriteBuffer | null = null;
  #repositories: ReturnType<MongoStorage['createRepositories']> | null = null;
  #retentionTimer: NodeJS.Timeout | null = null;
  #lastRetention: RetentionReport | null = null;
  #pool = { open: 0, checkedOut: 0, created: 0, closed: 0 };
  #serverVersion: string | null = null;

  constructor(options: MongoStorageOptions) {
    if (!options || typeof options.url !== 'string' || !/^mongodb(\+srv)?:\/\//.test(options.url)) throw StorageErrors.invalid('MongoStorage needs a mongodb:// or mongodb+srv:// url');
    if (typeof options.database !== 'string' || options.database === '') throw StorageErrors.invalid('MongoStorage needs a database name');
    this.#options = options;
  }

  get poses(): PoseRepository { return this.#repos().poses; }
  get tracks(): TrackRepository { return this.#repos().tracks; }
  get events(): EventRepository { return this.#repos().events; }
  get alerts(): AlertRepository { return this.#repos().alerts; }
  get metrics(): MetricRepository { return this.#repos().metrics; }
  get sensing(): SensingRepository { return this.#repos().sensing; }
  get flows(): FlowRepository { return this.#repos().flows; }
  get revisions(): RevisionRepository { return this.#repos().revisions; }
  get projects(): ProjectRepository { return this.#repos().projects; }
  get messages(): MessageRepository { return this.#repos().messages; }
  get files(): FileRepository { return this.#repos().files; }
  get users(): UserRepository { return this.#repos().users; }
  get apiKeys(): ApiKeyRepository { return this.#repos().apiKeys; }
  get refreshTokens(): RefreshTokenRepository { return this.#repos().refreshTokens; }
  get settings(): SettingRepository { return this.#repos().settings; }
  get jobs(): JobRepository { return this.#repos().jobs; }

  /** The options the client is made with (pool figures, timeouts). */
  clientOptions(): MongoClientOptions {
    return {
      maxPoolSize: this.#options.maxPoolSize ?? 20,
      minPoolSize: this.#options.minPoolSize ?? 0,
      serverSelectionTimeoutMS: this.#options.serverSelectionTimeoutMS ?? 10_000,
      ignoreUndefined: true,
      appName: 'wiflow',
    };
  }

  async open(): Promise<void> {
    if (this.#client) return;
    const client = new MongoClient(this.#options.url, this.clientOptions());
    client.on('connectionCreated', () => { this.#pool.open++; this.#pool.created++; });
    client.on('connectionClosed', () => { this.#pool.open = Math.max(0, this.#pool.open - 1); this.#pool.closed++; });
    client.on('connectionCheckedOut', () => { this.#pool.checkedOut++; });
    client.on('connectionCheckedIn', () => { this.#pool.checkedOut = Math.max(0, this.#pool.checkedOut - 1); });
    try {
      await client.connect();
      const db = client.db(this.#options.database);
      const info = await db.admin().command({ buildInfo: 1 }).catch(() => null);
      this.#serverVersion = (info?.version as string | undefined) ?? null;
      await this.#ensureSchema(db);
      this.#client = client;
      this.#db = db;
    } catch (error) {
      await client.close().catch(() => undefined);
      throw StorageErrors.backend(this.kind, `cannot open ${redactUrl(this.#options.url)}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const onError = this.#options.onError ?? ((error: unknown) => console.error('[wiflow mongodb] background write failed:', error));
    this.#buffer = new AsyncWriteBuffer({
      flushIntervalMs: this.#options.flushIntervalMs ?? 100,
      flushMaxRecords: this.#options.flushMaxRecords ?? 10_000,
      maxBufferedRecords: this.#options.maxBufferedRecords ?? 1_000_000,
      write: (batch) => this.#writeBatch(batch),
      onError,
    });
    this.#repositories = this.createRepositories();
    await this.#repositories.poses.backfillMinutes();
    await this.applyRetention();
    const interval = this.#options.retentionIntervalMs ?? 3_600_000;
    if (interval > 0) {
      this.#retentionTimer = setInterval(() => {
        this.applyRetention().catch(onError);
      }, interval);
      this.#retentionTimer.unref();
    }
  }

  async flush(): Promise<void> {
    this.#ensureOpen();
    try {
      await this.#buffer!.flush();
    } catch (error) {
      throw StorageErrors.backend(this.kind, `flush failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  async close(): Promise<void> {
    if (!this.#client) return;
    if (this.#retentionTimer) clearInterval(this.#retentionTimer);
    this.#retentionTimer = null;
    try {
      await this.#buffer!.flush();
    } finally {
      this.#buffer!.stop();
      await this.#client.close();
      this.#client = null;
      this.#db = null;
      this.#buffer = null;
      this.#repositories = null;
    }
  }

  /** Drop the whole database (tests and teardown only). */
  async dropDatabase(): Promise<void> {
    this.#ensureOpen();
    this.#buffer!.stop();
    await this.#db!.dropDatabase();
  }

  async health(): Promise<StorageHealth> {
    const maxPoolSize = this.#options.maxPoolSize ?? 20;
    const connection = { url: redactUrl(this.#options.url), database: this.#options.database, maxPoolSize, minPoolSize: this.#options.minPoolSize ?? 0, serverSelectionTimeoutMS: this.#options.serverSelectionTimeoutMS ?? 10_000 };
    if (!this.#db || !this.#buffer) return { status: 'unhealthy', details: { kind: this.kind, open: false, ...connection } };
    const started = performance.now();
    let pingMs: number | null = null;
    let pingError: string | null = null;
    try {
      await this.#db.command({ ping: 1 });
      pingMs = performance.now() - started;
    } catch (error) {
      pingError = error instanceof Error ? error.message : String(error);
    }
    const buffer = this.#buffer;
    const status = pingError ? 'unhealthy' : buffer.lastError !== null || buffer.dropped > 0 ? 'degraded' : 'healthy';
    return {
      status,
      details: {
        kind: this.kind,
        open: true,
        ...connection,
        serverVersion: this.#serverVersion,
        pingMs,
        pingError,
        // In use / most allowed, as the pose API's database.connection_pool string.
        connectionPool: `${this.#pool.checkedOut}/${maxPoolSize}`,
        pool: { ...this.#pool, maxPoolSize },
        bufferedRecords: buffer.buffered,
        writtenRecords: buffer.written,
        droppedRecords: buffer.dropped,
        failedWrites: buffer.failures,
        lastFlushAt: buffer.lastFlushAt,
        lastFlushMs: buffer.lastFlushMs,
        lastError: buffer.lastError,
        lastRetention: this.#lastRetention,
        privacy: this.privacy(),
      },
    };
  }

  privacy(): PrivacySettings {
    return this.#options.privacy?.() ?? DEFAULT_PRIVACY;
  }

  async applyRetention(now: number = this.#now()): Promise<RetentionReport> {
    this.#ensureOpen();
    await this.#buffer!.flush();
    const cutoff = now - this.privacy().dataRetentionDays * DAY_MS;
    const db = this.#db!;
    const [poseFrames, personRecords, events, alerts, metrics, sensingFrames] = await Promise.all([
      db.collection('pose_frames').deleteMany({ ts: { $lt: new Date(cutoff) } }),
      db.collection('pose_persons').deleteMany({ ts: { $lt: new Date(cutoff) } }),
      db.collection('events').deleteMany({ ts: { $lt: cutoff } }),
      db.collection('alerts').deleteMany({ ts: { $lt: cutoff } }),
      db.collection('metrics').deleteMany({ ts: { $lt: cutoff } }),
      db.collection('sensing_frames').deleteMany({ ts: { $lt: cutoff } }),
    ]);
    await this.#repositories!.poses.pruneMinutes(cutoff);
    const report: RetentionReport = { cutoff, poseFrames: poseFrames.deletedCount, personRecords: personRecords.deletedCount, events: events.deletedCount, alerts: alerts.deletedCount, metrics: metrics.deletedCount, sensingFrames: sensingFrames.deletedCount };
    this.#lastRetention = report;
    return report;
  }

  /** Build the repositories over the open client. */
  protected createRepositories() {
    const ctx = this.#context();
    return {
      poses: new MongoPoseRepository(ctx),
      tracks: new MongoTrackRepository(ctx),
      events: new MongoEventRepository(ctx),
      alerts: new MongoAlertRepository(ctx),
      metrics: new MongoMetricRepository(ctx),
      sensing: new MongoSensingRepository(ctx),
      flows: new MongoFlowRepository(ctx),
      revisions: new MongoRevisionRepository(ctx),
      projects: new MongoProjectRepository(ctx),
      messages: new MongoMessageRepository(ctx),
      files: new MongoFileRepository(ctx),
      ...createIdentityRepositories({ users: new MongoUserStore(ctx), apiKeys: new MongoApiKeyStore(ctx), refreshTokens: new MongoRefreshTokenStore(ctx) }, () => ctx.now()),
      settings: new MongoSettingRepository(ctx),
      jobs: new MongoJobRepository(ctx),
    };
  }

  async #ensureSchema(db: Db): Promise<void> {
    const existing = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
    for (const name of TIME_SERIES) {
      if (!existing.has(name)) await db.createCollection(name, { timeseries: { timeField: 'ts', metaField: 'env', granularity: 'seconds' } });
    }
    for (const [collection, indexes] of Object.entries(INDEXES)) {
      await db.collection(collection).createIndexes(indexes.map((index) => ({ ...index })));
    }
  }

  async #writeBatch(batch: PendingWrites): Promise<void> {
    const repos = this.#repositories!;
    await repos.poses.write(batch.frames);
    await repos.events.write(batch.events);
    await repos.metrics.write(batch.metrics);
    await repos.sensing.write(batch.sensing);
  }

  #context(): MongoContext {
    const storage = this;
    return {
      get client() {
        if (!storage.#client) throw StorageErrors.closed(storage.kind);
        return storage.#client;
      },
      get db() {
        if (!storage.#db) throw StorageErrors.closed(storage.kind);
        return storage.#db;
      },
      get buffer() {
        return storage.#buffer!;
      },
      ensureOpen: () => this.#ensureOpen(),
      beforeRead: async () => {
        this.#ensureOpen();
        if (this.#buffer!.buffered > 0) await this.#buffer!.flush();
      },
      privacy: () => this.privacy(),
      now: () => this.#now(),
      reserveSeq: async (series, count) => {
        const doc = await this.#db!.collection<{ _id: string; seq: number }>('counters').findOneAndUpdate({ _id: series }, { $inc: { seq: count } }, { upsert: true, returnDocument: 'after' });
        return doc!.seq - count + 1;
      },
      sealBody: (value) => {
        if (!this.privacy().enableEncryption) return value;
        if (!this.#options.sealer) throw StorageErrors.backend(this.kind, 'privacy.enableEncryption is on but no secret key is available');
        return SEALED_PREFIX + this.#options.sealer.seal(JSON.stringify(value));
      },
      openBody: <T>(stored: unknown): T => {
        if (typeof stored !== 'string' || !stored.startsWith(SEALED_PREFIX)) return stored as T;
        if (!this.#options.sealer) throw StorageErrors.backend(this.kind, 'a record is encrypted but no secret key is available');
        return JSON.parse(this.#options.sealer.open(stored.slice(SEALED_PREFIX.length))) as T;
      },
    };
  }

  #repos() {
    if (!this.#repositories) throw StorageErrors.closed(this.kind);
    return this.#repositories;
  }

  #ensureOpen(): void {
    if (!this.#db) throw StorageErrors.closed(this.kind);
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }
}
