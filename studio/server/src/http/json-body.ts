import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { RequestValidationError } from './validation.js';

/** How deep JSON values sent to the flow service may nest (flows need about 12 levels). */
export const MAX_JSON_DEPTH = 64;

/**
 * The depth of a parsed JSON value, counted without recursion (a value nested 100,000 deep
 * must not overflow the stack here), stopping as soon as `max` is passed.
 */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > max) return true;
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** The 422 for a value nested too deep, located at `where` ('body', 'file[0]'). */
export function tooDeepError(where: string, max = MAX_JSON_DEPTH): RequestValidationError {
  return new RequestValidationError([{ loc: [where], msg: `JSON nested deeper than ${max} levels`, type: 'json_too_deep' }]);
}

/**
 * The flow service's JSON body parser: express.json with a size limit, then a depth check,
 * so that no later step (validation, echoing, storage) walks an unbounded structure.
 * Mount it after authentication: nobody's body is read before we know who they are.
 */
export function jsonBody(limit: string | number = '1mb'): RequestHandler[] {
  const depth = (req: Request, _res: Response, next: NextFunction): void => {
    if (req.body !== undefined && jsonDepthExceeds(req.body, MAX_JSON_DEPTH)) return next(tooDeepError('body'));
    next();
  };
  return [express.json({ limit }), depth];
}
