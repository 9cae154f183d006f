import { decodeCursor } from '@wiflow/storage-kit';

/** Collects SQL conditions and their parameters. */
export class SqlWhere {
  readonly conditions: string[] = [];
  readonly params: unknown[] = [];

  /** Add a condition with its parameters. */
  add(condition: string, ...params: unknown[]): this {
    this.conditions.push(condition);
    this.params.push(...params);
    return this;
  }

  /** `column IN (?, ?, ...)` for a non-empty list. */
  in(column: string, values: unknown[] | undefined): this {
    if (values && values.length > 0) this.add(`${column} IN (${values.map(() => '?').join(', ')})`, ...values);
    return this;
  }

  /** Inclusive time range on a column. */
  range(column: string, range: { start?: number; end?: number }): this {
    if (range.start !== undefined) this.add(`${column} >= ?`, range.start);
    if (range.end !== undefined) this.add(`${column} <= ?`, range.end);
    return this;
  }

  /** After a `[ts, seq]` cursor in the given order. */
  after(tsColumn: string, seqColumn: string, order: 'asc' | 'desc', cursor: string | null | undefined): this {
    if (!cursor) return this;
    const [ts, seq] = decodeCursor(cursor, ['number', 'number']);
    // A range on the timestamp plus a tie-break, so an index on the timestamp bounds the scan.
    return order === 'asc'
      ? this.add(`${tsColumn} >= ? AND (${tsColumn} > ? OR ${seqColumn} > ?)`, ts, ts, seq)
      : this.add(`${tsColumn} <= ? AND (${tsColumn} < ? OR ${seqColumn} < ?)`, ts, ts, seq);
  }

  /** A copy to extend without changing this one. */
  clone(): SqlWhere {
    const copy = new SqlWhere();
    copy.conditions.push(...this.conditions);
    copy.params.push(...this.params);
    return copy;
  }

  /** `WHERE ...` or ''. */
  get sql(): string {
    return this.conditions.length > 0 ? `WHERE ${this.conditions.join(' AND ')}` : '';
  }
}
