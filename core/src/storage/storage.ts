import type { Alert, AnalyticsEvent } from '../types/analytics.js';
import type { PoseFrame } from '../types/pose.js';
import type { SensingFrame } from '../types/sensing.js';
import type { CursorPage, CursorRequest, Page, PageRequest } from './paging.js';
import type {
  AlertQuery,
  ApiKeyCreate,
  ApiKeyRecord,
  AvailableRange,
  EventQuery,
  FileCreate,
  FileQuery,
  FileRecord,
  FlowCreate,
  FlowPatch,
  FlowQuery,
  FlowRecord,
  FlowRevision,
  FlowUpdateOptions,
  JobQuery,
  JobRecord,
  JobSummaryRecord,
  JsonValue,
  MessageCreate,
  MessageQuery,
  MessageRecord,
  MetricQuery,
  MetricSample,
  PersonRecord,
  PoseAggregateQuery,
  PoseAggregateResult,
  PoseQuery,
  PrivacySettings,
  ProjectCreate,
  ProjectFields,
  ProjectQuery,
  ProjectRecord,
  RefreshTokenConsumption,
  RefreshTokenIssue,
  RefreshTokenRecord,
  RetentionReport,
  SensingQuery,
  SettingRecord,
  StoredAlert,
  StoredEvent,
  StoredPoseFrame,
  StoredSensingFrame,
  TrackQuery,
  TrackSummary,
  UserCreate,
  UserPatch,
  UserRecord,
} from './records.js';

/**
 * Pose frames and their per-person records: a time series per environment. Writes are
 * buffered (see `Storage.flush`); reads see every write made before them (a read flushes
 * the buffer first).
 */
export interface PoseRepository {
  /** Queue frames for writing; resolves once buffered, not once durable (call `Storage.flush`). */
  append(frames: PoseFrame[]): Promise<void>;
  /** The newest frame (optionally of one environment), persons filtered by minConfidence; null when none. */
  latest(query?: { environmentId?: string; minConfidence?: number }): Promise<StoredPoseFrame | null>;
  /** Frames in a time range, page/per_page (see `StoredPoseFrame` for filter semantics). */
  findFrames(query: PoseQuery, paging: PageRequest): Promise<Page<StoredPoseFrame>>;
  /** Frames in a time range, cursor paging. */
  scanFrames(query: PoseQuery, paging: CursorRequest): Promise<CursorPage<StoredPoseFrame>>;
  /** Flat per-person records, page/per_page (pose API convention B). */
  findRecords(query: PoseQuery, paging: PageRequest): Promise<Page<PersonRecord>>;
  /** Flat per-person records, cursor paging. */
  scanRecords(query: PoseQuery, paging: CursorRequest): Promise<CursorPage<PersonRecord>>;
  /** Earliest/latest stored frame of one environment, or across all when absent (then environmentId is '*'); null when nothing is stored. */
  availableRange(environmentId?: string): Promise<AvailableRange | null>;
  /** Available range of every environment that has data, sorted by id. */
  environments(): Promise<AvailableRange[]>;
  /** Bucketed summary for POST /pose/query (hourly_summary and custom intervals). */
  aggregate(query: PoseAggregateQuery): Promise<PoseAggregateResult>;
}

/** Tracks, summarised from person records that carry a track id (nothing to write). */
export interface TrackRepository {
  /** One track; null when no record carries the id in the range. */
  get(trackId: number, query?: TrackQuery & { includeTrajectory?: boolean }): Promise<TrackSummary | null>;
  /** Tracks seen in a range (no trajectories), most recently seen first. */
  list(query: TrackQuery, paging: PageRequest): Promise<Page<TrackSummary>>;
}

