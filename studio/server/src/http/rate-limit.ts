import type { NextFunction, Request, Response } from 'express';
import { flowServiceErrorBody } from '@wiflow/core';
import { StudioErrors } from '../errors.js';
import { authenticate, type Authenticator } from './auth.js';

/** One caller's count in the current window. */
interface Bucket {
  count: number;
  resetAt: number;
}

/** Fixed-window request counter per caller: a user id when the request authenticates, else the client address. */
export class FlowRateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  #nextSweep = 0;

  constructor(private readonly settings: () => { requests: number; windowSeconds: number }) {}

  /** Count one request of `caller` at `now`; the figures for the X-RateLimit-* headers and whether it may go on. */
  take(caller: string, now = Date.now()): { allowed: boolean; limit: number; remaining: number; resetAt: number; windowSeconds: number } {
    const { requests, windowSeconds } = this.settings();
    if (now >= this.#nextSweep) this.#sweep(now, windowSeconds);
    let bucket = this.#buckets.get(caller);
    if (!bucket || bucket.resetAt <= now) {
      bucket = { count: 0, resetAt: now + windowSeconds * 1000 };
      this.#buckets.set(caller, bucket);
    }
    bucket.count++;
    return { allowed: bucket.count <= requests, limit: requests, remaining: Math.max(0, requests - bucket.count), resetAt: bucket.resetAt, windowSeconds };
  }

  /** Forget windows that ended, so callers that went away cost no memory. */
  #sweep(now: number, windowSeconds: number): void {
    for (const [key, bucket] of this.#buckets) if (bucket.resetAt <= now) this.#buckets.delete(key);
    this.#nextSweep = now + windowSeconds * 1000;
  }
}

/**
 * Middleware in front of every flow service router: finds the caller (the principal is kept
 * for `requireUser`, so credentials are checked once), counts the request, sets the pose
 * spec's X-RateLimit-Limit / -Remaining / -Reset (epoch s) / -Window (s) headers, and
 * answers 429 `WIFLOW_STUDIO_RATE_LIMITED` with Retry-After over the limit. No body is read.
 */
export function rateLimit(authenticator: Authenticator, limiter: FlowRateLimiter, autoLogin: () => boolean) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (res.locals.rateCounted) return next();
    res.locals.rateCounted = true;
    const principal = await authenticate(authenticator, req, autoLogin()).catch(() => undefined);
    res.locals.authChecked = true;
    res.locals.principal = principal;
    const caller = principal ? `user:${principal.userId}` : `address:${req.socket.remoteAddress ?? 'unknown'}`;
    const verdict = limiter.take(caller);
    const resetSeconds = Math.ceil(verdict.resetAt / 1000);
    res.setHeader('X-RateLimit-Limit', String(verdict.limit));
    res.setHeader('X-RateLimit-Remaining', String(verdict.remaining));
    res.setHeader('X-RateLimit-Reset', String(resetSeconds));
    res.setHeader('X-RateLimit-Window', String(verdict.windowSeconds));
    if (verdict.allowed) return next();
    res.setHeader('Retry-After', String(Math.max(1, Math.ceil((verdict.resetAt - Date.now()) / 1000))));
    const error = StudioErrors.rateLimited(verdict.limit, verdict.windowSeconds);
    res.status(error.status).json(flowServiceErrorBody(Object.assign(error, { details: { limit: verdict.limit, window_seconds: verdict.windowSeconds, reset_at: new Date(verdict.resetAt).toISOString() } })));
  };
}
