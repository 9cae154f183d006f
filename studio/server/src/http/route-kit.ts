import type { Request, RequestHandler, Response, NextFunction, Router } from 'express';
import { routeRouter, type Principal, type RouteDefinition } from '@wiflow/core';
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

/** How a flow service router reads bodies. */
export interface FlowServiceRouterOptions {
  /** JSON body size limit (default 1mb). */
  bodyLimit?: string;
}

/** Stands for "no body was sent" between the body readers and validation, which core hands `req.body ?? {}`. */
const NO_BODY = Object.freeze({ __flowServiceNoBody: true });

/** Body reader after the JSON readers: mark a missing body, so validation sees `undefined` as the bare routers did. */
function markMissingBody(req: Request, _res: Response, next: NextFunction): void {
  if (req.body === undefined) req.body = NO_BODY;
  next();
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
  return routeRouter(routes, {
    hooks: studio.runtime.hooks,
    logger: studio.runtime.logger,
    convention: () => 'A',
    wrapSuccess: false,
    passErrors: true,
    bodyParsers: [...jsonBody(options.bodyLimit ?? '1mb'), markMissingBody as RequestHandler],
    async authenticate(req, res) {
      // The rate limiter in front already asked who is calling: ask once per request.
      const principal = res.locals.authChecked ? (res.locals.principal as Principal | undefined) : await authenticate(studio.runtime, req, studio.config.autoLogin);
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
}
