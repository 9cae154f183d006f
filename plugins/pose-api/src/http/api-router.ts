import type { Router } from 'express';
import { routeRouter, type RouteStep } from '@wiflow/core';
import { ApiErrors } from '../errors.js';
import type { ApiServices } from '../services.js';
import type { PoseRoute } from './route.js';

/** Body size limit of JSON requests (CSI submissions are the largest). */
export const JSON_BODY_LIMIT = '8mb';

/**
 * The pose API's router: core's route kit (authenticate, authorise, read and validate, answer
 * in the convention in force) with the pose service's rate limits (headers on every answer)
 * and its system-state guard.
 */
export function buildApiRouter(services: ApiServices, routes: PoseRoute[]): Router {
  return routeRouter(routes, {
    hooks: services.host.hooks,
    logger: services.host.logger,
    convention: () => services.convention(),
    bodyLimit: JSON_BODY_LIMIT,
    maxJsonDepth: services.host.config.get('server').maxJsonDepth,
    admit: (step) => rateLimit(services, step),
    check: ({ route }) => {
      if (route.requiresRunning && !services.producing()) throw ApiErrors.systemNotReady(services.system.state);
    },
  });
}

/**
 * One bucket per principal (a user's tokens and API keys share it: minting keys never
 * multiplies a limit); anonymous calls and logins by client address (the TCP peer unless
 * server.trustProxy names the proxy).
 */
async function rateLimit(services: ApiServices, { route, req, res, auth, convention }: RouteStep<PoseRoute>): Promise<void> {
  const limits = services.apiConfig().rateLimits;
  if (!limits.enabled) return;
  const principal = auth.principal;
  const caller = route.category === 'auth' || !principal ? `ip:${req.ip}` : `user:${principal.userId}`;
  const { limit, windowSeconds } = limits[route.category];
  const verdict = await services.limiter.check(route.category, caller, limit, windowSeconds);
  res.setHeader('X-RateLimit-Limit', String(verdict.limit));
  res.setHeader('X-RateLimit-Remaining', String(verdict.remaining));
  res.setHeader('X-RateLimit-Reset', String(verdict.resetSeconds));
  res.setHeader('X-RateLimit-Window', String(verdict.windowSeconds));
  if (verdict.allowed) return;
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
