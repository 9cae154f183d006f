import type { Router } from 'express';
import { routeRouter, type Principal, type RouteDefinition } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { authenticate } from './auth.js';
import { jsonBody } from './json-body.js';
import { hasFlowRole, roleOf } from './roles.js';
import { parseWith } from './validation.js';

/**
 * Mount flow service routes declared with core's `defineRoute` on core's route kit, in the
 * flow service's own terms: auto-login when no credentials come, no role counting as viewer,
 * FastAPI's 422 validation (`parseWith`), its JSON body readers (422 refusals), bare bodies,
 * and every error handed to the service's one error handler (`{detail, code}`).
 */
export function flowServiceRouter(studio: StudioContext, routes: readonly RouteDefinition[]): Router {
  return routeRouter(routes, {
    hooks: studio.runtime.hooks,
    logger: studio.runtime.logger,
    convention: () => 'A',
    wrapSuccess: false,
    passErrors: true,
    bodyParsers: jsonBody(),
    async authenticate(req, res) {
      // The rate limiter in front already asked who is calling: ask once per request.
      const principal = res.locals.authChecked ? (res.locals.principal as Principal | undefined) : await authenticate(studio.runtime, req, studio.config.autoLogin);
      res.locals.principal = principal;
      return { principal, presented: principal !== undefined };
    },
    authorize: (principal, access) => hasFlowRole(principal.roles, access),
    validate: (schema, input, where) => parseWith(schema, input, where),
    errors: {
      unauthenticated: () => StudioErrors.unauthenticated(),
      forbidden: (needed, principal) => StudioErrors.forbidden(`role ${roleOf(principal.roles)} may not call this endpoint: ${needed} or admin is needed`),
    },
  });
}
