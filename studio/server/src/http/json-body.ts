import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isJsonNotObject, isJsonTooDeep, jsonBodyParser, JSON_NOT_UTF8_CODE } from '@wiflow/core';
import { RequestValidationError } from './validation.js';

/** How deep JSON values sent to the flow service may nest (flows need about 12 levels). */
export const MAX_JSON_DEPTH = 64;

/** How many values (array elements and object members) one JSON body may hold; bigger data goes as a file. */
export const MAX_JSON_VALUES = 200_000;

/**
 * What is wrong with the shape of a parsed JSON value, if anything: nested deeper than
 * `maxDepth`, or more than `maxValues` values. Counted without recursion (a value nested
 * 100,000 deep must not overflow the stack here), stopping as soon as a limit is passed.
 */
export function jsonShapeProblem(value: unknown, maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES): 'too_deep' | 'too_many_values' | null {
  const stack: [unknown, number][] = [[value, 1]];
  let values = 0;
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > maxDepth) return 'too_deep';
    const children = Array.isArray(current) ? current : Object.values(current);
    values += children.length;
    if (values > maxValues) return 'too_many_values';
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return null;
}

/** The 422 for a body of the wrong shape, located at `where` ('body', 'file[0]'). */
export function shapeError(problem: 'too_deep' | 'too_many_values', where = 'body'): RequestValidationError {
  return problem === 'too_deep'
    ? tooDeepError(where)
    : new RequestValidationError([{ loc: [where], msg: `JSON holds more than ${MAX_JSON_VALUES} values; send bigger data as a file`, type: 'json_too_large' }]);
}

/** The 422 for a value nested too deep, located at `where` ('body', 'file[0]'). */
export function tooDeepError(where: string, max = MAX_JSON_DEPTH): RequestValidationError {
  return new RequestValidationError([{ loc: [where], msg: `JSON nested deeper than ${max} levels`, type: 'json_too_deep' }]);
}

/**
 * The flow service's JSON body parser: core's bounded parser (size limit, UTF-8 only, nesting
 * scanned before parsing), its refusals turned into this service's 422 envelope, then a count
 * of values, so that no later step (validation, echoing, storage) walks an unbounded structure.
 * Mount it after authentication: nobody's body is read before we know who they are.
 */
export function jsonBody(limit: string | number = '1mb'): RequestHandler[] {
  const parse = jsonBodyParser({ limit, maxDepth: MAX_JSON_DEPTH });
  const refusal = (error: unknown, _req: Request, _res: Response, next: NextFunction): void => {
    if (isJsonTooDeep(error)) return next(tooDeepError('body'));
    if ((error as { code?: unknown }).code === JSON_NOT_UTF8_CODE) return next(new RequestValidationError([{ loc: ['body'], msg: 'the body is not valid UTF-8', type: 'utf8_invalid' }]));
    if (isJsonNotObject(error)) return next(new RequestValidationError([{ loc: ['body'], msg: `the body must be a JSON object, not ${(error as { details?: { received?: string } }).details?.received}`, type: 'dict_type' }]));
    next(error);
  };
  const count = (req: Request, _res: Response, next: NextFunction): void => {
    const problem = req.body !== undefined ? jsonShapeProblem(req.body) : null;
    if (problem) return next(shapeError(problem));
    next();
  };
  return [parse, refusal as unknown as RequestHandler, count];
}
