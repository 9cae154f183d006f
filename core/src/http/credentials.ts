import type { IncomingMessage } from 'node:http';
import { WiflowError } from '../errors.js';
import type { AuthRequest, Principal, RuntimeHooks } from '../hooks/hooks.js';

/**
 * Where an API accepts credentials besides the `Authorization: Bearer` and `X-API-Key` headers:
 * - `headers`: nowhere else (pose API and webhook API requests);
 * - `api-key-query`: also `?x-api-key=` / `?api_key=` (the flow service, as Langflow clients send it);
 * - `socket`: WebSocket upgrades, whose browsers cannot set headers: also `?token=`, `?api_key=`,
 *   `?x-api-key=` and a `bearer.<token>` subprotocol.
 */
export type CredentialSources = 'headers' | 'api-key-query' | 'socket';

/** Credentials found on a request, before anyone checks them. */
export type Credentials = Omit<AuthRequest, 'request'>;

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive, one token, surrounding blanks ignored). */
export function bearerFromHeader(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** The one set of rules for reading credentials off an HTTP request or WebSocket upgrade. */
export function credentialsOf(request: IncomingMessage, sources: CredentialSources = 'headers'): Credentials {
  let bearer = bearerFromHeader(request.headers.authorization);
  const apiKeyHeader = request.headers['x-api-key'];
  let apiKey = Array.isArray(apiKeyHeader) ? apiKeyHeader[0] : apiKeyHeader;
  if (sources !== 'headers') {
    const query = new URL(request.url ?? '/', 'http://localhost').searchParams;
    if (!apiKey) apiKey = query.get('x-api-key') ?? query.get('api_key') ?? undefined;
    if (sources === 'socket' && !bearer) {
      bearer = query.get('token') ?? undefined;
      const protocols = request.headers['sec-websocket-protocol'];
      if (!bearer && typeof protocols === 'string') {
        const entry = protocols.split(',').map((p) => p.trim()).find((p) => p.startsWith('bearer.'));
        if (entry) bearer = entry.slice('bearer.'.length);
      }
    }
  }
  return { bearer: bearer || undefined, apiKey: apiKey || undefined };
}

/** Who a request is, as far as the authentication plugins can tell. */
export interface Authentication {
  /** The verified caller; undefined when no credentials came or none verified. */
  principal: Principal | undefined;
  /** Whether the request carried credentials at all. */
  presented: boolean;
  /** Why presented credentials were refused (for the 401's message). */
  problem?: string;
}

/**
 * Read the request's credentials and ask the authentication plugins (`hooks.authenticate`) who
 * is calling. An authentication plugin that throws a 401 refuses the credentials with its
 * reason; any other error it throws (storage down) propagates, so it is answered as what it is.
 */
export async function authenticate(hooks: Pick<RuntimeHooks, 'authenticate'>, request: IncomingMessage, sources: CredentialSources = 'headers'): Promise<Authentication> {
  const credentials = credentialsOf(request, sources);
  if (!credentials.bearer && !credentials.apiKey) return { principal: undefined, presented: false };
  let principal: Principal | undefined;
  try {
    principal = await hooks.authenticate.promise({ ...credentials, request });
  } catch (error) {
    if (error instanceof WiflowError && error.status === 401) return { principal: undefined, presented: true, problem: error.message };
    throw error;
  }
  if (principal) return { principal, presented: true };
  return { principal: undefined, presented: true, problem: credentials.bearer ? 'the access token is invalid or expired' : 'the API key is invalid, revoked or expired' };
}
