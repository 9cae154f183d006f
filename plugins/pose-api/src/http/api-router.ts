import { randomUUID } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { DEFAULT_JSON_MAX_DEPTH, jsonBodyParser } from '@wiflow/core';
import { credentialsOf } from '../auth/auth-service.js';
import { hasRole } from '../auth/roles.js';
import { ApiErrors, errorEnvelope, toApiError, type ApiError, type FieldError } from '../errors.js';
import type { ApiServices } from '../services.js';
import { forConvention, type RouteDefinition } from './route.js';
import { validatePart } from './validate.js';

const REQUEST_ID = /^[\w\-.:]{1,128}$/;

/** Body size limit of JSON requests (CSI submissions are the largest). */
export const JSON_BODY_LIMIT = '8mb';

function requestIdOf(req: Request): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Express path from an OpenAPI path ('/a/{id}' → '/a/:id'). */
export function expressPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
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

/**
 * Mount every route on a router: authenticate, rate-limit (headers on every answer),
 * authorise, check the system state, validate every part (all bad fields at once), run,
 * and answer in the convention in force. Schemas were built once, with the routes.
 */
export function buildApiRouter(services: ApiServices, routes: RouteDefinition[]): Router {
  const router = express.Router();
  // Bounded size and depth: a hostile body is refused before it is parsed, and before anything recursive walks it.
  const json = jsonBodyParser({ limit: JSON_BODY_LIMIT, maxDepth: services.runtime.config.get<{ maxJsonDepth?: number }>('server').maxJsonDepth ?? DEFAULT_JSON_MAX_DEPTH });

  function sendError(res: Response, error: ApiError, convention: 'A' | 'B', requestId: string): void {
    if (error.status >= 500 && error.specCode === 'SYSTEM_ERROR') services.runtime.logger.error('request failed', { code: error.code, message: error.message, request_id: requestId });
    if (res.headersSent) return;
    res.status(error.status).json(errorEnvelope(error, convention, requestId));
  }

  for (const route of routes) {
    const handle = async (req: Request, res: Response): Promise<void> => {
      const convention = services.convention();
      const requestId = requestIdOf(req);
      res.setHeader('X-Request-ID', requestId);
      try {
        const credentials = credentialsOf(req, false);
        let principal = undefined;
        let authProblem: string | undefined;
        if (credentials.bearer || credentials.apiKey) {
          principal = await services.runtime.hooks.authenticate.promise({ ...credentials, request: req });
          if (!principal) authProblem = credentials.bearer ? 'the access token is invalid or expired' : 'the API key is invalid, revoked or expired';
        }
        const limits = services.apiConfig().rateLimits;
        if (limits.enabled) {
          // One bucket per principal (a user's tokens and API keys share it: minting keys never multiplies a limit);
          // anonymous calls and logins by client address (the TCP peer unless server.trustProxy names the proxy).
          const caller = route.category === 'auth' || !principal ? `ip:${req.ip}` : `user:${principal.userId}`;
          const { limit, windowSeconds } = limits[route.category];
          const verdict = await services.limiter.check(route.category, caller, limit, windowSeconds);
          res.setHeader('X-RateLimit-Limit', String(verdict.limit));
          res.setHeader('X-RateLimit-Remaining', String(verdict.remaining));
          res.setHeader('X-RateLimit-Reset', String(verdict.resetSeconds));
          res.setHeader('X-RateLimit-Window', String(verdict.windowSeconds));
          if (!verdict.allowed) {
            res.setHeader('Retry-After', String(Math.max(1, verdict.resetSeconds - Math.floor(Date.now() / 1000))));
            const error = ApiErrors.rateLimited(route.category, verdict.limit, verdict.windowSeconds);
            const resetIso = new Date(verdict.resetSeconds * 1000).toISOString();
            Object.assign(error, {
              details:
                convention === 'A'
                  ? { limit: verdict.limit, window_seconds: verdict.windowSeconds, reset_time: resetIso, category: route.category }
                  : { limit: verdict.limit, window: verdict.windowSeconds, reset_at: resetIso, category: route.category },
            });
            throw error;
          }
        }
        if (route.access !== 'public') {
          if (!principal) throw ApiErrors.unauthenticated(authProblem ?? 'authentication required: send Authorization: Bearer <token> or X-API-Key');
          if (!hasRole(principal.roles, route.access)) throw ApiErrors.forbidden(route.access, principal.roles);
        }
        if (route.requiresRunning && !services.producing()) throw ApiErrors.systemNotReady(services.system.state);
        const fieldErrors: FieldError[] = [];
        const params = route.params ? validatePart(route.params, req.params, fieldErrors) : {};
        const query = route.query ? validatePart(forConvention(route.query, convention), req.query, fieldErrors) : {};
        let body: unknown;
        if (route.body) {
          if (hasBody(req) && !req.is('application/json')) throw ApiErrors.malformedBody('Content-Type must be application/json');
          // Only now, after authentication, rate limiting and authorisation, is the body read.
          const parseError = await parseBody(json, req, res);
          if (parseError) throw toApiError(parseError);
          body = validatePart(forConvention(route.body, convention), req.body ?? {}, fieldErrors);
        }
        if (fieldErrors.length) throw ApiErrors.validation(fieldErrors);
        const reply = await route.handler({ convention, query: query as Record<string, any>, body, params: params as Record<string, any>, principal, requestId, request: req });
        const status = reply.status ?? route.success.status;
        if (convention === 'A' || route.bare) res.status(status).json(reply.body);
        else res.status(status).json({ success: true, data: reply.body, ...reply.extras, timestamp: new Date().toISOString(), request_id: requestId });
      } catch (error) {
        sendError(res, toApiError(error), convention, requestId);
      }
    };
    router[route.method](expressPath(route.path), (req: Request, res: Response) => {
      // handle answers every error itself; this only catches an answer that could not be written.
      handle(req, res).catch((error: unknown) => {
        services.runtime.logger.error('could not answer a request', { error: String(error) });
        if (!res.headersSent) res.status(500).end();
      });
    });
  }
  return router;
}
