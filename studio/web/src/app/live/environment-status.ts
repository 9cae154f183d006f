// Why the chosen environment shows nothing: its pipeline stopped, failed or is gone, or it runs
// but sends no frames. Framework-free, so the Live view's notice is decided in one place.
import { flowEnvironments } from '@wiflow/core/flow-environments';
import type { FlowData } from '@wiflow/core';
import { environmentsOf, isRunning, type DeploymentInfo, type RoomInfo } from '../api/studio';

/** How long a chosen environment may stay without frames before the view says so. */
export const QUIET_MS = 10_000;

/** A stored flow as GET /api/v1/flows/ lists it (only what the notice needs). */
export interface StoredFlow {
  id: string;
  name: string;
  data?: FlowData | null;
}

/** What the Live view knows when it decides whether to explain the silence. */
export interface EnvironmentFacts {
  /** The chosen environment; null for all environments (nothing to explain). */
  environment: string | null;
  deployments: readonly DeploymentInfo[];
  rooms: readonly RoomInfo[];
  /** Stored flows, to name the flow that writes an environment no deployment writes any more; null until read. */
  flows: readonly StoredFlow[] | null;
  /** Whether any frame of the choice arrived since it was made. */
  framesArrived: boolean;
  /** Whether QUIET_MS passed without a frame (since the last frame, or since the choice). */
  quiet: boolean;
}

/** Why the chosen environment shows nothing. */
export type EnvironmentSilence =
  /** A deployment writing it runs, but no frame came for QUIET_MS. */
  | { state: 'waiting'; environment: string; writers: DeploymentInfo[] }
  /** Every deployment writing it ended: stopped, or failed (with their stored errors). */
  | { state: 'stopped' | 'failed'; environment: string; writers: DeploymentInfo[] }
  /** No deployment writes it (undeployed, or the server restarted); `flows` are the stored flows naming it, null until read. */
  | { state: 'absent'; environment: string; flows: StoredFlow[] | null };

/**
 * The deployments that write `environment`: those whose flow names it (`environment_ids`) and
 * those whose room (a scenario file the flow names only by path) is of it.
 */
export function writersOf(environment: string, deployments: readonly DeploymentInfo[], rooms: readonly RoomInfo[]): DeploymentInfo[] {
  const byRoom = new Set(rooms.filter((r) => r.environment_id === environment).map((r) => r.deployment_id));
  return deployments.filter((d) => environmentsOf(d).includes(environment) || byRoom.has(d.id));
}

/**
 * Why the chosen environment shows nothing, or null when there is nothing to explain (all
 * environments, frames arriving, or a running writer still within QUIET_MS). Frames that do
 * arrive win over the lists: a pipeline may write an environment its nodes do not name.
 */
export function environmentSilence(facts: EnvironmentFacts): EnvironmentSilence | null {
  const { environment } = facts;
  if (!environment) return null;
  const writers = writersOf(environment, facts.deployments, facts.rooms);
  const running = writers.filter(isRunning);
  if (running.length) return facts.quiet ? { state: 'waiting', environment, writers: running } : null;
  if (facts.framesArrived && !facts.quiet) return null;
  if (writers.length) return { state: writers.some((d) => d.status === 'failed') ? 'failed' : 'stopped', environment, writers };
  const flows = facts.flows?.filter((f) => f.data && flowEnvironments(f.data).includes(environment)) ?? null;
  return { state: 'absent', environment, flows };
}
