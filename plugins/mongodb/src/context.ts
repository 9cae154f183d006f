import type { Db, MongoClient } from 'mongodb';
import type { PrivacySettings } from '@wiflow/core';
import type { AsyncWriteBuffer } from './async-write-buffer.js';

/** What the repositories share. */
export interface MongoContext {
  readonly client: MongoClient;
  readonly db: Db;
  readonly buffer: AsyncWriteBuffer;
  ensureOpen(): void;
  /** Write what is buffered before a read (read-your-writes). */
  beforeRead(): Promise<void>;
  privacy(): PrivacySettings;
  now(): number;
  /** Reserve `count` consecutive sequence numbers of a series; returns the first. */
  reserveSeq(series: string, count: number): Promise<number>;
  /** A record as stored: the object, or a sealed string when encryption is on. */
  sealBody(value: unknown): unknown;
  openBody<T>(stored: unknown): T;
}

/** The key under which a record's owner is indexed ('' for none). */
export function userKey(userId: string | null | undefined): string {
  return userId ?? '';
}

/** Whether an error is a duplicate-key error; returns the violated key pattern's fields. */
export function duplicateKeyFields(error: unknown): string[] | null {
  const e = error as { code?: number; keyPattern?: Record<string, unknown> };
  if (e?.code !== 11000) return null;
  return Object.keys(e.keyPattern ?? {});
}
