import { randomUUID } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { Principal, RuntimeHooks } from '../hooks/hooks.js';
import type { Logger } from '../runtime/logger.js';
import { HttpErrors, errorEnvelope, toApiError, type ApiConvention, type ApiError, type EnvelopeOptions, type FieldError } from './api-errors.js';
import { authenticate, type Authentication } from './credentials.js';
import { DEFAULT_JSON_MAX_DEPTH, jsonBodyParser } from './json-body.js';
import { hasRole, type Role } from './roles.js';
import { expressPath, forConvention, type RouteDefinition } from './route.js';
import { validatePart } from './validate.js';

const REQUEST_ID = /^[\w\-.:]{1,128}$/;

/** The request's X-Request-ID when it is a sane one, else a new UUID. */
export function requestIdOf(req: Request): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/** Run the body parser now (after authentication), resolving with its error, if any. */
function parseBody(parser: RequestHandler, req: Request, res: Response): Promise<unknown> {
  return new Promise((resolve) => {
    parser(req, res, (error?: unknown) => resolve(error));
  });
}

/** What one request has been through when an API's own step runs. */
export interface RouteStep<R extends RouteDefinition> {
  route: R;
  req: Request;
  res: Response;
  auth: Authentication;
  convention: ApiConvention;
}

/** How an API serves its routes. Everything but `hooks`, `logger` and `convention` is optional. */
export interface RouteKit<R extends RouteDefinition = RouteDefinition> {
  /** Where `authenticate` asks who is calling. */
  hooks: Pick<RuntimeHooks, 'authenticate'>;
  logger: Logger;
  /** The pose-spec convention in force (see `apiConventionInForce`). */
  convention(): ApiConvention;
  /** JSON body size limit (default 1mb). */
  bodyLimit?: string;
  /** JSON nesting limit (default DEFAULT_JSON_MAX_DEPTH). */
  maxJsonDepth?: number;
  /** After authentication, before authorisation (rate limits): may set headers, may throw. */
  admit?(step: RouteStep<R>): Promise<void>;
  /** After authorisation, before validation (a service's state): may throw. */
  check?(step: RouteStep<R>): void;
  /** The API's own codes for the kit's refusals (default HttpErrors'). */
  errors?: {
    unauthenticated?(problem: string | undefined): ApiError;
    forbidden?(needed: Role, principal: Principal): ApiError;
    validation?(fieldErrors: FieldError[]): ApiError;
    /** A body the parser refused; undefined keeps the kit's answer. */
    body?(error: unknown): ApiError | undefined;
    /** Anything else thrown; undefined keeps `toApiError`'s answer. */
    other?(error: unknown): ApiError | undefined;
  };
  envelope?: EnvelopeOptions;
  /** Wrap successes in convention B's envelope (default true; the webhook API answers bare bodies in both). */
  wrapSuccess?: boolean;
}

/**
 * Mount routes on a router: authenticate, admit (rate limits), authorise, check, read the
 * body (only now, after we know who is calling), validate every part (all bad fields at
 * once), run, and answer in the convention in force; every error in the convention's
 * envelope with the request id. Schemas were built once, with the routes.
 */
export function routeRouter<R extends RouteDefinition>(routes: readonly R[], kit: RouteKit<R>): Router {
  const router = express.Router();
  // Bounded size and depth: a hostile body is refused before it is parsed, and before anything recursive walks it.
  const json = jsonBodyParser({ limit: kit.bodyLimit ?? '1mb', maxDepth: kit.maxJsonDepth ?? DEFAULT_JSON_MAX_DEPTH });
  const wrap = kit.wrapSuccess ?? true;

  function sendError(res: Response, error: ApiError, convention: ApiConvention, requestId: string): void {
    if (error.status >= 500 && error.specCode === 'SYSTEM_ERROR') kit.logger.error('request failed', { code: error.code, message: error.message, request_id: requestId });
    if (res.headersSent) return;
    res.status(error.status).json(errorEnvelope(error, convention, requestId, new Date(), kit.envelope));
  }

  for (const route of routes) {
    const handle = async (req: Request, res: Response): Promise<void> => {
      const convention = kit.convention();
      const requestId = requestIdOf(req);
      res.setHeader('X-Request-ID', requestId);
      try {
        const auth = await authenticate(kit.hooks, req);
        const step: RouteStep<R> = { route, req, res, auth, convention };
        await kit.admit?.(step);
        if (route.access !== 'public') {
          const principal = auth.principal;
          if (!principal) throw kit.errors?.unauthenticated?.(auth.problem) ?? HttpErrors.unauthenticated(auth.problem ?? 'authentication required: send Authorization: Bearer <token> or X-API-Key');
          if (!hasRole(principal.roles, route.access)) throw kit.errors?.forbidden?.(route.access, principal) ?? HttpErrors.forbidden(route.access, principal.roles);
        }
        kit.check?.(step);
        const fieldErrors: FieldError[] = [];
        const params = route.params ? validatePart(route.params, req.params, fieldErrors, '', route.unknownKeys) : {};
        const query = route.query ? validatePart(forConvention(route.query, convention), req.query, fieldErrors, '', route.unknownKeys) : {};
        let body: unknown;
        if (route.body) {
          if (hasBody(req) && !req.is('application/json')) throw HttpErrors.malformedBody('Content-Type must be application/json');
          // Only now, after authentication, rate limiting and authorisation, is the body read.
          const parseError = await parseBody(json, req, res);
          if (parseError) throw kit.errors?.body?.(parseError) ?? toApiError(parseError);
          body = validatePart(forConvention(route.body, convention), req.body ?? {}, fieldErrors, '', route.unknownKeys);
        }
        if (fieldErrors.length) throw kit.errors?.validation?.(fieldErrors) ?? HttpErrors.validation(fieldErrors);
        const reply = await route.handler({ convention, query: query as Record<string, any>, body, params: params as Record<string, any>, principal: auth.principal, requestId, request: req });
        const status = reply.status ?? route.success.status;
        for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
        if (reply.body === undefined) res.status(status).end();
        else if (convention === 'A' || route.bare || !wrap) res.status(status).json(reply.body);
        else res.status(status).json({ success: true, data: reply.body, ...reply.extras, timestamp: new Date().toISOString(), request_id: requestId });
      } catch (error) {
        sendError(res, kit.errors?.other?.(error) ?? toApiError(error), convention, requestId);
      }
    };
    router[route.method](expressPath(route.path), (req: Request, res: Response) => {
      // handle answers every error itself; this only catches an answer that could not be written.
      handle(req, res).catch((error: unknown) => {
        kit.logger.error('could not answer a request', { error: String(error) });
        if (!res.headersSent) res.status(500).end();
      });
    });
  }
  return router;
}
