import { SECRET_MASK, type Principal, type SecretBox } from '@wiflow/core';
import { z } from 'zod';

const optionalString = z.string().nullable().optional();

/** How a project's MCP server authenticates when its owner chose nothing: an API key of the owner. `none` must be chosen. */
export const DEFAULT_MCP_AUTH_TYPE = 'apikey';

/** The MCP auth type in force for stored settings (none stored: the default, never `none`). */
export function mcpAuthType(stored: Record<string, unknown> | null | undefined): string {
  return (stored?.auth_type as string | undefined) ?? DEFAULT_MCP_AUTH_TYPE;
}

/**
 * Who an unauthenticated call to a project whose owner chose `auth_type: none` runs as: no
 * role and no user of its own, so it never inherits the owner's rights (admin included) and
 * reaches none of the owner's files.
 */
export const ANONYMOUS_MCP_PRINCIPAL: Principal = Object.freeze({ userId: 'anonymous-mcp-caller', username: 'anonymous', roles: [], via: 'mcp:none' }) as Principal;

/** AuthSettings of a project's MCP server; `oauth_client_secret` is write-only. */
export const AuthSettingsSchema = z.object({
  auth_type: z.enum(['none', 'apikey', 'oauth']).default(DEFAULT_MCP_AUTH_TYPE),
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
  const out: Record<string, unknown> = { auth_type: mcpAuthType(stored) };
  for (const field of STRING_FIELDS) out[field] = (stored[field] as string | null | undefined) ?? null;
  out.oauth_client_secret = stored.oauth_client_secret_sealed ? SECRET_MASK : null;
  return out;
}

/** The clear client secret, for talking to the OAuth provider. */
export function openClientSecret(box: SecretBox, stored: Record<string, unknown> | null): string | null {
  const sealed = stored?.oauth_client_secret_sealed;
  return typeof sealed === 'string' ? box.open(sealed) : null;
}
