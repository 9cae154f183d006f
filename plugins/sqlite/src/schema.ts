import type { Database } from 'better-sqlite3';
import { decodePerson, encodePerson, type PersonRow } from './person-codec.js';

/** One schema migration: applied once, in order, inside a transaction. */
export interface Migration {
  version: number;
  description: string;
  /** SQL, or a function for a step SQL cannot do (re-encoding rows). */
  up: string | ((db: Database) => void);
}

/**
 * Copy schema-3 person rows into the schema-4 table, re-encoding each (float64 keypoint blob
 * and JSON box/velocity → the float32 body), 10,000 rows at a time. Kept as they were, the
 * ~1.3 KB schema-3 rows would overflow the clustered table's pages (one overflow page each).
 */
function copyPersonsToSchema4(db: Database): void {
  const select = db.prepare('SELECT environment_id, ts, seq, frame_seq, frame_id, person_id, track_id, confidence, activity, track_status, x, y, cx, cy, keypoints, extra FROM pose_persons WHERE seq > ? ORDER BY seq LIMIT 10000').raw();
  const insert = db.prepare('INSERT INTO pose_persons_v4 (environment_id, ts, seq, frame_seq, frame_id, person_id, track_id, confidence, activity, track_status, x, y, cx, cy, body, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const rows = select.all(after) as PersonRow[];
    for (const row of rows) {
      const p = encodePerson(decodePerson(row));
      insert.run(row[0], row[1], row[2], row[3], row[4], p.personId, p.trackId, p.confidence, p.activity, p.trackStatus, p.x, p.y, p.cx, p.cy, p.body, p.extra);
    }
    if (rows.length < 10000) break;
    after = rows[rows.length - 1]![2];
  }
}

