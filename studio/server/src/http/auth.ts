import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { authenticate as authenticateRequest, credentialsOf as readCredentials, flowServiceErrorBody, type Credentials, type Principal, type RuntimeHooks } from '@wiflow/core';
import { StudioErrors } from '../errors.js';

/** The principal that single-user installs act as when `studio.autoLogin` is on. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ userId: '00000000-0000-4000-8000-000000000001', username: 'local', roles: ['admin'], via: 'auto-login' }) as Principal;

/**
 * Credentials on a flow service request, by core's one rule set: `Authorization: Bearer`,
 * `X-API-Key`, and (as Langflow clients send them) `?x-api-key=` / `?api_key=`.
 */
export function credentialsOf(request: IncomingMessage): Credentials {
  return readCredentials(request, 'api-key-query');
}

/** Who can ask the authentication plugins: the studio context (or anything holding core's `authenticate` hook). */
export interface Authenticator {
  readonly hooks: Pick<RuntimeHooks, 'authenticate'>;
}

/** Ask the authentication plugins (core's `authenticate`) who is calling; with no credentials at all, the auto-login principal when it is on. */
export async function authenticate(caller: Authenticator, request: IncomingMessage, autoLogin: boolean): Promise<Principal | undefined> {
  const found = await authenticateRequest(caller.hooks, request, 'api-key-query');
  if (found.presented) return found.principal;
  return autoLogin ? LOCAL_PRINCIPAL : undefined;
}

/** Middleware: 401 unless the request authenticates; the principal goes to `res.locals.principal`. */
export function requireUser(caller: Authenticator, autoLogin: () => boolean) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    // The rate limiter in front already asked who is calling: ask once per request.
    const principal = res.locals.authChecked ? (res.locals.principal as Principal | undefined) : await authenticate(caller, req, autoLogin());
    if (!principal) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      const error = StudioErrors.unauthenticated();
      res.status(401).json(flowServiceErrorBody(error));
      return;
    }
    res.locals.principal = principal;
    next();
  };
}

/** The principal `requireUser` found. */
export function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}

/** Whether a request came from this machine (for install). */
export function isLoopback(request: IncomingMessage): boolean {
  const address = request.socket.remoteAddress ?? '';
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1' || address.startsWith('127.');
}
