import { useEffect, useState } from 'react';
import { api } from '../api/client';

interface ToolSetting {
  id: string;
  name: string;
  description?: string | null;
  mcp_enabled?: boolean | null;
  action_name?: string | null;
  action_description?: string | null;
}
interface McpProject {
  tools: ToolSetting[];
  auth_settings?: { auth_type?: string; [key: string]: unknown } | null;
}

/** A project's MCP server: which flows are tools, their names and descriptions, auth, client config. */
export function McpView({ projectId }: { projectId: string }) {
  const [settings, setSettings] = useState<McpProject | null>(null);
  const [status, setStatus] = useState('');
  useEffect(() => {
    api<McpProject>(`/api/v1/mcp/project/${projectId}`).then(setSettings).catch((e: Error) => setStatus(e.message));
  }, [projectId]);
  if (!settings) return <div className="wf-page">{status || 'Loading…'}</div>;
  const origin = window.location.origin;
  const streamable = `${origin}/api/v1/mcp/project/${projectId}/streamable`;
  const sse = `${origin}/api/v1/mcp/project/${projectId}/sse`;
  const authType = settings.auth_settings?.auth_type ?? 'none';
  const clientConfig = {
    mcpServers: {
      [`wiflow-${projectId.slice(0, 8)}`]: { url: streamable, ...(authType === 'apikey' ? { headers: { 'x-api-key': '<YOUR_API_KEY>' } } : {}) },
    },
  };
  const update = (id: string, patch: Partial<ToolSetting>) => setSettings({ ...settings, tools: settings.tools.map((t) => (t.id === id ? { ...t, ...patch } : t)) });
  const save = async () => {
    try {
      const body = await api<McpProject>(`/api/v1/mcp/project/${projectId}`, {
        method: 'PATCH',
        json: { settings: settings.tools, auth_settings: { ...(settings.auth_settings ?? {}), auth_type: authType } },
      });
      if (body && (body as McpProject).tools) setSettings(body as McpProject);
      setStatus('saved');
    } catch (e) {
      setStatus(`save failed: ${(e as Error).message}`);
    }
  };
  return (
    <div className="wf-page" data-testid="mcp-page">
      <h2>MCP server</h2>
      <table className="wf-table">
        <thead>
          <tr>
            <th>Tool</th>
            <th>Flow</th>
            <th>Action name</th>
            <th>Description</th>
          </tr>
        </thead>
        <tbody>
          {settings.tools.map((t) => (
            <tr key={t.id}>
              <td>
                <input type="checkbox" checked={Boolean(t.mcp_enabled)} onChange={(e) => update(t.id, { mcp_enabled: e.target.checked })} data-testid={`mcp-enable-${t.name}`} />
              </td>
              <td>{t.name}</td>
              <td>
                <input value={t.action_name ?? ''} onChange={(e) => update(t.id, { action_name: e.target.value })} data-testid={`mcp-action-${t.name}`} />
              </td>
              <td>
                <input value={t.action_description ?? ''} onChange={(e) => update(t.id, { action_description: e.target.value })} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <label>
        <span>Auth</span>
        <select value={authType} onChange={(e) => setSettings({ ...settings, auth_settings: { ...(settings.auth_settings ?? {}), auth_type: e.target.value } })} data-testid="mcp-auth">
          <option value="none">none</option>
          <option value="apikey">API key</option>
          <option value="oauth">OAuth</option>
        </select>
      </label>
      <button onClick={() => void save()} data-testid="mcp-save">Save</button> <span data-testid="mcp-status">{status}</span>
      <h3>Endpoints</h3>
      <p>
        Streamable HTTP: <code data-testid="mcp-url">{streamable}</code>
      </p>
      <p>
        SSE (legacy): <code>{sse}</code>
      </p>
      <h3>Client config</h3>
      <pre className="wf-log">{JSON.stringify(clientConfig, null, 2)}</pre>
      <button onClick={() => void navigator.clipboard?.writeText(JSON.stringify(clientConfig, null, 2))}>Copy</button>
    </div>
  );
}
