import type { Alert, AnalyticsEvent, Severity } from '../types/analytics.js';
import type { Activity, BoundingBox, Keypoint, Person, PoseFrame } from '../types/pose.js';
import type { SensingFrame } from '../types/sensing.js';
import type { SortOrder, TimeRange } from './paging.js';

/** Any JSON value (what settings and free-form fields hold). */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

// ---------------------------------------------------------------------------------------
// Pose time series
// ---------------------------------------------------------------------------------------

/**
 * Filters shared by pose frame and person record queries. Times are ms since the epoch,
 * inclusive at both ends.
 */
export interface PoseQuery extends TimeRange {
  environmentId?: string;
  /** Only persons with this per-frame person id (never matches when anonymisation is on). */
  personId?: number;
  /** Only persons with this track id (never matches when anonymisation is on). */
  trackId?: number;
  /** Only persons with confidence >= this (0..1). */
  minConfidence?: number;
  /** Default 'asc' (oldest first). */
  order?: SortOrder;
}

/**
 * A stored pose frame as read back. Frame-level query semantics: without person filters
 * every frame in range is returned with all its persons (frames with no person included);
 * with any person filter (personId, trackId, minConfidence) `persons` holds only the
 * matching persons and frames left with none are omitted.
 */
export type StoredPoseFrame = Omit<PoseFrame, 'persons'> & { persons: StoredPerson[] };

/** A person as read back: `id` (and `trackId`) are null when it was stored with anonymisation on. */
export type StoredPerson = Omit<Person, 'id'> & { id: number | null };

/** One person in one frame, flat (the pose API's convention-B history record). */
export interface PersonRecord {
  timestamp: number;
  frameId: number;
  environmentId: string;
  /** Per-frame person id; null when stored with anonymisation on. */
  personId: number | null;
  /** Track id; null before tracking or when stored with anonymisation on. */
  trackId: number | null;
  confidence: number;
  boundingBox: BoundingBox;
  keypoints: Keypoint[];
  /** Floor position in metres. */
  position: { x: number; y: number };
  activity: Activity | null;
  /** The whole person as it was written (ids nulled when anonymised). */
  person: StoredPerson;
}

/** Earliest and latest stored pose timestamps (for POSE_DATA_NOT_FOUND answers). */
export interface AvailableRange {
  environmentId: string;
  /** Earliest frame timestamp (ms). */
  earliest: number;
  /** Latest frame timestamp (ms). */
  latest: number;
  frameCount: number;
}

/** The pose query endpoint's aggregation (POST /pose/query). */
export interface PoseAggregateQuery {
  /** Inclusive range (ms); both ends required. */
  start: number;
  end: number;
  environmentId?: string;
  /** Bucket width in ms; buckets are aligned to multiples of it since the epoch (UTC). Default 3,600,000 (hourly_summary). */
  intervalMs?: number;
  /** Person-level filter: only persons with confidence >= this count. */
  minConfidence?: number;
  /** Person-level filter: only persons whose activity is one of these count. */
  activities?: Activity[];
  /** Frame-level filter applied after the person filters: frames whose count of qualifying persons is within [min, max]. */
  personCount?: { min?: number; max?: number };
}

/** One bucket of a pose aggregation. Buckets with no qualifying frame are omitted. */
export interface PoseAggregateBucket {
  /** Bucket start (ms, aligned to the interval). */
  start: number;
  /** Frames in the bucket that passed the frame-level filter. */
  frameCount: number;
  /** Mean qualifying persons per frame. */
  avgPersonCount: number;
  /** Most qualifying persons in one frame. */
  maxPersonCount: number;
  /** Mean confidence of the qualifying person records; null when there were none. */
  avgConfidence: number | null;
  /** Qualifying person records in the bucket. */
  personRecords: number;
  /** Distinct non-null track ids among the qualifying persons. */
  uniqueTracks: number;
  /** Fraction (0..1) of qualifying person records per activity; a null activity counts as 'unknown'. */
  activities: Record<string, number>;
  /** Frames by their number of qualifying persons: { '0': 12, '1': 40, ... } (occupancy distribution). */
  framesByPersonCount: Record<string, number>;
}

/** Result of `poses.aggregate`. */
export interface PoseAggregateResult {
  buckets: PoseAggregateBucket[];
  /** Frames read to answer (for query_metadata.total_records_scanned). */
  recordsScanned: number;
}

// ---------------------------------------------------------------------------------------
// Tracks (derived from person records)
// ---------------------------------------------------------------------------------------

/** Query for one track or a list of tracks. */
export interface TrackQuery extends TimeRange {
  environmentId?: string;
}

