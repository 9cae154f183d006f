import { createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { Passport } from 'passport';
import { Strategy as JwtStrategy } from 'passport-jwt';
import { HttpErrors, ROLES, loadOrCreateKey, roleRank, type AuthRequest, type Principal, type Storage, type UserRecord } from '@wiflow/core';
import type { AuthConfig } from './config.js';
import { IdentityErrors } from './errors.js';
import { TokenRevocation } from './token-revocation.js';

/** Token pair answered by POST /auth/token. */
export interface TokenGrant {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  /** Refresh token lifetime, seconds (extension). */
  refresh_expires_in: number;
}

interface AccessClaims {
  sub: string;
  username: string;
  roles: string[];
  typ: 'access';
  /** Session: the refresh-token family the token was granted with (revoking it kills the token). */
  sid?: string;
  /** When the token was signed, ms since the epoch (`iat` is whole seconds: too coarse to order against a password change). */
  iat_ms?: number;
}

/** What the identity service needs from its runtime: nothing more. */
export interface IdentityServiceOptions {
  /** Where `jwt.key` is kept when WIFLOW_JWT_SECRET is not set. */
  dataDir: string;
  /** The storage service, or undefined while there is none. */
  storage(): Storage | undefined;
  /** The `api.auth` settings in force. */
  config(): AuthConfig;
  env?: NodeJS.ProcessEnv;
}

/**
 * Users, tokens and API keys. Access tokens are HS256 JWTs verified by passport-jwt; refresh
 * tokens and API keys live hashed in storage (the identity rules of core's
 * `createIdentityRepositories`). Nothing here logs a token or a password.
 */
export class IdentityService {
  /** A KeyObject: jsonwebtoken 9 turns a Buffer secret into one on every call, ~100× slower. */
  readonly #secret: KeyObject;
  /** Verified access tokens → principal until their expiry (bounded; JWTs are immutable). */
  readonly #verified = new Map<string, { principal: Principal; expiresAt: number; sessionId: string | undefined; issuedAtMs: number }>();
  /** A passport instance of our own (no global state) with the JWT strategy. */
  readonly #passport = new Passport();
  /** Revoked sessions and per-user marks, read from storage (shared by every server on the store). */
  readonly revocation: TokenRevocation;

  readonly #options: IdentityServiceOptions;

  constructor(options: IdentityServiceOptions) {
    this.#options = options;
    this.#secret = createSecretKey(IdentityService.signingSecret(options.dataDir, options.env ?? process.env));
    this.revocation = new TokenRevocation(() => this.storage(), () => options.config().revocationCheckSeconds * 1000);
    const issuer = options.config().issuer;
    const strategy = new JwtStrategy(
      {
        jwtFromRequest: (request: unknown) => (request as AuthRequest).bearer ?? null,
        // passport-jwt hands the key to jsonwebtoken, which takes a KeyObject (its typings only list string | Buffer).
        secretOrKey: this.#secret as unknown as Buffer,
        algorithms: ['HS256'],
        issuer,
        audience: issuer,
      },
      (claims: AccessClaims, done: (error: unknown, user?: Principal | false) => void) => {
        if (claims.typ !== 'access' || typeof claims.sub !== 'string') return done(null, false);
        done(null, { userId: claims.sub, username: claims.username, roles: Array.isArray(claims.roles) ? claims.roles : [], via: 'jwt' });
      },
    );
    this.#passport.use('wiflow-jwt', strategy);
  }

  /** WIFLOW_JWT_SECRET (>= 32 characters), else `<dataDir>/jwt.key` created with mode 0600. */
  static signingSecret(dataDir: string, env: NodeJS.ProcessEnv): Buffer {
    const fromEnv = env.WIFLOW_JWT_SECRET;
    if (fromEnv !== undefined && fromEnv !== '') {
      if (fromEnv.length < 32) throw new Error('WIFLOW_JWT_SECRET must be at least 32 characters');
      return Buffer.from(fromEnv, 'utf8');
    }
    return loadOrCreateKey(dataDir, 'jwt.key');
  }

  /** The storage service, or IdentityErrors.storageUnavailable. */
  storage(): Storage {
    const storage = this.#options.storage();
    if (!storage) throw IdentityErrors.storageUnavailable();
    return storage;
  }

  /** The `api.auth` settings in force. */
  config(): AuthConfig {
    return this.#options.config();
  }

  /** Verify credentials: a bearer JWT first, then an API key. Undefined when nothing verifies. */
  async authenticate(request: AuthRequest): Promise<Principal | undefined> {
    if (request.bearer) {
      let verified = this.#verified.get(request.bearer);
      if (!verified || verified.expiresAt <= Date.now()) {
        const principal = await this.#verifyBearer(request);
        const claims = principal ? (jwt.decode(request.bearer) as (AccessClaims & { exp?: number; iat?: number }) | null) : null;
        if (principal && claims?.exp) {
          verified = { principal, expiresAt: claims.exp * 1000, sessionId: claims.sid, issuedAtMs: claims.iat_ms ?? (claims.iat ?? 0) * 1000 };
          if (this.#verified.size >= 10_000) this.#verified.delete(this.#verified.keys().next().value!);
          this.#verified.set(request.bearer, verified);
        } else verified = undefined;
      }
      if (verified) {
        // A signature proves who signed, not that the token still stands: revoked sessions, password changes and
        // disabled users are checked against storage (cached for api.auth.revocationCheckSeconds).
        if (!this.#options.storage()) return verified.principal;
        const user = await this.revocation.standing(verified.principal.userId, verified.sessionId, verified.issuedAtMs);
        // Roles as they are now, so a demotion takes effect with the same delay as a revocation.
        return user ? { ...verified.principal, username: user.username, roles: user.roles } : undefined;
      }
    }
    const storage = this.#options.storage();
    if (request.apiKey && storage) {
      const record = await storage.apiKeys.verify(request.apiKey);
      if (!record) return undefined;
      const user = await storage.users.get(record.userId);
      if (!user || !user.isActive) return undefined;
      // A key carries the roles named in its scopes, never more than its owner has.
      const ownerRank = roleRank(user.roles);
      const scoped = record.scopes.filter((s) => (ROLES as readonly string[]).includes(s));
      const roles = scoped.length ? scoped.filter((r) => roleRank([r]) <= ownerRank) : user.roles;
      return { userId: user.id, username: user.username, roles, via: `apikey:${record.id}` };
    }
    return undefined;
  }

  /**
   * Run passport's JWT strategy on the credentials (the same call passport's Express
   * middleware makes, with a callback so nothing is written to a response or a session).
   */
  #verifyBearer(request: AuthRequest): Promise<Principal | undefined> {
    return new Promise((resolve, reject) => {
      const middleware = this.#passport.authenticate('wiflow-jwt', { session: false }, (error: unknown, user: Principal | false) => {
        if (error) reject(error);
        else resolve(user || undefined);
      });
      middleware({ ...request }, undefined, reject);
    });
  }

  /** Sign an access token for a user (in a session: the refresh-token family it was granted with). */
  signAccessToken(user: Pick<UserRecord, 'id' | 'username' | 'roles'>, sessionId?: string): { token: string; expiresIn: number } {
    const { accessTokenTtlSeconds: expiresIn, issuer } = this.config();
    const claims: AccessClaims = { sub: user.id, username: user.username, roles: user.roles, typ: 'access', iat_ms: Date.now(), ...(sessionId ? { sid: sessionId } : {}) };
    const token = jwt.sign(claims, this.#secret, { algorithm: 'HS256', expiresIn, issuer, audience: issuer, jwtid: randomBytes(9).toString('base64url') });
    return { token, expiresIn };
  }

  async #grant(user: UserRecord, familyId?: string): Promise<TokenGrant> {
    const { refreshTokenTtlSeconds } = this.config();
    const refresh = await this.storage().refreshTokens.issue({ userId: user.id, expiresAt: Date.now() + refreshTokenTtlSeconds * 1000, familyId });
    const access = this.signAccessToken(user, refresh.record.familyId);
    return { access_token: access.token, token_type: 'bearer', expires_in: access.expiresIn, refresh_token: refresh.token, refresh_expires_in: refreshTokenTtlSeconds };
  }

  /** Username and password → tokens; 401 on any mismatch (same answer for unknown users). */
  async login(username: string, password: string): Promise<TokenGrant> {
    const storage = this.storage();
    const user = await storage.users.verifyPassword(username, password);
    if (!user) throw HttpErrors.unauthenticated('invalid username or password');
    await storage.users.update(user.id, { lastLoginAt: Date.now() });
    return this.#grant(user);
  }

  /** A refresh token → a new pair (rotation: the old refresh token is used up; reuse revokes the family). */
  async refresh(refreshToken: string): Promise<TokenGrant> {
    const storage = this.storage();
    const outcome = await storage.refreshTokens.consume(refreshToken);
    if (outcome.status !== 'ok') {
      // Reuse means a stolen token: the session's access tokens die with its refresh tokens.
      if (outcome.status === 'reused') await this.revocation.revokeSession(outcome.token.familyId, this.config().accessTokenTtlSeconds * 1000);
      const why = { invalid: 'refresh token is not valid', expired: 'refresh token has expired', revoked: 'refresh token was revoked', reused: 'refresh token was already used; its session is revoked' }[outcome.status];
      throw HttpErrors.unauthenticated(why);
    }
    const user = await storage.users.get(outcome.token.userId);
    if (!user || !user.isActive) throw HttpErrors.unauthenticated('the user of this refresh token no longer exists or is disabled');
    return this.#grant(user, outcome.token.familyId);
  }

  /** Revoke the session (family) of a refresh token; true when it existed. */
  async revoke(refreshToken: string): Promise<boolean> {
    const storage = this.storage();
    const outcome = await storage.refreshTokens.consume(refreshToken);
    if (outcome.status === 'invalid') return false;
    await storage.refreshTokens.revokeFamily(outcome.token.familyId);
    await this.revocation.revokeSession(outcome.token.familyId, this.config().accessTokenTtlSeconds * 1000);
    return true;
  }

  /** Set a user's password and kill every token issued before (refresh and access, on every server sharing the store). */
  async changePassword(userId: string, password: string): Promise<void> {
    await this.storage().users.setPassword(userId, password);
    await this.revocation.revokeUser(userId);
  }

  /**
   * First start: when no user exists, create the admin (WIFLOW_ADMIN_USER or 'admin') with
   * WIFLOW_ADMIN_PASSWORD or a random password printed once through `print`.
   */
  async bootstrapAdmin(print: (line: string) => void, env: NodeJS.ProcessEnv = process.env): Promise<UserRecord | null> {
    const storage = this.storage();
    if ((await storage.users.count()) > 0) return null;
    const username = env.WIFLOW_ADMIN_USER || 'admin';
    const given = env.WIFLOW_ADMIN_PASSWORD;
    if (given !== undefined && given.length > 0 && given.length < 12) throw new Error('WIFLOW_ADMIN_PASSWORD must be at least 12 characters');
    const password = given || randomBytes(18).toString('base64url');
    const user = await storage.users.create({ username, password, roles: ['admin'], isSuperuser: true });
    if (!given) {
      print(`wiflow: created the first user "${username}" with the password below. It is shown once; change it after logging in.`);
      print(`wiflow: ${password}`);
    } else {
      print(`wiflow: created the first user "${username}" with the password from WIFLOW_ADMIN_PASSWORD.`);
    }
    return user;
  }
}
