import { SECRET_MASK, type SecretBox } from '@wiflow/core';
import { z } from 'zod';

const optionalString = z.string().nullable().optional();

/** AuthSettings of a project's MCP server; `oauth_client_secret` is write-only. */
export const AuthSettingsSchema = z.object({
  auth_type: z.enum(['none', 'apikey', 'oauth']).default('none'),
  oauth_host: optionalString,
  oauth_port: optionalString,
  oauth_server_url: optionalString,
  oauth_callback_path: optionalString,
  oauth_callback_url: optionalString,
  oauth_client_id: optionalString,
  oauth_client_secret: optionalString,
  oauth_auth_url: optionalString,
  oauth_token_url: optionalString,
  oauth_mcp_scope: optionalString,
  oauth_provider_scope: optionalString,
});
/** Parsed AuthSettings. */
export type AuthSettings = z.output<typeof AuthSettingsSchema>;

const STRING_FIELDS = ['oauth_host', 'oauth_port', 'oauth_server_url', 'oauth_callback_path', 'oauth_callback_url', 'oauth_client_id', 'oauth_auth_url', 'oauth_token_url', 'oauth_mcp_scope', 'oauth_provider_scope'] as const;

/**
 * What to store: the given settings with `oauth_client_secret` sealed by the runtime's
 * SecretBox. A secret sent as the mask, or left out, keeps the stored one; null clears it.
 */
export function sealAuthSettings(box: SecretBox, incoming: AuthSettings, stored: Record<string, unknown> | null): Record<string, unknown> {
  const out: Record<string, unknown> = { auth_type: incoming.auth_type };
  for (const field of STRING_FIELDS) out[field] = incoming[field] ?? null;
  const secret = incoming.oauth_client_secret;
  if (secret === undefined || secret === SECRET_MASK) out.oauth_client_secret_sealed = stored?.oauth_client_secret_sealed ?? null;
  else out.oauth_client_secret_sealed = secret === null || secret === '' ? null : box.seal(secret);
  return out;
}

/** AuthSettings as returned by the API: every field, the client secret never (null, or the mask when one is set). */
export function publicAuthSettings(stored: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!stored) return null;
  const out: Record<string, unknown> = { auth_type: stored.auth_type ?? 'none' };
  for (const field of STRING_FIELDS) out[field] = (stored[field] as string | null | undefined) ?? null;
  out.oauth_client_secret = stored.oauth_client_secret_sealed ? SECRET_MASK : null;
  return out;
}

/** The clear client secret, for talking to the OAuth provider. */
export function openClientSecret(box: SecretBox, stored: Record<string, unknown> | null): string | null {
  const sealed = stored?.oauth_client_secret_sealed;
  return typeof sealed === 'string' ? box.open(sealed) : null;
}
