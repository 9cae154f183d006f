import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import {
  createIdentityRepositories,
  SEALED_SECRET_PREFIX,
  StorageErrors,
  openNodeSecrets,
  sealNodeSecrets,
  type AlertRepository,
  type FlowRecord,
  type ApiKeyRepository,
  type EventRepository,
  type FileRepository,
  type FlowRepository,
  type MessageRepository,
  type MetricRepository,
  type PoseRepository,
  type PrivacySettings,
  type ProjectRepository,
  type RefreshTokenRepository,
  type RetentionReport,
  type RevisionRepository,
  type SensingRepository,
  type SettingRepository,
  type JobRepository,
  type Storage,
  type StorageHealth,
  type TrackRepository,
  type UserRepository,
} from '@wiflow/core';
import type { SqliteContext } from './context.js';
import { SqliteFileRepository, SqliteMessageRepository } from './repositories/content-repositories.js';
import { SqliteFlowRepository, SqliteProjectRepository, SqliteRevisionRepository } from './repositories/flow-repositories.js';
import { SqliteJobRepository } from './repositories/job-repository.js';
import { SqliteApiKeyStore, SqliteRefreshTokenStore, SqliteSettingRepository, SqliteUserStore } from './repositories/identity-repositories.js';
import { SqlitePoseRepository } from './repositories/pose-repository.js';
import { SqliteAlertRepository, SqliteEventRepository, SqliteMetricRepository, SqliteSensingRepository } from './repositories/time-series-repositories.js';
import { SqliteTrackRepository } from './repositories/track-repository.js';
import { SCHEMA_VERSION, migrate } from './schema.js';
import { WriteBuffer, type PendingWrites } from './writer/write-buffer.js';
import { WriteBatchBuilder } from './writer/write-statements.js';
import { WriterThread } from './writer/writer-thread.js';

/** Seals and opens strings (the runtime's SecretBox fits). */
export interface BodySealer {
  seal(plain: string): string;
  open(sealed: string): string;
}

/** Options of a SQLite storage. */
export interface SqliteStorageOptions {
  /** Database file (created with its directory). */
  file: string;
  /** Privacy settings in force, read on every write and retention run (default: 30 days, no anonymisation). */
  privacy?: () => PrivacySettings;
  /** Longest a buffered record waits before it is written (ms, default 100). */
  flushIntervalMs?: number;
  /** Buffered records that trigger a write at once (default 10,000). */
  flushMaxRecords?: number;
  /** Records held at most while writes fail (default 1,000,000). */
  maxBufferedRecords?: number;
  /** How often retention runs while open (ms, default one hour; 0 = only on open and on request). */
  retentionIntervalMs?: number;
  /** Seals bodies at rest when privacy.enableEncryption is on, and node secrets in flows always. */
  sealer?: BodySealer;
  /** Secret config fields of a node type (the registry's `secrets`): sealed in stored flows whatever the privacy settings. */
  secretFieldsOf?: (nodeType: string) => readonly string[];
  /** Where background errors go (default console.error). */
  onError?: (error: unknown) => void;
  /** Clock (ms), for tests. */
  now?: () => number;
}

const DAY_MS = 86_400_000;
const SEALED_PREFIX = 'sealed:';
const DEFAULT_PRIVACY: PrivacySettings = { dataRetentionDays: 30, anonymizeData: false, enableEncryption: false };

/**
 * wiflow storage in one SQLite file: WAL journal, synchronous=FULL commits. Time-series
 * records (pose frames, events, metrics, sensing frames) are batched in memory, encoded on the appending
 * thread every `flushIntervalMs` (or `flushMaxRecords`) and committed in one transaction by a
 * writer thread with its own connection; everything else is written at once on this thread.
 * Crash window: records appended but not yet committed (at most `flushIntervalMs` worth plus
 * the batches in flight, or `flushMaxRecords`) are lost on a crash; after `flush()` resolves
 * they are on disk (fsynced).
 */
export class SqliteStorage implements Storage {
  readonly kind = 'sqlite';
  readonly file: string;
  readonly #options: SqliteStorageOptions;
  #db: Database | null = null;
  #buffer: WriteBuffer | null = null;
  #writer: WriterThread | null = null;
  #retentionTimer: NodeJS.Timeout | null = null;
  #repositories: ReturnType<SqliteStorage['createRepositories']> | null = null;
  #lastRetention: RetentionReport | null = null;
  #migratedFrom = 0;

