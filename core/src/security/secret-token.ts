import { createHash, randomBytes } from 'node:crypto';

/**
 * Make a high-entropy bearer secret (API key, refresh token): prefix + 32 random bytes in
 * base64url. Such secrets are stored as SHA-256 (`hashToken`): unlike passwords they cannot
 * be guessed, so a fast hash is safe and lets every request look its key up by hash.
 */
export function generateToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

/** Hex SHA-256 of a token, the form in which storage keeps API keys and refresh tokens. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
