import { useEffect, useState } from 'react';
import { api } from '../api/client';
import { listJobs, timeAgo, type JobInfo } from '../api/studio';
import { DataTable } from '../components/DataTable';

/** Seconds a job took (or has taken so far). */
function duration(job: JobInfo): string {
  if (!job.started_at) return '—';
  const end = job.finished_at ? Date.parse(job.finished_at) : Date.now();
  const ms = end - Date.parse(job.started_at);
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The flow a job ran: a link while the flow exists, else the name it had then. */
function flowCell(job: JobInfo, names: Map<string, string> | null) {
  if (!job.flow_id) return <span className="muted">unsaved flow</span>;
  const current = names?.get(job.flow_id);
  // Until the flow list has loaded (or when it could not), every flow counts as existing.
  if (current !== undefined || names === null) return <a href={`#/flows/${job.flow_id}`}>{current ?? job.flow_name ?? job.flow_id.slice(0, 8)}</a>;
  return <span title="this flow has been deleted">{job.flow_name ?? job.flow_id.slice(0, 8)} <span className="muted">(deleted)</span></span>;
}

/** The caller's recent jobs (runs of job flows from the studio, the API, MCP or webhooks), newest first. */
export function JobsView() {
  const [jobs, setJobs] = useState<JobInfo[] | null>(null);
  const [names, setNames] = useState<Map<string, string> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    listJobs({ limit: 200 }).then(setJobs, (e: Error) => setError(e.message));
    api<{ id: string; name: string }[]>('/api/v1/flows/?header_flows=true&get_all=true').then((f) => setNames(new Map(f.map((x) => [x.id, x.name]))), () => undefined);
  }, []);
  return (
    <div className="wf-page" data-testid="jobs-page">
      <h2>Jobs</h2>
      <p className="muted">Runs of job flows — from the editor's Run, the run and build APIs, MCP tool calls and webhooks. The server stores them (the newest 500 by default), so they stay after a restart; a job it was running when it stopped without a clean shutdown reads failed.</p>
      {error ? <p className="error">{error}</p> : null}
      {jobs === null && !error ? <p className="muted">Loading…</p> : null}
      {jobs?.length === 0 ? <p className="muted" data-testid="jobs-empty">No jobs yet. Open a job flow and choose Run…, or call one of its MCP tools.</p> : null}
      {jobs?.length ? (
        <DataTable className="wf-jobs" testId="jobs-table" columns={['Flow', 'Status', 'From', 'Started', 'Took', 'Error']}>
          {jobs.map((j) => (
            <tr key={j.job_id} title={`job ${j.job_id}`}>
              <td>{flowCell(j, names)}</td>
              <td>
                <span className={`wf-job-status ${j.status}`}>{j.status.replace('_', ' ')}</span>
              </td>
              <td>{j.source ?? '—'}</td>
              <td>{timeAgo(j.created_at)}</td>
              <td>{duration(j)}</td>
              <td className="wf-job-error" title={j.error_code ?? undefined}>
                {j.error ?? ''}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </div>
  );
}
