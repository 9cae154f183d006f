import type { z } from 'zod';
import { WiflowError, type ValidationIssue } from '@wiflow/core';

export type { ValidationIssue } from '@wiflow/core';

/** A request that failed validation: answered as 422 HTTPValidationError `{detail: ValidationError[]}`. */
export class RequestValidationError extends WiflowError {
  readonly issues: ValidationIssue[];
  constructor(issues: ValidationIssue[]) {
    super('WIFLOW_STUDIO_VALIDATION', issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '), 422);
    this.issues = issues;
  }
}

/** Parse a value with a zod schema or throw a RequestValidationError located under `where` ('body', 'query'). */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  // A list of a million bad items must not become a million-entry answer: the first ones say enough.
  const shown = result.error.issues.slice(0, MAX_REPORTED_ISSUES);
  const issues: ValidationIssue[] = shown.map((issue) => ({
    loc: [where, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))],
    msg: issue.message,
    type: issue.code,
  }));
  const more = result.error.issues.length - shown.length;
  if (more > 0) issues.push({ loc: [where], msg: `and ${more} more problems`, type: 'truncated' });
  throw new RequestValidationError(issues);
}

/** How many validation problems one answer lists. */
export const MAX_REPORTED_ISSUES = 50;
