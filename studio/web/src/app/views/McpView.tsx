import { useCallback, useEffect, useState } from 'react';
import { api, unwrap } from '../api/client';
import { DataTable } from '../components/DataTable';

interface ToolSetting {
  id: string;
  name: string;
  description?: string | null;
  mcp_enabled?: boolean | null;
  action_name?: string | null;
  action_description?: string | null;
}
type AuthSettings = { auth_type?: string } & Record<string, unknown>;
interface McpProject {
  tools: ToolSetting[];
  auth_settings?: AuthSettings | null;
}
/** A tool as the MCP server lists it (GET .../tools: the same list `tools/list` answers). */
interface ListedTool {
  name: string;
  flow_id: string;
  description: string;
}

/** OAuth fields the server stores (docs/mcp.md); the client secret is write-only. */
const OAUTH_FIELDS: { key: string; label: string; secret?: boolean }[] = [
  { key: 'oauth_server_url', label: 'Issuer URL' },
  { key: 'oauth_client_id', label: 'Client id' },
  { key: 'oauth_client_secret', label: 'Client secret', secret: true },
  { key: 'oauth_mcp_scope', label: 'Required scope' },
  { key: 'oauth_auth_url', label: 'Authorization URL' },
  { key: 'oauth_token_url', label: 'Token URL' },
];
const MASK = '********';

