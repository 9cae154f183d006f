import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { StudioErrors } from '../errors.js';

/** What the OAuth check needs from a project's AuthSettings (client secret already opened). */
export interface OAuthSettings {
  serverUrl: string | null;
  clientId: string | null;
  clientSecret: string | null;
  scope: string | null;
}

interface ProviderMetadata {
  issuer?: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
}

/**
 * Validates bearer tokens for projects with `auth_type: oauth` against the configured
 * provider: its metadata (RFC 8414 `/.well-known/oauth-authorization-server`, then OpenID
 * `/.well-known/openid-configuration`) gives a JWKS (JWT access tokens: signature, expiry,
 * issuer) and/or an introspection endpoint (RFC 7662, client id and secret as HTTP Basic).
 * Accepted tokens are cached for `cacheMs`.
 */
export class OAuthValidator {
  readonly #metadata = new Map<string, Promise<ProviderMetadata>>();
  readonly #jwks = new Map<string, JWTVerifyGetKey>();
  readonly #accepted = new Map<string, number>();

  constructor(private readonly cacheMs: () => number, private readonly fetchImpl: typeof fetch = fetch) {}

  async #discover(serverUrl: string): Promise<ProviderMetadata> {
    let cached = this.#metadata.get(serverUrl);
    if (!cached) {
      cached = (async () => {
        const base = serverUrl.replace(/\/$/, '');
        for (const suffix of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
          try {
            const res = await this.fetchImpl(`${base}${suffix}`, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(5000) });
            if (res.ok) return (await res.json()) as ProviderMetadata;
          } catch {
            // try the next well-known document
          }
        }
        throw StudioErrors.oauthMisconfigured(`no authorization server metadata at ${base}`);
      })();
      cached.catch(() => this.#metadata.delete(serverUrl));
      this.#metadata.set(serverUrl, cached);
    }
    return cached;
  }

  /** Whether the token is valid for these settings. */
  async validate(settings: OAuthSettings, token: string): Promise<boolean> {
    if (!settings.serverUrl) throw StudioErrors.oauthMisconfigured('oauth_server_url is not set');
    const cacheKey = `${settings.serverUrl}\u0000${token}`;
    const until = this.#accepted.get(cacheKey);
    if (until && until > Date.now()) return true;
    const metadata = await this.#discover(settings.serverUrl);
    let ok = false;
    if (token.split('.').length === 3 && metadata.jwks_uri) {
      let jwks = this.#jwks.get(metadata.jwks_uri);
      if (!jwks) {
        jwks = createRemoteJWKSet(new URL(metadata.jwks_uri));
        this.#jwks.set(metadata.jwks_uri, jwks);
      }
      try {
        const { payload } = await jwtVerify(token, jwks, metadata.issuer ? { issuer: metadata.issuer } : {});
        ok = hasScope(typeof payload.scope === 'string' ? payload.scope : Array.isArray(payload.scp) ? payload.scp.join(' ') : '', settings.scope);
      } catch {
        ok = false;
      }
    } else if (metadata.introspection_endpoint) {
      if (!settings.clientId || !settings.clientSecret) throw StudioErrors.oauthMisconfigured('token introspection needs oauth_client_id and oauth_client_secret');
      const res = await this.fetchImpl(metadata.introspection_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${settings.clientId}:${settings.clientSecret}`).toString('base64')}` },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.timeout(5000),
      });
      const body = res.ok ? ((await res.json()) as { active?: boolean; scope?: string }) : { active: false };
      ok = body.active === true && hasScope(body.scope ?? '', settings.scope);
    } else {
      throw StudioErrors.oauthMisconfigured('the provider publishes neither jwks_uri nor introspection_endpoint');
    }
    if (ok) this.#accepted.set(cacheKey, Date.now() + this.cacheMs());
    return ok;
  }
}

function hasScope(granted: string, wanted: string | null): boolean {
  if (!wanted) return true;
  const have = new Set(granted.split(/\s+/).filter(Boolean));
  return wanted.split(/\s+/).filter(Boolean).every((s) => have.has(s));
}
