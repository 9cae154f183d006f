// Studio-side views of the server's state: deployments, recent jobs, MCP tools, rooms.
import type { JobStatus } from '@wiflow/core';
import { api } from './client';

/** A deployment as GET /api/v1/studio/deployments lists it (older servers send only id, flow_id, started_at, counters). */
export interface DeploymentInfo {
  id: string;
  flow_id: string | null;
  flow_name?: string | null;
  status?: 'running' | 'stopped' | 'failed' | null;
  /** Why it failed (naming the node), when it did. */
  error?: string | null;
  origin?: 'server' | 'studio' | null;
  /** The first environment the flow's nodes name. */
  environment_id?: string | null;
  /** Every environment the flow's nodes name (older servers send only environment_id). */
  environment_ids?: string[] | null;
  started_at?: string | number | null;
}

/** The environments a deployment writes, as its flow's nodes name them. */
export function environmentsOf(d: DeploymentInfo): string[] {
  if (d.environment_ids) return d.environment_ids;
  return d.environment_id ? [d.environment_id] : [];
}

/** A job as GET /api/v1/studio/jobs lists it. */
export interface JobInfo {
  job_id: string;
  flow_id: string | null;
  /** The flow's name when the job ran (the flow may since be renamed or deleted). */
  flow_name: string | null;
  status: JobStatus;
  source: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: string | null;
  /** e.g. WIFLOW_JOB_INTERRUPTED: the server stopped without a clean shutdown while the job ran. */
  error_code: string | null;
}

/** A tool as a project's MCP server lists it. */
export interface ListedTool {
  name: string;
  flow_id: string;
  description: string;
}

/** A floor plan from GET /api/v1/studio/rooms (metres). */
export interface RoomInfo {
  environment_id: string;
  deployment_id: string;
  flow_id: string | null;
  width: number;
  depth: number;
  radios: { id: string; role: 'tx' | 'rx'; x: number; y: number }[];
  zones: { id: string; name: string; polygon: [number, number][]; node: string }[];
  source: string;
}

/** Whether a listed deployment is running (an older server lists only running ones, without a status). */
export function isRunning(d: DeploymentInfo): boolean {
  return (d.status ?? 'running') === 'running';
}

/** Running deployments, optionally of one flow (filtered here too: an older server ignores `flow_id`). */
export async function listDeployments(flowId?: string): Promise<DeploymentInfo[]> {
  const list = await api<DeploymentInfo[]>(`/api/v1/studio/deployments${flowId ? `?flow_id=${encodeURIComponent(flowId)}` : ''}`);
  return list.filter((d) => !flowId || d.flow_id === flowId);
}

/** The caller's recent jobs, newest first. */
export function listJobs(options: { flowId?: string; limit?: number } = {}): Promise<JobInfo[]> {
  const q = new URLSearchParams();
  if (options.flowId) q.set('flow_id', options.flowId);
  if (options.limit) q.set('limit', String(options.limit));
  return api<JobInfo[]>(`/api/v1/studio/jobs${q.size ? `?${q}` : ''}`);
}

/** "3 min ago" for a timestamp (absolute date after a day). */
export function timeAgo(at: string | number | null | undefined, now = Date.now()): string {
  if (at === null || at === undefined) return '—';
  const t = typeof at === 'number' ? at : Date.parse(at);
  if (!Number.isFinite(t)) return '—';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(t).toLocaleDateString();
}

/** A link a running `sense.link` node senses (`GET /api/v1/studio/sensing-links`): radio, packets, readiness. */
export interface SensingLinkInfo {
  environment_id: string;
  deployment_id: string;
  flow_id: string | null;
  flow_name: string | null;
  node: string;
  link: string;
  format: string | null;
  radio_family: string | null;
  transmit_chains: number | null;
  receive_chains: number | null;
  subcarriers: number | null;
  packets: number;
  other_kind_packets: number;
  seconds: number;
  packets_per_second: number | null;
  lost_fraction: number | null;
  fall_detector: 'velocity-profile' | 'burst' | null;
  provenance: string | null;
  motion_model: 'captures-rate' | 'slow-link' | null;
  motion_floor: { seconds: number; window_seconds: number; quantile: number } | null;
  last_second: number | null;
  /** The last minute's states up to `last_second`, a letter a second (e, s, m), oldest first. */
  recent_states: string;
  state: string | null;
  motion: number | null;
  presence: boolean | null;
  checks: { capability: 'movement' | 'still_person' | 'breathing' | 'falls'; verdict: 'ok' | 'limited' | 'no' | 'unknown'; reason: string }[];
  notes: string[];
}

/** The running pipelines' sensing links. */
export function listSensingLinks(): Promise<{ links: SensingLinkInfo[]; links_not_listed: number }> {
  return api<{ links: SensingLinkInfo[]; links_not_listed: number }>('/api/v1/studio/sensing-links');
}
