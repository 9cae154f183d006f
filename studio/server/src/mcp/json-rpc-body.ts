import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { isJsonNotObject, isJsonTooDeep, jsonBodyParser } from '@wiflow/core';
import { JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';
import { MAX_JSON_DEPTH, jsonShapeProblem } from '../http/json-body.js';

/** JSON-RPC 2.0 §5.1: the body is not JSON. */
export const JSON_RPC_PARSE_ERROR = -32700;
/** JSON-RPC 2.0 §5.1: the JSON is not a valid request (or batch of them). */
export const JSON_RPC_INVALID_REQUEST = -32600;
/** The MCP SDK's code for transport-level refusals (wrong media type, body too large). */
export const JSON_RPC_TRANSPORT_ERROR = -32000;

/** Most messages in one batch; the SDK's Streamable HTTP transport refuses more (MAX_BATCH_SIZE). */
export const MAX_JSON_RPC_BATCH = 100;

/**
 * Write a JSON-RPC error with `id: null` — what JSON-RPC 2.0 requires when the request's id
 * could not be read, and the shape the SDK's own transports answer.
 */
export function sendJsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/** A zod issue, as far as this file reads it (a union's issue holds each alternative's issues). */
interface Issue {
  path: PropertyKey[];
  message: string;
  errors?: Issue[][];
}

/**
 * The first problem zod found in a message, bounded (field names come from the client). A
 * message is a union (request, notification, response, error); its bare "Invalid input" says
 * nothing, so this follows the first alternative, the request, to its first concrete problem.
 */
function firstIssue(error: { issues?: Issue[] }): string {
  let issue = error.issues?.[0];
  if (!issue) return 'not a JSON-RPC 2.0 request, notification or response';
  let path = issue.path;
  while (issue.errors?.[0]?.[0]) {
    issue = issue.errors[0][0];
    path = [...path, ...issue.path];
  }
  const where = path.length ? path.map(String).join('.').slice(0, 60) : 'message';
  return `${where}: ${issue.message.slice(0, 120)}`;
}

/** Why `body` is not a JSON-RPC message or batch, or null when it is one. */
function invalidRequest(body: unknown, batches: boolean): string | null {
  if (Array.isArray(body)) {
    if (!batches) return 'Invalid Request: this endpoint takes one JSON-RPC message per POST, not a batch';
    if (body.length === 0) return 'Invalid Request: empty batch';
    if (body.length > MAX_JSON_RPC_BATCH) return `Invalid Request: Batch must not exceed ${MAX_JSON_RPC_BATCH} messages`;
    for (let i = 0; i < body.length; i++) {
      const parsed = JSONRPCMessageSchema.safeParse(body[i]);
      if (!parsed.success) return `Invalid Request: batch member ${i}: ${firstIssue(parsed.error)}`;
    }
    return null;
  }
  const parsed = JSONRPCMessageSchema.safeParse(body);
  return parsed.success ? null : `Invalid Request: ${firstIssue(parsed.error)}`;
}

/**
 * The MCP endpoints' body parser. MCP clients read JSON-RPC, so every body-level refusal is a
 * JSON-RPC error with `id: null`, never the flow service's `{detail, code}` envelope, and it
 * echoes nothing of the body but a bounded field path:
 *
 * - not `application/json`: 415, -32000 (as the SDK's Streamable HTTP transport answers);
 * - over `limit`: 413, -32000;
 * - not JSON, or not UTF-8: 400, -32700 parse error;
 * - JSON that is not a JSON-RPC message (a scalar, an object without `jsonrpc: "2.0"`, an empty
 *   batch, a batch over 100 or with a bad member, nesting past the flow service's depth limit):
 *   400, -32600 invalid request (JSON-RPC 2.0 §5.1; the SDK says -32700 here, the spec -32600).
 *
 * `batches: false` is for the legacy SSE transport, whose POST takes one message.
 * Mount it after authentication, like every body parser of the service.
 */
export function jsonRpcBody(limit: number, options: { batches: boolean }): RequestHandler[] {
  const parse = jsonBodyParser({ limit, maxDepth: MAX_JSON_DEPTH });
  const mediaType = (req: Request, res: Response, next: NextFunction): void => {
    if (req.is('application/json')) return next();
    sendJsonRpcError(res, 415, JSON_RPC_TRANSPORT_ERROR, 'Unsupported Media Type: Content-Type must be application/json');
  };
  const refusal = (error: unknown, _req: Request, res: Response, next: NextFunction): void => {
    const status = (error as { status?: unknown; statusCode?: unknown }).status ?? (error as { statusCode?: unknown }).statusCode;
    if (status === 413) return sendJsonRpcError(res, 413, JSON_RPC_TRANSPORT_ERROR, `Payload Too Large: Request body must not exceed ${limit} bytes`);
    if (status === 415) return sendJsonRpcError(res, 415, JSON_RPC_TRANSPORT_ERROR, 'Unsupported Media Type: the body must be UTF-8 JSON');
    if (isJsonTooDeep(error)) return sendJsonRpcError(res, 400, JSON_RPC_INVALID_REQUEST, `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
    if (isJsonNotObject(error)) return sendJsonRpcError(res, 400, JSON_RPC_INVALID_REQUEST, `Invalid Request: the body must be a JSON-RPC object or batch, not ${(error as { details?: { received?: string } }).details?.received}`);
    if (status === 400) return sendJsonRpcError(res, 400, JSON_RPC_PARSE_ERROR, 'Parse error: Invalid JSON');
    next(error);
  };
  const validate = (req: Request, res: Response, next: NextFunction): void => {
    const shape = jsonShapeProblem(req.body);
    if (shape) return sendJsonRpcError(res, 400, JSON_RPC_INVALID_REQUEST, shape === 'too_deep' ? `Invalid Request: JSON nested deeper than ${MAX_JSON_DEPTH} levels` : 'Invalid Request: the body holds too many values');
    const problem = invalidRequest(req.body, options.batches);
    if (problem) return sendJsonRpcError(res, 400, JSON_RPC_INVALID_REQUEST, problem);
    next();
  };
  return [mediaType, parse, refusal as unknown as RequestHandler, validate];
}
