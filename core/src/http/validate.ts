import type { z } from 'zod';
import type { FieldError } from './api-errors.js';

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let cur = input;
  for (const key of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

/**
 * Validate one part of a request; push every bad field (dotted path from the part's root,
 * the zod message, the received value) and return the parsed value. Unknown keys are one
 * field each, or (`together`) one field for the object that holds them.
 */
export function validatePart<T>(schema: z.ZodType<T>, input: unknown, errors: FieldError[], prefix = '', unknownKeys: 'each' | 'together' = 'each'): T | undefined {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) {
    const issuePath = issue.path.map(String);
    if (issue.code === 'unrecognized_keys' && unknownKeys === 'each') {
      for (const key of issue.keys) {
        const field = [prefix, ...issuePath, key].filter(Boolean).join('.');
        errors.push({ field, message: 'unknown field', received: valueAt(input, [...issue.path, key]) });
      }
      continue;
    }
    const field = [prefix, ...issuePath].filter(Boolean).join('.') || '(body)';
    errors.push({ field, message: issue.message, received: valueAt(input, issue.path) });
  }
  return undefined;
}