/** One point of a track's trajectory. */
export interface TrajectoryPoint {
  timestamp: number;
  /** Bounding-box centre in the image plane. */
  centerX: number;
  centerY: number;
  /** Floor position in metres. */
  position: { x: number; y: number };
  confidence: number;
}

/** A track, summarised from the person records that carry its id. */
export interface TrackSummary {
  trackId: number;
  environmentId: string;
  /** Person id of the latest record. */
  personId: number | null;
  firstSeen: number;
  lastSeen: number;
  durationSeconds: number;
  totalFrames: number;
  averageConfidence: number;
  /** trackStatus of the latest record, or 'unknown' when the tracker gave none. */
  status: string;
  /**
   * Movement figures from floor positions: distance in m, speed in m/s, times in s. A step
   * counts as stationary when its speed is below 0.1 m/s.
   */
  statistics: { movementDistance: number; averageSpeed: number; timeStationary: number; timeMoving: number };
  /** Present only when asked for (`includeTrajectory`). */
  trajectory?: TrajectoryPoint[];
}

// ---------------------------------------------------------------------------------------
// Analytics events, alerts, system metrics
// ---------------------------------------------------------------------------------------

/** Query for analytics events. */
export interface EventQuery extends TimeRange {
  environmentId?: string;
  /** Event types, e.g. ['fall_detection']. */
  types?: string[];
  severities?: Severity[];
  trackId?: number;
  /** Producer prefix, e.g. 'healthcare.' matches 'healthcare.fall/hip-drop-v1'. */
  sourcePrefix?: string;
  /** Default 'asc'. */
  order?: SortOrder;
}

/** An analytics event as stored. */
export type StoredEvent = AnalyticsEvent;

/** An alert as stored, with its acknowledgement. */
export interface StoredAlert extends Alert {
  acknowledgedAt: number | null;
  acknowledgedBy: string | null;
}

/** Query for alerts. */
export interface AlertQuery extends TimeRange {
  environmentId?: string;
  alertTypes?: string[];
  severities?: Severity[];
  /** true: only acknowledged; false: only open; absent: both. */
  acknowledged?: boolean;
  /** Default 'asc'. */
  order?: SortOrder;
}

/** A sample of system metrics at one instant (GET /metrics history). */
export interface MetricSample {
  timestamp: number;
  /** Group of figures: 'performance', 'resources', 'business', or a plugin's own. */
  kind: string;
  /** Who measured, e.g. 'runtime' or a node id. */
  source: string;
  /** Named figures, e.g. { frames_per_second: 9.8, cpu_usage: 12.5 }. */
  values: Record<string, number>;
}

/** Query for metric samples. */
export interface MetricQuery extends TimeRange {
  kinds?: string[];
  source?: string;
  /** Default 'asc'. */
  order?: SortOrder;
}

// ---------------------------------------------------------------------------------------
// Sensing time series
// ---------------------------------------------------------------------------------------

/** Query for stored sensing frames (times are the frames' `time`, inclusive at both ends). */
export interface SensingQuery extends TimeRange {
  environmentId?: string;
  /** 'room' frames (sense.room) or 'link' frames (sense.link); absent: both. */
  scope?: SensingFrame['scope'];
  /** One link's frames, as 'tx>rx'. */
  link?: string;
  /** Default 'asc'. */
  order?: SortOrder;
}

/** A sensing frame as stored (the frame as it was appended). */
export type StoredSensingFrame = SensingFrame;

/** What retention removed. */
export interface RetentionReport {
  /** Everything older than this (ms) was removed. */
  cutoff: number;
  poseFrames: number;
  personRecords: number;
  events: number;
  alerts: number;
  metrics: number;
  /** Sensing frames removed. */
  sensingFrames: number;
}

/** The privacy settings storage honours (runtime config section `privacy`). */
export interface PrivacySettings {
  /** Time-series data older than this many days is deleted (>= 1). */
  dataRetentionDays: number;
  /** When on, person and track ids are never stored (written as null). */
  anonymizeData: boolean;
  /** When on, free-form flow data and message text are sealed at rest with the runtime's SecretBox (where the backend supports it). */
  enableEncryption: boolean;
}

// ---------------------------------------------------------------------------------------
// Flow service: flows, projects (folders), revisions, messages, files
// ---------------------------------------------------------------------------------------

/** Flow visibility (AccessTypeEnum). */
export type AccessType = 'PRIVATE' | 'PUBLIC';