/** A project's MCP server: which flows are tools, their names and descriptions, auth, endpoints, client config. */
export function McpView({ projectId }: { projectId: string }) {
  const [settings, setSettings] = useState<McpProject | null>(null);
  const [listed, setListed] = useState<ListedTool[]>([]);
  const [status, setStatus] = useState('');
  const [apiKey, setApiKey] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [project, setProject] = useState<{ id: string; name: string; description?: string | null } | null>(null);
  const loadListed = useCallback(() => {
    api<ListedTool[]>(`/api/v1/mcp/project/${projectId}/tools`).then(setListed).catch((e: Error) => setStatus(e.message));
  }, [projectId]);
  useEffect(() => {
    api<McpProject>(`/api/v1/mcp/project/${projectId}`).then(setSettings).catch((e: Error) => setStatus(e.message));
    api<{ id: string; name: string; description?: string | null }[]>('/api/v1/projects/').then((all) => setProject(all.find((p) => p.id === projectId) ?? null), () => undefined);
    loadListed();
  }, [projectId, loadListed]);
  if (!settings) return <div className="wf-page">{status || 'Loading…'}</div>;
  const origin = window.location.origin;
  const streamable = `${origin}/api/v1/mcp/project/${projectId}/streamable`;
  const sse = `${origin}/api/v1/mcp/project/${projectId}/sse`;
  // The server's default is an API key; `none` is only ever the owner's explicit choice.
  const auth = settings.auth_settings ?? { auth_type: 'apikey' };
  const authType = auth.auth_type ?? 'apikey';
  const headers = authType === 'apikey' ? { 'x-api-key': apiKey ?? '<YOUR_API_KEY>' } : authType === 'oauth' ? { Authorization: 'Bearer <ACCESS_TOKEN_FROM_YOUR_PROVIDER>' } : undefined;
  // The client config names the server after the project, so a user with several projects tells them apart.
  const slug = (project?.name ?? '').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  const serverName = `wiflow_${slug || projectId.slice(0, 8)}`;
  const clientConfig = { mcpServers: { [serverName]: { url: streamable, ...(headers ? { headers } : {}) } } };
  const bridgeConfig = {
    mcpServers: {
      [serverName]: { command: 'npx', args: ['-y', 'mcp-remote', streamable, ...(headers ? Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}:${v}`]) : [])] },
    },
  };
  const update = (id: string, patch: Partial<ToolSetting>) => setSettings({ ...settings, tools: settings.tools.map((t) => (t.id === id ? { ...t, ...patch } : t)) });
  const setAuth = (patch: AuthSettings) => setSettings({ ...settings, auth_settings: { ...auth, ...patch } });
  const save = async () => {
    try {
      const body = await api<McpProject & { message?: string }>(`/api/v1/mcp/project/${projectId}`, {
        method: 'PATCH',
        json: { settings: settings.tools, auth_settings: { ...auth, auth_type: authType } },
      });
      if (body?.tools) setSettings({ tools: body.tools, auth_settings: body.auth_settings });
      setStatus(body?.message ?? 'saved');
      loadListed();
    } catch (e) {
      setStatus(`save failed: ${(e as Error).message}`);
    }
  };
  const createKey = async () => {
    try {
      const created = unwrap<{ key: string }>(await api('/api/v1/auth/api-keys', { method: 'POST', json: { name: `MCP ${serverName}` } }));
      setApiKey(created.key);
    } catch (e) {
      setStatus(`could not create an API key: ${(e as Error).message}`);
    }
  };
  const copy = (text: string) => {
    void navigator.clipboard?.writeText(text).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  return (
    <div className="wf-page" data-testid="mcp-page">
      <p className="wf-breadcrumb">
        <a href="#/flows">Projects</a> › {project?.name ?? projectId}
      </p>
      <h2 data-testid="mcp-title">
        MCP server of the project “{project?.name ?? projectId}”
      </h2>
      <p className="muted">Every enabled flow is a tool: its io.input nodes are the tool's arguments, its io.output nodes the result.</p>
      <DataTable className="wf-mcp-tools" columns={['Tool', 'Flow', 'Action name', 'Description']}>
        {settings.tools.map((t) => (
          <tr key={t.id}>
            <td>
              <input type="checkbox" checked={Boolean(t.mcp_enabled)} onChange={(e) => update(t.id, { mcp_enabled: e.target.checked })} data-testid={`mcp-enable-${t.name}`} aria-label={`${t.name} is a tool`} />
            </td>
            <td>
              <a href={`#/flows/${t.id}`}>{t.name}</a>
            </td>
            <td>
              <input value={t.action_name ?? ''} placeholder={t.name.replace(/[^a-zA-Z0-9_-]+/g, '_').toLowerCase()} onChange={(e) => update(t.id, { action_name: e.target.value || null })} data-testid={`mcp-action-${t.name}`} />
            </td>
            <td>
              <input value={t.action_description ?? ''} placeholder={t.description ?? ''} onChange={(e) => update(t.id, { action_description: e.target.value || null })} data-testid={`mcp-description-${t.name}`} />
            </td>
          </tr>
        ))}
      </DataTable>
      <div className="wf-row">
        <label>
          <span>Auth</span>
          <select value={authType} onChange={(e) => setAuth({ auth_type: e.target.value })} data-testid="mcp-auth">
            <option value="none">none (trusted network only)</option>
            <option value="apikey">API key (x-api-key)</option>
            <option value="oauth">OAuth (bearer tokens from your provider)</option>
          </select>
        </label>
      </div>
      {authType === 'none' ? (
        <p className="wf-warning" role="alert" data-testid="mcp-auth-warning">
          Anyone who can reach this server can call these tools without credentials. Calls run as an anonymous caller with no role, never as you.
        </p>
      ) : null}
      {authType === 'oauth' ? (
        <div className="wf-config">
          {OAUTH_FIELDS.map((f) => (
            <label key={f.key}>
              <span>{f.label}</span>
              <input
                type={f.secret ? 'password' : 'text'}
                autoComplete={f.secret ? 'new-password' : 'off'}
                value={f.secret && auth[f.key] === MASK ? '' : String(auth[f.key] ?? '')}
                placeholder={f.secret && auth[f.key] === MASK ? 'saved (write-only)' : ''}
                onChange={(e) => setAuth({ [f.key]: e.target.value || (f.secret && auth[f.key] === MASK ? MASK : null) })}
              />
            </label>
          ))}
        </div>
      ) : null}
      {authType === 'apikey' ? (
        <p>
          Clients send an API key of yours in <code>x-api-key</code>.{' '}
          <button onClick={() => void createKey()} data-testid="mcp-create-key">Create a key</button>
          {apiKey ? <span className="muted"> shown once: it is in the config below.</span> : null}
        </p>
      ) : null}
      <p>
        <button onClick={() => void save()} data-testid="mcp-save">Save</button> <span data-testid="mcp-status">{status}</span>
      </p>
      <h3>Tools the server lists now</h3>
      {listed.length === 0 ? <p className="muted">No tools yet: enable a flow above and save.</p> : null}
      <ul data-testid="mcp-tools">
        {listed.map((t) => (
          <li key={t.flow_id}>
            <code>{t.name}</code> <span className="muted">{t.description}</span>
          </li>
        ))}
      </ul>
      <h3>Endpoints</h3>
      <p>
        Streamable HTTP: <code data-testid="mcp-url">{streamable}</code>
      </p>
      <p>
        SSE (legacy): <code>{sse}</code>
      </p>
      <h3>Client config</h3>
      <p className="muted">Cursor, Windsurf (serverUrl) and other clients that speak Streamable HTTP:</p>
      <pre className="wf-log" data-testid="mcp-client-config">{JSON.stringify(clientConfig, null, 2)}</pre>
      <button onClick={() => copy(JSON.stringify(clientConfig, null, 2))}>Copy</button>
      <p className="muted">Claude Desktop (stdio clients) through the mcp-remote bridge:</p>
      <pre className="wf-log">{JSON.stringify(bridgeConfig, null, 2)}</pre>
      <button onClick={() => copy(JSON.stringify(bridgeConfig, null, 2))}>Copy</button> {copied ? <span className="muted">copied</span> : null}
    </div>
  );
}
