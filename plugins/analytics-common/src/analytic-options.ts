import type { z } from 'zod';

/**
 * Parse an analytic's options against its schema; every problem goes into one `invalid` error
 * as `path: message` (`(root)` for the whole), joined by `; `.
 */
export function parseAnalyticOptions<S extends z.ZodType>(schema: S, input: unknown, invalid: (message: string) => Error): z.output<S> {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw invalid(parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
  return parsed.data;
}