/** The writable fields of a flow (FlowCreate / FlowUpdate in camelCase). */
export interface FlowFields {
  name: string;
  description: string | null;
  /** The graph `{ nodes, edges, viewport }` or null. */
  data: Record<string, unknown> | null;
  accessType: AccessType;
  actionName: string | null;
  actionDescription: string | null;
  /** Unique per user when set. */
  endpointName: string | null;
  folderId: string | null;
  fsPath: string | null;
  gradient: string | null;
  icon: string | null;
  iconBgColor: string | null;
  isComponent: boolean;
  locked: boolean;
  mcpEnabled: boolean;
  tags: string[];
  webhook: boolean;
}

/** A stored flow (FlowRead plus revision bookkeeping). */
export interface FlowRecord extends FlowFields {
  id: string;
  userId: string | null;
  createdAt: number;
  updatedAt: number;
  /** Starts at 1, +1 on every update. */
  revision: number;
}

/** Create a flow: `name` required, the rest default (null, false, [] and 'PRIVATE'). */
export type FlowCreate = Partial<FlowFields> & {
  name: string;
  /** Give an id (UUID) or let storage make one. */
  id?: string;
  userId?: string | null;
};

/** Fields to change on a flow; absent fields are kept. */
export type FlowPatch = Partial<FlowFields>;

/** Options of a flow update. */
export interface FlowUpdateOptions {
  /** Fail with StorageErrors.conflict unless the flow is at this revision. */
  expectedRevision?: number;
  /** Who made the change (user id), recorded on the revision. */
  author?: string | null;
  /** Why, recorded on the revision. */
  message?: string | null;
}

/** Query for flows. */
export interface FlowQuery {
  userId?: string | null;
  /** A folder id, or null for flows in no folder. */
  folderId?: string | null;
  isComponent?: boolean;
  mcpEnabled?: boolean;
  accessType?: AccessType;
  /** Case-insensitive substring of the name. */
  search?: string;
  /** Default true; false returns records with `data: null` (headers). */
  includeData?: boolean;
}

/** A saved version of a flow: the full record as it was after a create or an update. */
export interface FlowRevision {
  flowId: string;
  revision: number;
  createdAt: number;
  author: string | null;
  message: string | null;
  flow: FlowRecord;
}

/** The writable fields of a project (a Langflow folder). */
export interface ProjectFields {
  name: string;
  description: string | null;
  parentId: string | null;
  /**
   * Project MCP auth settings. Callers seal secret fields (oauth_client_secret) with the
   * runtime's SecretBox before storing; storage keeps what it is given.
   */
  authSettings: Record<string, unknown> | null;
}