/** Analytics events (falls, intrusions, zone entries...). Writes are buffered like poses. */
export interface EventRepository {
  /** Queue events for writing (same durability as `poses.append`); an existing eventId is replaced. */
  append(events: AnalyticsEvent[]): Promise<void>;
  get(eventId: string): Promise<StoredEvent | null>;
  find(query: EventQuery, paging: PageRequest): Promise<Page<StoredEvent>>;
  scan(query: EventQuery, paging: CursorRequest): Promise<CursorPage<StoredEvent>>;
  /** Events per type in a range, e.g. { fall_detection: 3 }. */
  countByType(query: EventQuery): Promise<Record<string, number>>;
}

/** Alerts raised to people. Written directly (durable when the promise resolves). */
export interface AlertRepository {
  /** Store alerts; an existing alertId is replaced (its acknowledgement kept). */
  append(alerts: Alert[]): Promise<void>;
  get(alertId: string): Promise<StoredAlert | null>;
  find(query: AlertQuery, paging: PageRequest): Promise<Page<StoredAlert>>;
  scan(query: AlertQuery, paging: CursorRequest): Promise<CursorPage<StoredAlert>>;
  /** Mark acknowledged; null when the alert does not exist. Acknowledging twice keeps the first. */
  acknowledge(alertId: string, by: string, at?: number): Promise<StoredAlert | null>;
}

/** System metrics history. Writes are buffered like poses. */
export interface MetricRepository {
  append(samples: MetricSample[]): Promise<void>;
  find(query: MetricQuery, paging: PageRequest): Promise<Page<MetricSample>>;
  scan(query: MetricQuery, paging: CursorRequest): Promise<CursorPage<MetricSample>>;
  /** Newest sample of a kind (and source); null when none. */
  latest(kind: string, source?: string): Promise<MetricSample | null>;
}

/**
 * Sensing frames (one per room or link and second, from `sense.room` / `sense.link`): a time
 * series per environment, kept as long as pose frames (`dataRetentionDays`). Writes are buffered
 * like poses; reads see every write made before them.
 */
export interface SensingRepository {
  /** Queue frames for writing (same durability as `poses.append`). */
  append(frames: SensingFrame[]): Promise<void>;
  /** Frames in a time range, page/per_page, ordered by time (then by arrival). */
  find(query: SensingQuery, paging: PageRequest): Promise<Page<StoredSensingFrame>>;
  /** Frames in a time range, cursor paging. */
  scan(query: SensingQuery, paging: CursorRequest): Promise<CursorPage<StoredSensingFrame>>;
  /** The newest frame (optionally of one environment and scope); null when none. */
  latest(query?: Pick<SensingQuery, 'environmentId' | 'scope'>): Promise<StoredSensingFrame | null>;
}

/** Flows: unique name per user, optimistic concurrency by revision, every version kept in `revisions`. */
export interface FlowRepository {
  /** Create at revision 1; StorageErrors.duplicate when the user has a flow of that name (or endpoint name, or id). */
  create(flow: FlowCreate, options?: { author?: string | null; message?: string | null }): Promise<FlowRecord>;
  get(id: string): Promise<FlowRecord | null>;
  /** By exact name within a user's flows (userId null: flows with no user). */
  getByName(userId: string | null, name: string): Promise<FlowRecord | null>;
  /** By endpoint name within a user's flows (userId null: flows with no user). */
  getByEndpointName(userId: string | null, endpointName: string): Promise<FlowRecord | null>;
  /** Sorted by updatedAt, newest first. */
  list(query: FlowQuery, paging: PageRequest): Promise<Page<FlowRecord>>;
  /**
   * Apply a patch, bump the revision, save the new version in `revisions`. Errors:
   * notFound, conflict (expectedRevision given and different), duplicate (name/endpoint taken).
   */
  update(id: string, patch: FlowPatch, options?: FlowUpdateOptions): Promise<FlowRecord>;
  /** Delete a flow and its revisions; false when it did not exist. */
  delete(id: string): Promise<boolean>;
}

/** Saved flow versions (written by `flows.create`/`flows.update`). */
export interface RevisionRepository {
  /** Newest first. */
  list(flowId: string, paging: PageRequest): Promise<Page<FlowRevision>>;
  get(flowId: string, revision: number): Promise<FlowRevision | null>;
}

