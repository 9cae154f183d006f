import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type RequestHandler, type Response, type Router } from 'express';
import type { z } from 'zod';
import type { WiflowError } from '../errors.js';
import type { Principal, RuntimeHooks } from '../hooks/hooks.js';
import type { Logger } from '../runtime/logger.js';
import { HttpErrors, errorEnvelope, toApiError, type ApiConvention, type ApiError, type EnvelopeOptions, type FieldError } from './api-errors.js';
import { authenticate, type Authentication } from './credentials.js';
import { DEFAULT_JSON_MAX_DEPTH, jsonBodyParser } from './json-body.js';
import { boundedEcho } from './bounded-echo.js';
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

/**
 * How an API serves its routes. Everything but `hooks`, `logger` and `convention` is optional:
 * the defaults are the pose spec's behaviour; the flow service replaces authentication (auto-login),
 * validation (FastAPI's 422), body readers and error answering (its own envelope).
 */
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
    unauthenticated?(problem: string | undefined): WiflowError;
    forbidden?(needed: Role, principal: Principal): WiflowError;
    validation?(fieldErrors: FieldError[]): WiflowError;
    /** A body the parser refused; undefined keeps the kit's answer. */
    body?(error: unknown): ApiError | undefined;
    /** Anything else thrown; undefined keeps `toApiError`'s answer. */
    other?(error: unknown): ApiError | undefined;
  };
  envelope?: EnvelopeOptions;
  /** Wrap successes in convention B's envelope (default true; the webhook API answers bare bodies in both). */
  wrapSuccess?: boolean;
  /** Who is calling (default: core's `authenticate` on the headers). The flow service adds its auto-login. */
  authenticate?(req: Request, res: Response): Promise<Authentication>;
  /** Whether the caller may call a route of this access (default: `hasRole`). */
  authorize?(principal: Principal, access: Role): boolean;
  /** Validate one part and return its value or throw (default: every bad field of every part at once, as HttpErrors.validation). */
  validate?(schema: z.ZodType, input: unknown, where: 'path' | 'query' | 'body'): unknown;
  /** Body readers run instead of the bounded JSON parser (the flow service's 422 refusals); their errors go where every error goes. */
  bodyParsers?: RequestHandler[];
  /** Hand every error to Express's error handler (an API with its own envelope, the flow service) instead of answering it here. */
  passErrors?: boolean;
}

/** Run body readers in order, resolving with the first error, if any. */
async function readBody(parsers: RequestHandler[], req: Request, res: Response): Promise<unknown> {
  for (const parser of parsers) {
    const error = await parseBody(parser, req, res);
    if (error) return error;
  }
  return undefined;
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
    const handle = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
      const convention = kit.convention();
      const requestId = requestIdOf(req);
      res.setHeader('X-Request-ID', requestId);
      try {
        const auth = kit.authenticate ? await kit.authenticate(req, res) : await authenticate(kit.hooks, req);
        const step: RouteStep<R> = { route, req, res, auth, convention };
        await kit.admit?.(step);
        if (route.access !== 'public') {
          const principal = auth.principal;
          if (!principal) throw kit.errors?.unauthenticated?.(auth.problem) ?? HttpErrors.unauthenticated(auth.problem ?? 'authentication required: send Authorization: Bearer <token> or X-API-Key');
          if (!(kit.authorize ? kit.authorize(principal, route.access) : hasRole(principal.roles, route.access))) throw kit.errors?.forbidden?.(route.access, principal) ?? HttpErrors.forbidden(route.access, principal.roles);
        }
        kit.check?.(step);
        const fieldErrors: FieldError[] = [];
        const check = (schema: z.ZodType, input: unknown, where: 'path' | 'query' | 'body') =>
          kit.validate ? kit.validate(schema, input, where) : validatePart(schema, input, fieldErrors, '', route.unknownKeys);
        const params = route.params ? check(route.params, req.params, 'path') : {};
        const query = route.query ? check(forConvention(route.query, convention), req.query, 'query') : {};
        let body: unknown;
        if (route.body) {
          if (!kit.bodyParsers && hasBody(req) && !req.is('application/json')) throw HttpErrors.malformedBody('Content-Type must be application/json');
          // Only now, after authentication, rate limiting and authorisation, is the body read.
          const parseError = kit.bodyParsers ? await readBody(kit.bodyParsers, req, res) : await parseBody(json, req, res);
          if (parseError) throw kit.passErrors ? parseError : (kit.errors?.body?.(parseError) ?? toApiError(parseError));
          body = check(forConvention(route.body, convention), req.body ?? {}, 'body');
        }
        if (fieldErrors.length) throw kit.errors?.validation?.(fieldErrors) ?? HttpErrors.validation(fieldErrors);
        const reply = await route.handler({ convention, query: query as Record<string, any>, body, params: params as Record<string, any>, principal: auth.principal, requestId, request: req });
        const status = reply.status ?? route.success.status;
        for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
        if (reply.body === undefined) res.status(status).end();
        else if (convention === 'A' || route.bare || !wrap) res.status(status).json(reply.body);
        else res.status(status).json({ success: true, data: reply.body, ...reply.extras, timestamp: new Date().toISOString(), request_id: requestId });
      } catch (error) {
        if (kit.passErrors) next(error);
        else sendError(res, kit.errors?.other?.(error) ?? toApiError(error), convention, requestId);
      }
    };
    router[route.method](expressPath(route.path), (req: Request, res: Response, next: NextFunction) => {
      // handle answers (or passes on) every error itself; this only catches an answer that could not be written.
      handle(req, res, next).catch((error: unknown) => {
        kit.logger.error('could not answer a request', { error: String(error) });
        if (!res.headersSent) res.status(500).end();
      });
    });
  }
  // Express decodes path parameters while matching a route, before `handle` runs: a parameter
  // that is not valid percent-encoding arrives here as a URIError, answered in the API's envelope.
  router.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(error instanceof URIError) || kit.passErrors) return next(error);
    const requestId = requestIdOf(req);
    res.setHeader('X-Request-ID', requestId);
    sendError(res, HttpErrors.invalidPath(boundedEcho(error.message) as string), kit.convention(), requestId);
  });
  return router;
}