  constructor(options: SqliteStorageOptions) {
    if (!options || typeof options.file !== 'string' || options.file === '') throw StorageErrors.invalid('SqliteStorage needs a file');
    this.#options = options;
    this.file = path.resolve(options.file);
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

  /** The open connection (for backups and diagnostics). */
  get database(): Database {
    if (!this.#db) throw StorageErrors.closed(this.kind);
    return this.#db;
  }

  async open(): Promise<void> {
    if (this.#db) return;
    mkdirSync(path.dirname(this.file), { recursive: true });
    let db: Database | undefined;
    try {
      ownerOnly(this.file);
      db = new BetterSqlite3(this.file);
      // 16 KiB pages for a new file (no effect on an existing one): the clustered pose tables hold
      // ~600-byte rows, which want pages of 20 rows or more.
      db.pragma('page_size = 16384');
      db.pragma('journal_mode = WAL');
      // FULL: each commit (one per batch) is fsynced, so what flush() acknowledged survives power loss too.
      db.pragma('synchronous = FULL');
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
      db.pragma('cache_size = -65536');
      db.pragma('temp_store = MEMORY');
      // SQLite creates -wal and -shm with the database file's mode; older installs' files are tightened here too.
      for (const companion of [`${this.file}-wal`, `${this.file}-shm`]) if (existsSync(companion)) chmodSync(companion, 0o600);
      this.#migratedFrom = migrate(db).from;
      this.#writer = await WriterThread.start({ file: this.file, synchronous: 'FULL' });
    } catch (error) {
      db?.close();
      throw StorageErrors.backend(this.kind, `cannot open ${this.file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    this.#db = db;
    const onError = this.#options.onError ?? ((error: unknown) => console.error('[wiflow sqlite] background write failed:', error));
    const buffer = new WriteBuffer({
      flushIntervalMs: this.#options.flushIntervalMs ?? 100,
      flushMaxRecords: this.#options.flushMaxRecords ?? 10_000,
      maxBufferedRecords: this.#options.maxBufferedRecords ?? 1_000_000,
      write: (batch) => this.#writeBatch(batch),
      onError,
    });
    this.#buffer = buffer;
    this.#repositories = this.createRepositories();
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
    if (!this.#db) return;
    if (this.#retentionTimer) clearInterval(this.#retentionTimer);
    this.#retentionTimer = null;
    try {
      await this.#buffer!.flush();
    } finally {
      this.#buffer!.stop();
      await this.#writer?.close();
      this.#writer = null;
      // Fold the WAL back into the main file so a closed database is one file.
      try {
        this.#db.pragma('wal_checkpoint(TRUNCATE)');
      } catch {
        // A checkpoint that cannot run now runs on the next open.
      }
      this.#db.close();
      this.#db = null;
      this.#buffer = null;
      this.#repositories = null;
    }
  }

  async health(): Promise<StorageHealth> {
    if (!this.#db || !this.#buffer) return { status: 'unhealthy', details: { kind: this.kind, file: this.file, open: false } };
    const db = this.#db;
    const pageCount = db.pragma('page_count', { simple: true }) as number;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const buffer = this.#buffer;
    const degraded = buffer.lastError !== null || buffer.dropped > 0;
    return {
      status: degraded ? 'degraded' : 'healthy',
      details: {
        kind: this.kind,
        file: this.file,
        open: true,
        schemaVersion: SCHEMA_VERSION,
        migratedFrom: this.#migratedFrom,
        journalMode: db.pragma('journal_mode', { simple: true }),
        sizeBytes: pageCount * pageSize,
        // Two connections in this process: readers and direct writes here, time-series batches in the writer thread.
        connectionPool: '2/2',
        bufferedRecords: buffer.buffered,
        writtenRecords: buffer.written,
        droppedRecords: buffer.dropped,
        failedWrites: buffer.failures,
        lastFlushAt: buffer.lastFlushAt,
        lastFlushMs: buffer.lastFlushMs,
        lastError: buffer.lastError,
        flushIntervalMs: this.#options.flushIntervalMs ?? 100,
        flushMaxRecords: this.#options.flushMaxRecords ?? 10_000,
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
    const days = this.privacy().dataRetentionDays;
    const cutoff = now - days * DAY_MS;
    const report: RetentionReport = { cutoff, poseFrames: 0, personRecords: 0, events: 0, alerts: 0, metrics: 0, sensingFrames: 0 };
    const db = this.#db!;
    const poses = this.#repositories!.poses;
    const poseTables: [keyof Omit<RetentionReport, 'cutoff'>, string][] = [['poseFrames', 'pose_frames'], ['personRecords', 'pose_persons']];
    for (const [key, table] of poseTables) {
      // By environment, so each slice is a range of the clustered key.
      const statement = db.prepare(`DELETE FROM ${table} WHERE (environment_id, ts, seq) IN (SELECT environment_id, ts, seq FROM ${table} WHERE environment_id = ? AND ts < ? LIMIT 20000)`);
      for (const environmentId of poses.environmentIds) {
        for (;;) {
          const changes = statement.run(environmentId, cutoff).changes;
          report[key] += changes;
          if (changes < 20000) break;
        }
      }
    }
    const tables: [keyof Omit<RetentionReport, 'cutoff'>, string][] = [['events', 'events'], ['alerts', 'alerts'], ['metrics', 'metrics'], ['sensingFrames', 'sensing_frames']];
    for (const [key, table] of tables) {
      // Delete in slices so a large purge never holds the write lock for long.
      const statement = db.prepare(`DELETE FROM ${table} WHERE seq IN (SELECT seq FROM ${table} WHERE ts < ? LIMIT 20000)`);
      for (;;) {
        const changes = statement.run(cutoff).changes;
        report[key] += changes;
        if (changes < 20000) break;
      }
    }
    db.transaction(() => poses.rollups.prune(cutoff))();
    this.#lastRetention = report;
    return report;
  }

  /** Copy the live database to `target` (online; others keep writing). */
  async backup(target: string, onProgress?: (progress: { totalPages: number; remainingPages: number }) => void): Promise<{ file: string; totalPages: number }> {
    this.#ensureOpen();
    await this.#buffer!.flush();
    const file = path.resolve(target);
    if (file === this.file) throw StorageErrors.invalid('the backup target is the database itself');
    mkdirSync(path.dirname(file), { recursive: true });
    let totalPages = 0;
    await this.#db!.backup(file, {
      progress: ({ totalPages: total, remainingPages }) => {
        totalPages = total;
        onProgress?.({ totalPages: total, remainingPages });
        return 200;
      },
    });
    return { file, totalPages };
  }

  /** Build the repositories over the open connection. */
  protected createRepositories() {
    const ctx = this.#context();
    return {
      poses: new SqlitePoseRepository(ctx),
      tracks: new SqliteTrackRepository(ctx),
      events: new SqliteEventRepository(ctx),
      alerts: new SqliteAlertRepository(ctx),
      metrics: new SqliteMetricRepository(ctx),
      sensing: new SqliteSensingRepository(ctx),
      flows: new SqliteFlowRepository(ctx),
      revisions: new SqliteRevisionRepository(ctx),
      projects: new SqliteProjectRepository(ctx),
      messages: new SqliteMessageRepository(ctx),
      files: new SqliteFileRepository(ctx),
      ...createIdentityRepositories({ users: new SqliteUserStore(ctx), apiKeys: new SqliteApiKeyStore(ctx), refreshTokens: new SqliteRefreshTokenStore(ctx) }, () => ctx.now()),
      settings: new SqliteSettingRepository(ctx),
      jobs: new SqliteJobRepository(ctx),
    };
  }

  /** Encode a batch here and have the writer thread commit it. */
  #writeBatch(batch: PendingWrites): Promise<number> {
    const repos = this.#repositories!;
    const builder = new WriteBatchBuilder();
    if (batch.frames.length) repos.poses.encode(batch.frames, builder);
    if (batch.events.length) repos.events.encode(batch.events, builder);
    if (batch.metrics.length) repos.metrics.encode(batch.metrics, builder);
    if (batch.sensing.length) repos.sensing.encode(batch.sensing, builder);
    return this.#writer!.write(builder.batch, builder.buffers);
  }

  #context(): SqliteContext {
    const storage = this;
    const context: SqliteContext = {
      get db() {
        return storage.database;
      },
      get buffer() {
        return storage.#buffer!;
      },
      ensureOpen: () => this.#ensureOpen(),
      beforeRead: async () => {
        this.#ensureOpen();
        if (this.#buffer!.buffered > 0) await this.#buffer!.flush();
      },
      environments: () => [...this.#repositories!.poses.environmentIds],
      privacy: () => this.privacy(),
      now: () => this.#now(),
      sealBody: (value) => {
        const text = JSON.stringify(value);
        if (!this.privacy().enableEncryption) return text;
        if (!this.#options.sealer) throw StorageErrors.backend(this.kind, 'privacy.enableEncryption is on but no secret key is available');
        return SEALED_PREFIX + this.#options.sealer.seal(text);
      },
      openBody: <T>(text: string): T => {
        if (!text.startsWith(SEALED_PREFIX)) return JSON.parse(text) as T;
        if (!this.#options.sealer) throw StorageErrors.backend(this.kind, 'a record is encrypted but no secret key is available');
        return JSON.parse(this.#options.sealer.open(text.slice(SEALED_PREFIX.length))) as T;
      },
      sealFlow: (flow) => {
        const { sealer, secretFieldsOf } = this.#options;
        if (!sealer || !secretFieldsOf || !flow.data) return context.sealBody(flow);
        return context.sealBody({ ...flow, data: sealNodeSecrets(flow.data, secretFieldsOf, sealer) });
      },
      openFlow: (text) => {
        const flow = context.openBody<FlowRecord>(text);
        // Sealed secrets show in the stored text unless the whole body is sealed; only then is there anything to open.
        if (!flow.data || (!text.includes(SEALED_SECRET_PREFIX) && !text.startsWith(SEALED_PREFIX))) return flow;
        if (!this.#options.sealer) throw StorageErrors.backend(this.kind, 'a flow holds sealed secrets but no secret key is available');
        const onUnreadable = (nodeType: string, field: string) => this.#options.onError?.(new Error(`flow ${flow.id}: the ${field} secret of a ${nodeType} node cannot be opened with this secret key; it reads as null`));
        return { ...flow, data: openNodeSecrets(flow.data, this.#options.sealer, onUnreadable) as FlowRecord['data'] };
      },
    };
    return context;
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

/** Create the database file owner-only (0600) before SQLite opens it, and tighten an existing one: it holds users, key hashes and flows. */
function ownerOnly(file: string): void {
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  chmodSync(file, 0o600);
}
