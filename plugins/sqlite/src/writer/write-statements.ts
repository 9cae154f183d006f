/**
 * The statements the writer thread runs, by index. A write batch carries, per statement, its
 * parameters flattened into one array (rows one after the other), so a batch crosses to the
 * worker as a few large arrays rather than thousands of small ones.
 */
export const WRITE_STATEMENTS = [
  'INSERT INTO pose_frames (environment_id, ts, seq, frame_id, person_seq, person_count, processing_time_ms, metadata_id, csi_quality, link_count, extra, person_summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  'INSERT INTO pose_persons (environment_id, ts, seq, frame_seq, frame_id, person_id, track_id, confidence, activity, track_status, x, y, cx, cy, body, extra) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  'INSERT OR IGNORE INTO pose_metadata (id, body) VALUES (?, ?)',
  'INSERT OR IGNORE INTO pose_environments (environment_id) VALUES (?)',
  `INSERT INTO pose_minutes (environment_id, minute, frames, persons, max_persons, confidence_sum) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (environment_id, minute) DO UPDATE SET frames = frames + excluded.frames, persons = persons + excluded.persons,
       max_persons = MAX(max_persons, excluded.max_persons), confidence_sum = confidence_sum + excluded.confidence_sum`,
  `INSERT INTO pose_minute_occupancy (environment_id, minute, person_count, frames) VALUES (?, ?, ?, ?)
     ON CONFLICT (environment_id, minute, person_count) DO UPDATE SET frames = frames + excluded.frames`,
  `INSERT INTO pose_minute_activities (environment_id, minute, activity, persons) VALUES (?, ?, ?, ?)
     ON CONFLICT (environment_id, minute, activity) DO UPDATE SET persons = persons + excluded.persons`,
  'INSERT OR IGNORE INTO pose_minute_tracks (environment_id, minute, track_id) VALUES (?, ?, ?)',
  'INSERT INTO pose_sequence (name, next) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET next = MAX(next, excluded.next)',
  `INSERT INTO events (event_id, ts, environment_id, type, severity, track_id, source, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (event_id) DO UPDATE SET ts = excluded.ts, environment_id = excluded.environment_id, type = excluded.type,
       severity = excluded.severity, track_id = excluded.track_id, source = excluded.source, body = excluded.body`,
  'INSERT INTO metrics (ts, kind, source, metric_values) VALUES (?, ?, ?, ?)',
  'INSERT INTO sensing_frames (ts, environment_id, scope, link, body) VALUES (?, ?, ?, ?, ?)',
] as const;

/** Index of each statement in WRITE_STATEMENTS. */
export const Write = {
  frame: 0,
  person: 1,
  metadata: 2,
  environment: 3,
  minute: 4,
  occupancy: 5,
  activity: 6,
  track: 7,
  sequence: 8,
  event: 9,
  metric: 10,
  sensing: 11,
} as const;

/** Parameters per row of each statement. */
export const STATEMENT_WIDTHS: readonly number[] = WRITE_STATEMENTS.map((sql) => sql.split('?').length - 1);

/** One transaction's worth of rows: for each statement index, its rows' parameters one after the other. */
export type WriteBatch = unknown[][];

const ARENA_BYTES = 1 << 20;

/** Collects the rows of one write batch. */
export class WriteBatchBuilder {
  readonly batch: WriteBatch = WRITE_STATEMENTS.map(() => []);
  /** Buffers the batch's blobs live in, transferred (not copied) to the writer thread. */
  readonly buffers: ArrayBuffer[] = [];
  /** Rows added. */
  rows = 0;
  #arena: ArrayBuffer | null = null;
  #used = 0;

  /**
   * Bytes for one blob, carved from a 1 MiB arena (8-byte aligned, for float64 views): one
   * allocation and one transfer for thousands of person bodies instead of one each.
   */
  readonly bytes = (length: number): Uint8Array => {
    if (length > ARENA_BYTES / 4) return new Uint8Array(length);
    if (!this.#arena || this.#used + length > ARENA_BYTES) {
      this.#arena = new ArrayBuffer(ARENA_BYTES);
      this.buffers.push(this.#arena);
      this.#used = 0;
    }
    const view = new Uint8Array(this.#arena, this.#used, length);
    this.#used += (length + 7) & ~7;
    return view;
  };

  /** Add a row of `statement`; the parameters must match its width. */
  add(statement: number, ...params: unknown[]): void {
    const target = this.batch[statement]!;
    for (let i = 0; i < params.length; i++) target.push(params[i]);
    this.rows++;
  }
}
