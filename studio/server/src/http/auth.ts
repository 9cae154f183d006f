import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Principal, Runtime } from '@wiflow/core';
import { StudioErrors } from '../errors.js';

/** The principal that single-user installs act as when `studio.autoLogin` is on. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ userId: '00000000-0000-4000-8000-000000000001', username: 'local', roles: ['admin'], via: 'auto-login' }) as Principal;

/** Credentials found on a request: `Authorization: Bearer`, `x-api-key` header or `x-api-key` query parameter. */
export function credentialsOf(request: IncomingMessage): { bearer?: string; apiKey?: string } {
  const header = request.headers.authorization;
  const bearer = typeof header === 'string' && /^bearer\s+/i.test(header) ? header.replace(/^bearer\s+/i, '').trim() || undefined : undefined;
  let apiKey = request.headers['x-api-key'];
  if (Array.isArray(apiKey)) apiKey = apiKey[0];
  if (!apiKey) {
    const query = new URL(request.url ?? '/', 'http://localhost').searchParams;
    apiKey = query.get('x-api-key') ?? query.get('api_key') ?? undefined;
  }
  return { bearer, apiKey: apiKey || undefined };
}

/** Ask the authentication plugins (hooks.authenticate) who is calling; undefined when nobody vouches. */
export async function authenticate(runtime: Runtime, request: IncomingMessage, autoLogin: boolean): Promise<Principal | undefined> {
  const { bearer, apiKey } = credentialsOf(request);
  if (bearer || apiKey) {
    const principal = await runtime.hooks.authenticate.promise({ bearer, apiKey, request });
    if (principal) return principal;
    return undefined;
  }
  return autoLogin ? LOCAL_PRINCIPAL : undefined;
}

/** Middleware: 401 unless the request authenticates; the principal goes to `res.locals.principal`. */
export function requireUser(runtime: Runtime, autoLogin: () => boolean) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    // The rate limiter in front already asked who is calling: ask once per request.
    const principal = res.locals.authChecked ? (res.locals.principal as Principal | undefined) : await authenticate(runtime, req, autoLogin());
    if (!principal) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      const error = StudioErrors.unauthenticated();
      res.status(401).json({ detail: error.message, code: error.code });
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
