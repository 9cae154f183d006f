import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { WiflowError } from '../errors.js';

/** Deepest nesting of arrays and objects a JSON body may have, unless a parser is told otherwise. */
export const DEFAULT_JSON_MAX_DEPTH = 64;

/** Limits of one JSON body parser. */
export interface JsonBodyLimits {
  /** Largest body, bytes or a size string ('64kb', '8mb'); larger bodies are refused with 413 before they are parsed. */
  limit: number | string;
  /** Deepest nesting of arrays and objects (default DEFAULT_JSON_MAX_DEPTH); deeper bodies are refused with 400. */
  maxDepth?: number;
}

/** Code of the error a too-deep body gets (the parser's error carries it as `code`, with `status` 400). */
export const JSON_TOO_DEEP_CODE = 'WIFLOW_HTTP_JSON_TOO_DEEP';
/** Code of the error a body that says UTF-8 but is not gets (`status` 400): decoding it would garble what is stored. */
export const JSON_NOT_UTF8_CODE = 'WIFLOW_HTTP_JSON_NOT_UTF8';
/** Code of the error a valid JSON body that is `null`, a number, a string or a boolean gets (`status` 422, `details.received` its JSON type). */
export const JSON_NOT_OBJECT_CODE = 'WIFLOW_HTTP_JSON_NOT_OBJECT';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether JSON text nests arrays and objects deeper than `maxDepth`, by one pass over the
 * bytes (brackets inside strings do not count). Runs before parsing, so a hostile body never
 * becomes a value that recursive code (validation, serialisation of an error) walks.
 * UTF-8 is scanned as bytes: no byte of a multi-byte sequence equals an ASCII bracket or quote.
 */
export function jsonNestingExceeds(text: Uint8Array | string, maxDepth: number): boolean {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i];
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** The JSON type of a scalar body ('null', 'number', 'string', 'boolean'), or null when the text is a container or not JSON at all. */
function scalarJsonType(text: Uint8Array | string): string | null {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i];
  let i = 0;
  while (i < text.length && (at(i) === 0x20 || at(i) === 0x09 || at(i) === 0x0a || at(i) === 0x0d)) i++;
  if (i === text.length || at(i) === OPEN_OBJECT || at(i) === OPEN_ARRAY) return null;
  try {
    const value: unknown = JSON.parse(typeof text === 'string' ? text : Buffer.from(text).toString('utf8'));
    return value === null ? 'null' : typeof value;
  } catch {
    return null;
  }
}

/**
 * An Express JSON body parser with bounded size and depth: express.json (strict, `limit`)
 * whose verify step refuses bodies nested deeper than `maxDepth` before they are parsed.
 * Errors go to `next` like express.json's: 413 `entity.too.large`, 400 `entity.parse.failed`,
 * 400 with `code` JSON_TOO_DEEP_CODE for depth and JSON_NOT_UTF8_CODE for bytes that are not
 * UTF-8, 422 with JSON_NOT_OBJECT_CODE for valid JSON that is not an object or array (express.json's
 * strict mode would call `null` "not valid JSON"; the studio server mounts it the same way).
 */
export function jsonBodyParser(limits: JsonBodyLimits): RequestHandler {
  const maxDepth = limits.maxDepth ?? DEFAULT_JSON_MAX_DEPTH;
  return express.json({
    limit: limits.limit,
    strict: true,
    verify(_req, _res, body, encoding) {
      const utf8 = !encoding || /^utf-?8$/i.test(encoding);
      if (utf8 && !isUtf8(body)) throw new WiflowError(JSON_NOT_UTF8_CODE, 'the JSON body is not valid UTF-8', 400);
      const text = utf8 ? body : new TextDecoder(encoding).decode(body);
      if (jsonNestingExceeds(text, maxDepth)) {
        throw new WiflowError(JSON_TOO_DEEP_CODE, `the JSON body nests deeper than ${maxDepth} levels`, 400, { max_depth: maxDepth });
      }
      const scalar = scalarJsonType(text);
      if (scalar) throw new WiflowError(JSON_NOT_OBJECT_CODE, `the JSON body must be an object, not ${scalar}`, 422, { received: scalar });
    },
  });
}

/** Whether an error from jsonBodyParser is the depth refusal. */
export function isJsonTooDeep(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === JSON_TOO_DEEP_CODE;
}

/** Whether an error from jsonBodyParser is the refusal of valid JSON that is not an object or array. */
export function isJsonNotObject(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === JSON_NOT_OBJECT_CODE;
}