/** Projects (Langflow folders): unique name per user. */
export interface ProjectRepository {
  create(project: ProjectCreate): Promise<ProjectRecord>;
  get(id: string): Promise<ProjectRecord | null>;
  getByName(userId: string | null, name: string): Promise<ProjectRecord | null>;
  /** Sorted by name. */
  list(query: ProjectQuery, paging: PageRequest): Promise<Page<ProjectRecord>>;
  /** notFound or duplicate errors as for flows. */
  update(id: string, patch: Partial<ProjectFields>): Promise<ProjectRecord>;
  /** Delete a project; its flows are deleted ('delete') or moved out of it ('detach', default). False when it did not exist. */
  delete(id: string, options?: { flows?: 'delete' | 'detach' }): Promise<boolean>;
}

/** Chat/run messages. Written directly. */
export interface MessageRepository {
  /** Store a message (id and timestamp made when absent). */
  append(message: MessageCreate): Promise<MessageRecord>;
  get(id: string): Promise<MessageRecord | null>;
  find(query: MessageQuery, paging: PageRequest): Promise<Page<MessageRecord>>;
  update(id: string, patch: Partial<Omit<MessageRecord, 'id'>>): Promise<MessageRecord>;
  /** Delete by ids; returns how many existed. */
  delete(ids: string[]): Promise<number>;
  /** Delete every message of a session; returns how many. */
  deleteSession(sessionId: string): Promise<number>;
  /** Distinct session ids (of a flow), newest activity first. */
  sessions(flowId?: string): Promise<string[]>;
}

/** Uploaded file metadata. */
export interface FileRepository {
  create(file: FileCreate): Promise<FileRecord>;
  get(id: string): Promise<FileRecord | null>;
  /** Newest first. */
  list(query: FileQuery, paging: PageRequest): Promise<Page<FileRecord>>;
  update(id: string, patch: Partial<Pick<FileRecord, 'name' | 'path' | 'size' | 'mimeType' | 'sha256' | 'flowId'>>): Promise<FileRecord>;
  delete(id: string): Promise<boolean>;
}

/** Users. Passwords go in, never come out: storage hashes them (scrypt) and verifies. */
export interface UserRepository {
  /** duplicate when the username (case-insensitive) is taken. */
  create(user: UserCreate): Promise<UserRecord>;
  get(id: string): Promise<UserRecord | null>;
  getByUsername(username: string): Promise<UserRecord | null>;
  /** Sorted by username. */
  list(paging: PageRequest): Promise<Page<UserRecord>>;
  update(id: string, patch: UserPatch): Promise<UserRecord>;
  setPassword(id: string, password: string): Promise<void>;
  /** The user when the username exists, is active and the password matches; otherwise null (constant-time compare). */
  verifyPassword(username: string, password: string): Promise<UserRecord | null>;
  /** Delete a user with their API keys and refresh tokens. */
  delete(id: string): Promise<boolean>;
  count(): Promise<number>;
}

/** API keys, stored as SHA-256 hashes of high-entropy keys (fast lookup on every request). */
export interface ApiKeyRepository {
  /** Create a key; the clear key is returned here once and never again. */
  create(input: ApiKeyCreate): Promise<{ record: ApiKeyRecord; key: string }>;
  /** The key's record when it exists, is not revoked or expired; updates lastUsedAt. */
  verify(key: string, now?: number): Promise<ApiKeyRecord | null>;
  get(id: string): Promise<ApiKeyRecord | null>;
  /** A user's keys, newest first. */
  list(userId: string): Promise<ApiKeyRecord[]>;
  revoke(id: string, at?: number): Promise<boolean>;
  delete(id: string): Promise<boolean>;
}

