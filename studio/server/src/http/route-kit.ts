import type { Request, RequestHandler, Response, NextFunction, Router } from 'express';
import { expressPath, routeRouter, type Principal, type RouteDefinition } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { authenticate } from './auth.js';
import { jsonBody } from './json-body.js';
import { hasFlowRole, roleOf } from './roles.js';
import { parseWith } from './validation.js';

/** A flow service route: core's route, plus what a caller without the role may not do (the 403's wording). */
export interface FlowServiceRoute extends RouteDefinition {
  /** Completes "role viewer may not …" in the 403 (default "call this endpoint"). */
  action?: string;
}

/** Any JSON object: a response whose shape its module describes in TypeScript (`toFolderRead`, `FlowRead`). */
export const JsonObject = z.record(z.string(), z.unknown());

/** How a flow service router reads bodies. */
export interface FlowServiceRouterOptions {
  /** JSON body size limit (default 1mb). */
  bodyLimit?: string;
}

/** Stands for "no body was sent" between the body readers and validation, which core hands `req.body ?? {}`. */
const NO_BODY = Object.freeze({ __flowServiceNoBody: true });

/**
 * The service's JSON body readers (`jsonBody`: parse, turn refusals into 422s, count values) as one
 * plain handler, since core calls body readers as `(req, res, done)` and `jsonBody`'s refusal step
 * is Express error middleware; a missing body is then marked, so validation sees `undefined` as the
 * bare routers did.
 */
function bodyReader(limit: string): RequestHandler {
  const [parse, refusal, count] = jsonBody(limit) as [RequestHandler, (error: unknown, req: Request, res: Response, next: NextFunction) => void, RequestHandler];
  return (req, res, done) => {
    parse(req, res, (error?: unknown) => {
      if (error) return refusal(error, req, res, done);
      count(req, res, (problem?: unknown) => {
        if (problem) return done(problem);
        if (req.body === undefined) req.body = NO_BODY;
        done();
      });
    });
  };
}

/**
 * Mount flow service routes declared with core's `defineRoute` on core's route kit, in the
 * flow service's own terms: auto-login when no credentials come, no role counting as viewer,
 * FastAPI's 422 validation (`parseWith`), its JSON body readers (422 refusals), bare bodies,
 * and every error handed to the service's one error handler (`{detail, code}`).
 * The role check runs in `check` (after authentication, before the body is read) so that its
 * 403 can name the route's `action`, as the service's `requireRole` always has.
 */
export function flowServiceRouter(studio: StudioContext, routes: readonly FlowServiceRoute[], options: FlowServiceRouterOptions = {}): Router {
  // Public routes (health, config) never asked who was calling: nobody's credentials are checked for them.
  const publicRoutes = new Set(routes.filter((route) => route.access === 'public').map((route) => `${route.method} ${expressPath(route.path)}`));
  const isPublic = (req: Request) => publicRoutes.has(`${req.method === 'HEAD' ? 'get' : req.method.toLowerCase()} ${(req.route as { path?: string } | undefined)?.path}`);
  const router = routeRouter(routes, {
    hooks: studio.hooks,
    logger: studio.logger,
    convention: () => 'A',
    wrapSuccess: false,
    passErrors: true,
    bodyParsers: [bodyReader(options.bodyLimit ?? '1mb')],
    async authenticate(req, res) {
      if (isPublic(req)) return { principal: undefined, presented: false };
      // The rate limiter in front already asked who is calling: ask once per request.
      const principal = res.locals.authChecked ? (res.locals.principal as Principal | undefined) : await authenticate(studio, req, studio.config.autoLogin);
      res.locals.principal = principal;
      return { principal, presented: principal !== undefined };
    },
    authorize: () => true,
    check({ route, auth }) {
      const principal = auth.principal;
      if (route.access === 'public' || !principal || hasFlowRole(principal.roles, route.access)) return;
      throw StudioErrors.forbidden(`role ${roleOf(principal.roles)} may not ${route.action ?? 'call this endpoint'}: ${route.access} or admin is needed`);
    },
    validate: (schema, input, where) => parseWith(schema, input === NO_BODY ? undefined : input, where),
    errors: {
      unauthenticated: () => StudioErrors.unauthenticated(),
    },
  });
  declared.set(router, routes);
  return router;
}

/** The routes each flow service router was built from (for the OpenAPI document). */
const declared = new WeakMap<Router, readonly FlowServiceRoute[]>();

/** The `defineRoute` routes a router built by `flowServiceRouter` serves (none for a bare router). */
export function declaredRoutes(router: Router): readonly FlowServiceRoute[] {
  return declared.get(router) ?? [];
}