/** A stored project. */
export interface ProjectRecord extends ProjectFields {
  id: string;
  userId: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Create a project; name unique per user. */
export type ProjectCreate = Partial<ProjectFields> & { name: string; id?: string; userId?: string | null };

/** Query for projects. */
export interface ProjectQuery {
  userId?: string | null;
  /** Parent id, or null for top-level projects. */
  parentId?: string | null;
}

/** A stored chat/run message (MessageRead in camelCase). */
export interface MessageRecord {
  id: string;
  flowId: string | null;
  sessionId: string;
  sender: string;
  senderName: string;
  text: string;
  category: string;
  contentBlocks: Record<string, unknown>[];
  contextId: string | null;
  edit: boolean;
  error: boolean;
  files: string[];
  properties: Record<string, unknown>;
  timestamp: number;
}

/** Create a message: sessionId, sender, senderName and text required. */
export type MessageCreate = Partial<MessageRecord> & { sessionId: string; sender: string; senderName: string; text: string };

/** Query for messages. */
export interface MessageQuery extends TimeRange {
  flowId?: string;
  sessionId?: string;
  sender?: string;
  senderName?: string;
  /** Default 'asc'. */
  order?: SortOrder;
}

/** Metadata of an uploaded file; the bytes live under the data directory. */
export interface FileRecord {
  id: string;
  userId: string | null;
  flowId: string | null;
  /** Display name. */
  name: string;
  /** Where the bytes are, relative to the data directory. */
  path: string;
  size: number;
  mimeType: string;
  /** Hex SHA-256 of the bytes, or null when not computed. */
  sha256: string | null;
  createdAt: number;
  updatedAt: number;
}

/** Create file metadata. */
export type FileCreate = Omit<FileRecord, 'id' | 'createdAt' | 'updatedAt' | 'userId' | 'flowId' | 'sha256'> & {
  id?: string;
  userId?: string | null;
  flowId?: string | null;
  sha256?: string | null;
};

/** Query for files. */
export interface FileQuery {
  userId?: string | null;
  flowId?: string | null;
}

// ---------------------------------------------------------------------------------------
// Identity: users, API keys, refresh tokens; settings
// ---------------------------------------------------------------------------------------

/** A user as read back (never the password or its hash). */
export interface UserRecord {
  id: string;
  /** Unique, compared case-insensitively. */
  username: string;
  roles: string[];
  isActive: boolean;
  isSuperuser: boolean;
  profile: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  lastLoginAt: number | null;
}

/** Create a user; storage hashes the password (scrypt, core `hashSecret`). */
export interface UserCreate {
  id?: string;
  username: string;
  password: string;
  roles?: string[];
  isActive?: boolean;
  isSuperuser?: boolean;
  profile?: Record<string, unknown>;
}

/** Fields to change on a user (password through `users.setPassword`). */
export type UserPatch = Partial<Pick<UserRecord, 'username' | 'roles' | 'isActive' | 'isSuperuser' | 'profile' | 'lastLoginAt'>>;

/** An API key as read back: the key itself is stored only as a hash. */
export interface ApiKeyRecord {
  id: string;
  userId: string;
  name: string;
  /** The first characters of the key, for people to recognise it. */
  prefix: string;
  scopes: string[];
  createdAt: number;
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** Create an API key. */
export interface ApiKeyCreate {
  userId: string;
  name: string;
  scopes?: string[];
  expiresAt?: number | null;
  /** A key to store (e.g. one given in the environment); otherwise storage generates one (`wf_` + 43 base64url chars). */
  key?: string;
}

/** A refresh token as read back: the token itself is stored only as a hash. */
export interface RefreshTokenRecord {
  id: string;
  userId: string;
  /** Tokens rotated from one login share a family; reuse of a used token revokes the family. */
  familyId: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  revokedAt: number | null;
}

/** Issue a refresh token. */
export interface RefreshTokenIssue {
  userId: string;
  expiresAt: number;
  /** Continue a family (rotation); absent starts a new one. */
  familyId?: string;
}

/** Outcome of consuming a refresh token. */
export type RefreshTokenConsumption =
  | { status: 'ok'; token: RefreshTokenRecord }
  | { status: 'invalid' }
  | { status: 'expired'; token: RefreshTokenRecord }
  | { status: 'revoked'; token: RefreshTokenRecord }
  /** The token was already used: its whole family is now revoked (likely theft). */
  | { status: 'reused'; token: RefreshTokenRecord };

/** A stored setting (generic key/value JSON document). */
export interface SettingRecord<T extends JsonValue = JsonValue> {
  namespace: string;
  key: string;
  value: T;
  updatedAt: number;
  /** Starts at 1, +1 on every set. */
  revision: number;
}

/** JobStatus of the flow service models, as stored. */
export type StoredJobStatus = 'queued' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'timed_out';

/** One event of a stored job's log (the job log's entry, its data JSON). */
export interface StoredJobEvent {
  /** 1-based, strictly increasing within a job; gaps where events were left out. */
  seq: number;
  event: string;
  data: JsonValue;
  timestamp: number;
}

/**
 * A job (a flow run as a job) as stored, so it survives a restart: status, times, outputs and
 * a bounded copy of its event log (core's job recorder decides the bounds; storage keeps what
 * it is given).
 */
export interface JobRecord {
  id: string;
  flowId: string | null;
  /** The flow's name when the job started (the flow may be renamed or deleted later). */
  flowName: string | null;
  userId: string | null;
  /**
   * The runtime that ran the job (stable per data directory): on start a runtime ends only its
   * own unfinished jobs, never those of another instance sharing the database.
   */
  runnerId: string | null;
  status: StoredJobStatus;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  error: string | null;
  /** The error's code when known, e.g. `WIFLOW_JOB_INTERRUPTED`, `WIFLOW_JOB_TIMED_OUT`. */
  errorCode: string | null;
  labels: Record<string, string>;
  outputs: Record<string, JsonValue>;
  events: StoredJobEvent[];
  /** How many events were left out of `events` (0: the log is complete). */
  eventsOmitted: number;
  /**
   * When the runtime running the job last wrote it (ms). While a job is unfinished its runtime
   * rewrites it at least every quarter of `jobs.leaseMs`; another instance ends a job it has not
   * heard of for a whole lease as interrupted. Absent in records of earlier versions (then
   * `startedAt`, else `createdAt`, stands in).
   */
  heartbeatAt?: number | null;
}

/** A job as `jobs.list` gives it: everything but its outputs and log (`jobs.get` has them), so a list stays small. */
export type JobSummaryRecord = Omit<JobRecord, 'outputs' | 'events'>;

/** Filters of `jobs.list` (absent: any). */
export interface JobQuery {
  userId?: string;
  flowId?: string;
  runnerId?: string;
  statuses?: StoredJobStatus[];
}
