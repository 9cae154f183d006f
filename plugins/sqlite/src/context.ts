import type { Database } from 'better-sqlite3';
import type { FlowRecord, PrivacySettings } from '@wiflow/core';
import type { WriteBuffer } from './writer/write-buffer.js';

/** What the repositories share: the connection, the buffer and the settings in force. */
export interface SqliteContext {
  readonly db: Database;
  readonly buffer: WriteBuffer;
  /** Throws StorageErrors.closed unless open. */
  ensureOpen(): void;
  /** Make buffered writes visible before a read (read-your-writes): waits until they are committed. */
  beforeRead(): Promise<void>;
  /** Environments with stored pose frames, sorted. */
  environments(): string[];
  privacy(): PrivacySettings;
  now(): number;
  /** Encode a JSON body for a table that may be encrypted at rest (flows, revisions, projects, messages). */
  sealBody(value: unknown): string;
  /** Decode what `sealBody` (or plain JSON) stored. */
  openBody<T>(text: string): T;
  /** Encode a flow (or revision): its nodes' secret fields sealed always, then the body as `sealBody`. */
  sealFlow(flow: FlowRecord): string;
  /** Decode what `sealFlow` stored, secrets opened. */
  openFlow(text: string): FlowRecord;
}

/** The key under which a record's owner is indexed ('' for records with no user). */
export function userKey(userId: string | null | undefined): string {
  return userId ?? '';
}
