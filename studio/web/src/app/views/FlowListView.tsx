import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { go } from '../hooks/useHashRoute';

interface Project {
  id: string;
  name: string;
  description?: string | null;
}
interface FlowHeader {
  id: string;
  name: string;
  description?: string | null;
  folder_id?: string | null;
  mcp_enabled?: boolean | null;
}

/** Projects and their flows; create, open, delete. */
export function FlowListView() {
  const [projects, setProjects] = useState<Project[]>([]);
  const [flows, setFlows] = useState<FlowHeader[]>([]);
  const [name, setName] = useState('');
  const [projectName, setProjectName] = useState('');
  const [projectId, setProjectId] = useState<string>('');
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    try {
      setProjects(await api<Project[]>('/api/v1/projects/'));
      setFlows(await api<FlowHeader[]>('/api/v1/flows/?header_flows=true&get_all=true'));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => void load(), []);
  const create = async (folderId: string | null) => {
    try {
      const flow = await api<{ id: string }>('/api/v1/flows/', { method: 'POST', json: { name: name || `Flow ${flows.length + 1}`, data: { nodes: [], edges: [] }, folder_id: folderId } });
      go(`flows/${flow.id}`);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  const createProject = async () => {
    if (!projectName) return;
    const created = await api<Project>('/api/v1/projects/', { method: 'POST', json: { name: projectName } }).catch((e: Error) => (setError(e.message), null));
    setProjectName('');
    if (created) setProjectId(created.id);
    void load();
  };
  return (
    <div className="wf-page" data-testid="flow-list">
      <h2>Projects and flows</h2>
      {error ? <p className="error">{error}</p> : null}
      <div className="wf-row">
        <input placeholder="New flow name" value={name} onChange={(e) => setName(e.target.value)} data-testid="new-flow-name" />
        <select value={projectId || projects[0]?.id || ''} onChange={(e) => setProjectId(e.target.value)} aria-label="Project of the new flow" data-testid="new-flow-project">
          {projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <button onClick={() => void create(projectId || projects[0]?.id || null)} data-testid="new-flow">New flow</button>
        <input placeholder="New project name" value={projectName} onChange={(e) => setProjectName(e.target.value)} data-testid="new-project-name" />
        <button onClick={() => void createProject()} data-testid="new-project">New project</button>
      </div>
      {projects.map((p) => (
        <section key={p.id} className="wf-project">
          <h3>
            {p.name} <a href={`#/mcp/${p.id}`} data-testid={`mcp-link-${p.name}`}>MCP server</a>
          </h3>
          <ul>
            {flows
              .filter((f) => f.folder_id === p.id)
              .map((f) => (
                <li key={f.id}>
                  <a href={`#/flows/${f.id}`} data-testid={`flow-${f.name}`}>{f.name}</a> {f.mcp_enabled ? <span className="tag">MCP tool</span> : null}
                  <small className="muted"> {f.description ?? ''}</small>
                </li>
              ))}
          </ul>
        </section>
      ))}
      {flows.some((f) => !projects.some((p) => p.id === f.folder_id)) ? (
        <section className="wf-project">
          <h3>Outside projects</h3>
          <ul>
            {flows.filter((f) => !projects.some((p) => p.id === f.folder_id)).map((f) => (
              <li key={f.id}>
                <a href={`#/flows/${f.id}`}>{f.name}</a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </div>
  );
}
