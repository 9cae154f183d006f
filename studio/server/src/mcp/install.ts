import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** MCP clients `install` can configure, and where each keeps its config. */
export const MCP_CLIENTS = ['claude', 'cursor', 'windsurf'] as const;
/** One of MCP_CLIENTS. */
export type McpClient = (typeof MCP_CLIENTS)[number];

/** The config file of a client under a home directory (platform-specific for Claude Desktop). */
export function clientConfigPath(client: McpClient, home: string, platform: NodeJS.Platform = process.platform, appData = process.env.APPDATA): string {
  switch (client) {
    case 'claude':
      if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
      if (platform === 'win32') return path.join(appData ?? path.join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
      return path.join(home, '.config', 'Claude', 'claude_desktop_config.json');
    case 'cursor':
      return path.join(home, '.cursor', 'mcp.json');
    case 'windsurf':
      return path.join(home, '.codeium', 'windsurf', 'mcp_config.json');
  }
}

/**
 * The server entry a client understands (MCPServerConfig): Cursor takes `{url, headers}`,
 * Windsurf `{serverUrl, headers}`, Claude Desktop a stdio bridge (`npx mcp-remote <url>`).
 */
export function serverEntry(client: McpClient, url: string, apiKey: string | null): Record<string, unknown> {
  const headers = apiKey ? { 'x-api-key': apiKey } : undefined;
  if (client === 'cursor') return { url, ...(headers ? { headers } : {}) };
  if (client === 'windsurf') return { serverUrl: url, ...(headers ? { headers } : {}) };
  const args = ['-y', 'mcp-remote', url];
  if (apiKey) args.push('--header', `x-api-key:${apiKey}`);
  return { command: 'npx', args };
}

/** Merge a server into a client's config file (`mcpServers`), keeping everything else; written atomically. */
export async function installServer(file: string, serverName: string, entry: Record<string, unknown>): Promise<void> {
  let config: Record<string, unknown> = {};
  try {
    config = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    if (!config || typeof config !== 'object' || Array.isArray(config)) config = {};
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  }
  const servers = (config.mcpServers && typeof config.mcpServers === 'object' ? config.mcpServers : {}) as Record<string, unknown>;
  config.mcpServers = { ...servers, [serverName]: entry };
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
}

/** Whether a client's config names the server. */
export async function isInstalled(file: string, serverName: string): Promise<boolean> {
  try {
    const config = JSON.parse(await readFile(file, 'utf8')) as { mcpServers?: Record<string, unknown> };
    return Boolean(config.mcpServers && serverName in config.mcpServers);
  } catch {
    return false;
  }
}

/** The OS home directory (default of `studio.mcp.installHome`). */
export function defaultHome(): string {
  return os.homedir();
}
