import { isJobFlow } from '@wiflow/core/flow-interface';
import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { isRunning, listDeployments, listJobs, timeAgo, type DeploymentInfo, type JobInfo, type ListedTool } from '../api/studio';
import { go } from '../hooks/useHashRoute';
import { DataTable } from '../components/DataTable';

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
  updated_at?: string | null;
  valid?: boolean | null;
  problems?: unknown[] | null;
  data?: { nodes?: { data?: { nodeType?: string } }[] } | null;
}

/** A job flow takes inputs or gives outputs (io.input / io.output nodes, core's isJobFlow); anything else runs as a pipeline. */
function kindOf(f: FlowHeader): 'job' | 'pipeline' | 'empty' {
  const nodes = f.data?.nodes ?? [];
  if (nodes.length === 0) return 'empty';
  return isJobFlow({ nodes }) ? 'job' : 'pipeline';
}

/** The state columns of one flow: running or not, its MCP tool name, its last job. */
interface FlowState {
  deployment?: DeploymentInfo;
  tool?: string;
  lastJob?: JobInfo;
}

function FlowTable({ flows, state }: { flows: FlowHeader[]; state: (f: FlowHeader) => FlowState }) {
  if (flows.length === 0) return <p className="muted">No flows yet.</p>;
  return (
    <DataTable className="wf-flows" columns={['Flow', 'Kind', 'State', 'MCP tool', 'Last run', 'Saved']}>
      {flows.map((f) => {
        const { deployment, tool, lastJob } = state(f);
        return (
          <tr key={f.id} data-testid={`flow-row-${f.name}`}>
            <td>
              <a href={`#/flows/${f.id}`} data-testid={`flow-${f.name}`}>{f.name}</a>
              {f.description ? <div className="muted wf-flow-description" title={f.description}>{f.description}</div> : null}
            </td>
            <td className="muted">{kindOf(f)}</td>
            <td data-testid={`flow-state-${f.name}`}>
              {f.valid === false ? (
                <span className="wf-chip failed" title="saved as a draft: open it to see the problems">
                  draft · {f.problems?.length ?? 0} problem{f.problems?.length === 1 ? '' : 's'}
                </span>
              ) : deployment ? (
                <span className={`wf-chip ${deployment.status ?? 'running'}`} title={`deployment ${deployment.id}${deployment.environment_id ? ` · environment ${deployment.environment_id}` : ''}`}>
                  {deployment.status ?? 'running'}
                  {deployment.origin === 'server' ? ' (server)' : ''}
                </span>
              ) : kindOf(f) === 'pipeline' ? (
                <span className="muted">not deployed</span>
              ) : (
                <span className="muted">ready</span>
              )}
            </td>
            <td data-testid={`flow-tool-${f.name}`}>{tool ? <code>{tool}</code> : <span className="muted">—</span>}</td>
            <td data-testid={`flow-last-run-${f.name}`}>
              {lastJob ? (
                <span title={lastJob.error ?? lastJob.created_at}>
                  <span className={`wf-job-status ${lastJob.status}`}>{lastJob.status.replace('_', ' ')}</span> {timeAgo(lastJob.created_at)}
                </span>
              ) : (
                <span className="muted">never</span>
              )}
            </td>
            <td className="muted">{timeAgo(f.updated_at)}</td>
          </tr>
        );
      })}
    </DataTable>
  );
}

/** Projects and their flows with what they are doing (deployed, MCP tool, last run); create, open. */
export function FlowListView() {
  const [projects, setProjects] = useState<Project[]>([]);
  const [flows, setFlows] = useState<FlowHeader[]>([]);
  const [deployments, setDeployments] = useState<DeploymentInfo[]>([]);
  const [jobs, setJobs] = useState<JobInfo[]>([]);
  const [tools, setTools] = useState<ListedTool[]>([]);
  const [name, setName] = useState('');
  const [projectName, setProjectName] = useState('');
  const [projectId, setProjectId] = useState<string>('');
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    try {
      const list = await api<Project[]>('/api/v1/projects/');
      setProjects(list);
      // Whole records (not headers): their nodes tell jobs from pipelines, `valid` tells drafts.
      setFlows(await api<FlowHeader[]>('/api/v1/flows/?get_all=true'));
      // The state columns are extras: a server without one of these APIs still lists flows.
      const [d, j, t] = await Promise.all([
        listDeployments().catch(() => []),
        listJobs({ limit: 500 }).catch(() => []),
        Promise.all(list.map((p) => api<ListedTool[]>(`/api/v1/mcp/project/${p.id}/tools`).catch(() => []))).then((all) => all.flat()),
      ]);
      setDeployments(d);
      setJobs(j);
      setTools(t);
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
  const state = (f: FlowHeader): FlowState => ({
    deployment: deployments.find((d) => d.flow_id === f.id && isRunning(d)) ?? deployments.find((d) => d.flow_id === f.id),
    tool: tools.find((t) => t.flow_id === f.id)?.name,
    lastJob: jobs.find((j) => j.flow_id === f.id),
  });
  // Running flows first, then by name: what is live is what a newcomer looks for.
  const running = (f: FlowHeader) => (deployments.some((d) => d.flow_id === f.id && isRunning(d)) ? 0 : 1);
  const sorted = [...flows].sort((a, b) => running(a) - running(b) || a.name.localeCompare(b.name));
  const outside = sorted.filter((f) => !projects.some((p) => p.id === f.folder_id));
  return (
    <div className="wf-page" data-testid="flow-list">
      <h2>Projects and flows</h2>
      {error ? <p className="error">{error}</p> : null}
      <div className="wf-row wf-create">
        <input placeholder="New flow name" value={name} onChange={(e) => setName(e.target.value)} data-testid="new-flow-name" />
        <select value={projectId || projects[0]?.id || ''} onChange={(e) => setProjectId(e.target.value)} aria-label="Project of the new flow" data-testid="new-flow-project">
          {projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <button onClick={() => void create(projectId || projects[0]?.id || null)} data-testid="new-flow">New flow</button>
        <span className="wf-spacer" />
        <input placeholder="New project name" value={projectName} onChange={(e) => setProjectName(e.target.value)} data-testid="new-project-name" />
        <button onClick={() => void createProject()} data-testid="new-project">New project</button>
      </div>
      {projects.map((p) => {
        const mine = sorted.filter((f) => f.folder_id === p.id);
        const toolCount = mine.filter((f) => state(f).tool).length;
        return (
          <section key={p.id} className="wf-project" data-testid={`project-${p.name}`}>
            <h3>
              {p.name}{' '}
              <a href={`#/mcp/${p.id}`} data-testid={`mcp-link-${p.name}`} className="wf-project-link">
                MCP server{toolCount ? ` · ${toolCount} tool${toolCount === 1 ? '' : 's'}` : ''}
              </a>
            </h3>
            {p.description ? <p className="muted">{p.description}</p> : null}
            <FlowTable flows={mine} state={state} />
          </section>
        );
      })}
      {outside.length ? (
        <section className="wf-project">
          <h3>Outside projects</h3>
          <FlowTable flows={outside} state={state} />
        </section>
      ) : null}
    </div>
  );
}