/**
 * The schema, as an ordered list of migrations. Never edit a released migration: add a new
 * one. Time-series tables keep the queried fields as columns and the rest of the record
 * compactly: since schema 4, clustered on (environment_id, ts, seq) with keypoints as a float32
 * binary body (see docs/storage.md); migration 4 re-encodes older rows into it.
 */
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    description: 'initial schema',
    up: `
      CREATE TABLE pose_frames (
        seq INTEGER PRIMARY KEY,
        environment_id TEXT NOT NULL,
        ts INTEGER NOT NULL,
        frame_id INTEGER NOT NULL,
        person_seq INTEGER NOT NULL,
        person_count INTEGER NOT NULL,
        processing_time_ms REAL,
        metadata TEXT NOT NULL,
        extra TEXT
      );
      CREATE INDEX pose_frames_env_ts ON pose_frames (environment_id, ts);
      CREATE INDEX pose_frames_ts ON pose_frames (ts);

      CREATE TABLE pose_persons (
        seq INTEGER PRIMARY KEY,
        frame_seq INTEGER NOT NULL,
        environment_id TEXT NOT NULL,
        ts INTEGER NOT NULL,
        frame_id INTEGER NOT NULL,
        person_id INTEGER,
        track_id INTEGER,
        confidence REAL NOT NULL,
        activity TEXT,
        track_status TEXT,
        x REAL NOT NULL,
        y REAL NOT NULL,
        cx REAL NOT NULL,
        cy REAL NOT NULL,
        keypoints BLOB,
        extra TEXT NOT NULL
      );
      CREATE INDEX pose_persons_env_ts ON pose_persons (environment_id, ts);
      CREATE INDEX pose_persons_ts ON pose_persons (ts);
      CREATE INDEX pose_persons_track ON pose_persons (track_id, ts) WHERE track_id IS NOT NULL;

      CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        event_id TEXT NOT NULL UNIQUE,
        ts INTEGER NOT NULL,
        environment_id TEXT NOT NULL,
        type TEXT NOT NULL,
        severity TEXT NOT NULL,
        track_id INTEGER,
        source TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX events_ts ON events (ts);
      CREATE INDEX events_env_ts ON events (environment_id, ts);

      CREATE TABLE alerts (
        seq INTEGER PRIMARY KEY,
        alert_id TEXT NOT NULL UNIQUE,
        ts INTEGER NOT NULL,
        environment_id TEXT NOT NULL,
        alert_type TEXT NOT NULL,
        severity TEXT NOT NULL,
        acknowledged_at INTEGER,
        acknowledged_by TEXT,
        body TEXT NOT NULL
      );
      CREATE INDEX alerts_ts ON alerts (ts);

      CREATE TABLE metrics (
        seq INTEGER PRIMARY KEY,
        ts INTEGER NOT NULL,
        kind TEXT NOT NULL,
        source TEXT NOT NULL,
        metric_values TEXT NOT NULL
      );
      CREATE INDEX metrics_ts ON metrics (ts);
      CREATE INDEX metrics_kind_ts ON metrics (kind, source, ts);

      CREATE TABLE projects (
        id TEXT PRIMARY KEY,
        user_key TEXT NOT NULL,
        parent_id TEXT,
        name TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE UNIQUE INDEX projects_user_name ON projects (user_key, name);

      CREATE TABLE flows (
        id TEXT PRIMARY KEY,
        user_key TEXT NOT NULL,
        name TEXT NOT NULL,
        endpoint_name TEXT,
        folder_id TEXT,
        is_component INTEGER NOT NULL,
        mcp_enabled INTEGER NOT NULL,
        access_type TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        revision INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE UNIQUE INDEX flows_user_name ON flows (user_key, name);
      CREATE UNIQUE INDEX flows_user_endpoint ON flows (user_key, endpoint_name) WHERE endpoint_name IS NOT NULL;
      CREATE INDEX flows_folder ON flows (folder_id);
      CREATE INDEX flows_updated ON flows (updated_at);

      CREATE TABLE flow_revisions (
        flow_id TEXT NOT NULL,
        revision INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        author TEXT,
        message TEXT,
        body TEXT NOT NULL,
        PRIMARY KEY (flow_id, revision)
      ) WITHOUT ROWID;

      CREATE TABLE messages (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        flow_id TEXT,
        session_id TEXT NOT NULL,
        sender TEXT NOT NULL,
        sender_name TEXT NOT NULL,
        ts INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX messages_session ON messages (session_id, ts);
      CREATE INDEX messages_flow ON messages (flow_id, ts);

      CREATE TABLE files (
        id TEXT PRIMARY KEY,
        user_id TEXT,
        flow_id TEXT,
        created_at INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX files_user ON files (user_id, created_at);

      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        username TEXT NOT NULL COLLATE NOCASE UNIQUE,
        password_hash TEXT NOT NULL,
        body TEXT NOT NULL
      );

      CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        key_hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX api_keys_user ON api_keys (user_id);

      CREATE TABLE refresh_tokens (
        id TEXT PRIMARY KEY,
        user_id TEXT NOT NULL,
        family_id TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        used_at INTEGER,
        revoked_at INTEGER
      );
      CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
      CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);

      CREATE TABLE settings (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        value TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        revision INTEGER NOT NULL,
        PRIMARY KEY (namespace, key)
      ) WITHOUT ROWID;
    `,
  },
  {
    version: 2,
    description: 'per-minute pose counts for fast history totals',
    // Floor to the minute, also for timestamps before 1970 (SQLite's integer division truncates toward zero).
    up: `
      CREATE TABLE pose_counts (
        environment_id TEXT NOT NULL,
        minute INTEGER NOT NULL,
        frames INTEGER NOT NULL,
        persons INTEGER NOT NULL,
        PRIMARY KEY (environment_id, minute)
      ) WITHOUT ROWID;
      INSERT INTO pose_counts (environment_id, minute, frames, persons)
        SELECT environment_id, (ts / 60000 - (ts < 0 AND ts % 60000 != 0)) * 60000 AS minute, COUNT(*), SUM(person_count)
        FROM pose_frames GROUP BY environment_id, minute;
    `,
  },
  {
    version: 3,
    description: 'per-frame person summary for aggregation without reading person rows',
    // Frames written before this keep NULL and are aggregated from their person rows.
    up: 'ALTER TABLE pose_frames ADD COLUMN person_summary BLOB;',
  },
  {
    version: 4,
    description: 'clustered pose tables (environment, ts, seq), float32 keypoint bodies, deduplicated frame metadata, per-minute rollups',
    // Rows are copied once into the new tables: persons re-encoded (keypoints rounded to float32
    // like new ones), frame metadata deduplicated into pose_metadata, rollups built from the rows.
    up: (db) => {
      db.exec(`
      CREATE TABLE pose_metadata (id INTEGER PRIMARY KEY, body TEXT NOT NULL UNIQUE);
      INSERT INTO pose_metadata (body) SELECT DISTINCT metadata FROM pose_frames;

      CREATE TABLE pose_frames_v4 (
        environment_id TEXT NOT NULL,
        ts INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        frame_id INTEGER NOT NULL,
        person_seq INTEGER NOT NULL,
        person_count INTEGER NOT NULL,
        processing_time_ms REAL,
        metadata_id INTEGER NOT NULL,
        csi_quality REAL,
        link_count INTEGER,
        extra TEXT,
        person_summary BLOB,
        PRIMARY KEY (environment_id, ts, seq)
      ) WITHOUT ROWID;
      INSERT INTO pose_frames_v4 (environment_id, ts, seq, frame_id, person_seq, person_count, processing_time_ms, metadata_id, extra, person_summary)
        SELECT f.environment_id, f.ts, f.seq, f.frame_id, f.person_seq, f.person_count, f.processing_time_ms, m.id, f.extra, f.person_summary
        FROM pose_frames f JOIN pose_metadata m ON m.body = f.metadata;

      CREATE TABLE pose_persons_v4 (
        environment_id TEXT NOT NULL,
        ts INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        frame_seq INTEGER NOT NULL,
        frame_id INTEGER NOT NULL,
        person_id INTEGER,
        track_id INTEGER,
        confidence REAL NOT NULL,
        activity TEXT,
        track_status TEXT,
        x REAL NOT NULL,
        y REAL NOT NULL,
        cx REAL NOT NULL,
        cy REAL NOT NULL,
        body BLOB,
        extra TEXT,
        PRIMARY KEY (environment_id, ts, seq)
      ) WITHOUT ROWID;
      `);
      copyPersonsToSchema4(db);
      db.exec(`
      CREATE TABLE pose_sequence (name TEXT PRIMARY KEY, next INTEGER NOT NULL) WITHOUT ROWID;
      INSERT INTO pose_sequence (name, next) VALUES
        ('frame', (SELECT COALESCE(MAX(seq), 0) + 1 FROM pose_frames)),
        ('person', (SELECT COALESCE(MAX(seq), 0) + 1 FROM pose_persons));

      DROP TABLE pose_frames;
      DROP TABLE pose_persons;
      ALTER TABLE pose_frames_v4 RENAME TO pose_frames;
      ALTER TABLE pose_persons_v4 RENAME TO pose_persons;
      -- Track queries: (track_id) plus the clustered key gives (track_id, environment_id, ts, seq).
      CREATE INDEX pose_persons_track ON pose_persons (track_id) WHERE track_id IS NOT NULL;

      CREATE TABLE pose_environments (environment_id TEXT PRIMARY KEY) WITHOUT ROWID;
      INSERT INTO pose_environments SELECT DISTINCT environment_id FROM pose_counts;

      CREATE TABLE pose_minutes (
        environment_id TEXT NOT NULL,
        minute INTEGER NOT NULL,
        frames INTEGER NOT NULL,
        persons INTEGER NOT NULL,
        max_persons INTEGER NOT NULL,
        confidence_sum REAL NOT NULL,
        PRIMARY KEY (environment_id, minute)
      ) WITHOUT ROWID;
      INSERT INTO pose_minutes (environment_id, minute, frames, persons, max_persons, confidence_sum)
        SELECT environment_id, (ts / 60000 - (ts < 0 AND ts % 60000 != 0)) * 60000 AS minute, COUNT(*), SUM(person_count), MAX(person_count), 0
        FROM pose_frames GROUP BY environment_id, minute;
      UPDATE pose_minutes SET confidence_sum = COALESCE((SELECT SUM(p.confidence) FROM pose_persons p
        WHERE p.environment_id = pose_minutes.environment_id AND p.ts >= pose_minutes.minute AND p.ts < pose_minutes.minute + 60000), 0);
      DROP TABLE pose_counts;

      CREATE TABLE pose_minute_occupancy (
        environment_id TEXT NOT NULL,
        minute INTEGER NOT NULL,
        person_count INTEGER NOT NULL,
        frames INTEGER NOT NULL,
        PRIMARY KEY (environment_id, minute, person_count)
      ) WITHOUT ROWID;
      INSERT INTO pose_minute_occupancy SELECT environment_id, (ts / 60000 - (ts < 0 AND ts % 60000 != 0)) * 60000 AS minute, person_count, COUNT(*)
        FROM pose_frames GROUP BY environment_id, minute, person_count;

      CREATE TABLE pose_minute_activities (
        environment_id TEXT NOT NULL,
        minute INTEGER NOT NULL,
        activity TEXT NOT NULL,
        persons INTEGER NOT NULL,
        PRIMARY KEY (environment_id, minute, activity)
      ) WITHOUT ROWID;
      INSERT INTO pose_minute_activities SELECT environment_id, (ts / 60000 - (ts < 0 AND ts % 60000 != 0)) * 60000 AS minute, COALESCE(activity, 'unknown') AS act, COUNT(*)
        FROM pose_persons GROUP BY environment_id, minute, act;

      CREATE TABLE pose_minute_tracks (
        environment_id TEXT NOT NULL,
        minute INTEGER NOT NULL,
        track_id INTEGER NOT NULL,
        PRIMARY KEY (environment_id, minute, track_id)
      ) WITHOUT ROWID;
      INSERT INTO pose_minute_tracks SELECT DISTINCT environment_id, (ts / 60000 - (ts < 0 AND ts % 60000 != 0)) * 60000, track_id
        FROM pose_persons WHERE track_id IS NOT NULL;
      `);
    },
  },
  {
    version: 5,
    description: 'sensing frames (one per room or link and second), kept as long as pose frames',
    up: `
      CREATE TABLE sensing_frames (
        seq INTEGER PRIMARY KEY,
        ts INTEGER NOT NULL,
        environment_id TEXT NOT NULL,
        scope TEXT NOT NULL,
        link TEXT,
        body TEXT NOT NULL
      );
      CREATE INDEX sensing_frames_ts ON sensing_frames (ts);
      CREATE INDEX sensing_frames_env_ts ON sensing_frames (environment_id, scope, ts);
    `,
  },
  {
    version: 6,
    description: 'jobs (flows run as jobs), kept across restarts, the newest jobs.keepStored',
    up: `
      CREATE TABLE jobs (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        user_id TEXT NOT NULL,
        flow_id TEXT,
        runner_id TEXT,
        status TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        body TEXT NOT NULL,
        detail TEXT NOT NULL
      );
      CREATE INDEX jobs_created ON jobs (created_at, seq);
      CREATE INDEX jobs_user_created ON jobs (user_id, created_at, seq);
      CREATE INDEX jobs_status ON jobs (status, runner_id);
    `,
  },
];

/** The schema version this build writes. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/**
 * Bring a database to SCHEMA_VERSION: each pending migration runs in its own transaction and
 * is recorded in `schema_version`. A file from a newer build is refused rather than guessed at.
 */
export function migrate(db: Database, migrations: Migration[] = MIGRATIONS): { from: number; to: number } {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  const row = db.prepare('SELECT MAX(version) AS version FROM schema_version').get() as { version: number | null };
  const from = row.version ?? 0;
  const latest = migrations[migrations.length - 1]?.version ?? 0;
  if (from > latest) throw new Error(`database schema version ${from} is newer than this plugin understands (${latest}); upgrade @wiflow/plugin-sqlite`);
  const record = db.prepare('INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)');
  for (const migration of migrations) {
    if (migration.version <= from) continue;
    db.transaction(() => {
      if (typeof migration.up === 'string') db.exec(migration.up);
      else migration.up(db);
      record.run(migration.version, migration.description, Date.now());
    })();
  }
  return { from, to: Math.max(from, latest) };
}