/** Refresh tokens, stored as SHA-256 hashes; single use with rotation families. */
export interface RefreshTokenRepository {
  /** Issue a token; the clear token is returned here once. */
  issue(input: RefreshTokenIssue): Promise<{ record: RefreshTokenRecord; token: string }>;
  /** Use a token once (atomically). Reusing a used token revokes its family. */
  consume(token: string, now?: number): Promise<RefreshTokenConsumption>;
  /** Revoke one token's family (logout). */
  revokeFamily(familyId: string, at?: number): Promise<number>;
  /** Revoke every token of a user. */
  revokeUser(userId: string, at?: number): Promise<number>;
  /** Delete tokens expired before `now`; returns how many. */
  purgeExpired(now?: number): Promise<number>;
}

/** Generic key/value JSON documents by namespace (MCP settings, webhooks, studio prefs). */
export interface SettingRepository {
  get<T extends JsonValue = JsonValue>(namespace: string, key: string): Promise<SettingRecord<T> | null>;
  /** Create or replace; with expectedRevision (0 = must not exist) it fails with conflict when different. */
  set<T extends JsonValue>(namespace: string, key: string, value: T, options?: { expectedRevision?: number }): Promise<SettingRecord<T>>;
  delete(namespace: string, key: string): Promise<boolean>;
  /** Every setting of a namespace, sorted by key. */
  list(namespace: string): Promise<SettingRecord[]>;
}

/**
 * Jobs (flows run as jobs), so the jobs list and each job's log survive a restart. Written
 * directly (durable when the promise resolves). Kept by count, not by age: `keepNewest`.
 */
export interface JobRepository {
  /** Create a job, or replace the one with its id (its place in the list stays). StorageErrors.invalid for a malformed record. */
  save(job: JobRecord): Promise<void>;
  get(id: string): Promise<JobRecord | null>;
  /** Newest first: by createdAt, ties in reverse order of first save; without outputs and log. */
  list(query: JobQuery, paging: PageRequest): Promise<Page<JobSummaryRecord>>;
  /** Delete every job but the newest `keep` (same order as `list`); returns how many were deleted. */
  keepNewest(keep: number): Promise<number>;
}

/** Health of a storage for /health/detailed. */
export interface StorageHealth {
  status: 'healthy' | 'degraded' | 'unhealthy';
  /** Backend figures: file/url, pool 'used/max', buffered records, last flush... */
  details: Record<string, unknown>;
}

/**
 * The storage service every persistent feature reads and writes through. Storage plugins
 * (plugin-sqlite, plugin-mongodb) implement it and resolve it through `hooks.resolveStorage`;
 * every implementation passes the shared conformance suite (@wiflow/storage-conformance).
 * All times are ms since the epoch. Errors are StorageErrors.
 */
export interface Storage {
  /** Storage kind, e.g. 'sqlite'. */
  readonly kind: string;
  readonly poses: PoseRepository;
  readonly tracks: TrackRepository;
  readonly events: EventRepository;
  readonly alerts: AlertRepository;
  readonly metrics: MetricRepository;
  readonly sensing: SensingRepository;
  readonly flows: FlowRepository;
  readonly revisions: RevisionRepository;
  readonly projects: ProjectRepository;
  readonly messages: MessageRepository;
  readonly files: FileRepository;
  readonly users: UserRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly refreshTokens: RefreshTokenRepository;
  readonly settings: SettingRepository;
  readonly jobs: JobRepository;
  /** Open connections, run migrations. */
  open(): Promise<void>;
  /**
   * Write everything buffered (poses, events, metrics) and wait until it is durable. What
   * was appended but not yet flushed may be lost in a crash; the backend documents its window.
   */
  flush(): Promise<void>;
  /** Flush and close. */
  close(): Promise<void>;
  /** Health figures for /health/detailed. */
  health(): Promise<StorageHealth>;
  /** The privacy settings in force. */
  privacy(): PrivacySettings;
  /** Delete time-series data (poses, events, alerts, metrics) older than the retention period before `now`. */
  applyRetention(now?: number): Promise<RetentionReport>;
}
