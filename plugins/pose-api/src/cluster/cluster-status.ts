import { z } from 'zod';
import type { ClusterMember } from '@wiflow/plugin-nats';

const Count = z.object({ up: z.number().int(), down: z.number().int() });

/** One instance of the cluster as the status routes show it. */
export const ClusterInstanceSchema = z.object({
  instance_id: z.string(),
  role: z.string().describe('api, worker, ingest...'),
  status: z.enum(['up', 'down']).describe('down: no heartbeat for cluster.missedBeats intervals'),
  self: z.boolean().describe('This instance (the one answering)'),
  host: z.string(),
  pid: z.number().int(),
  last_seen: z.string().describe('When its last heartbeat was sent (ISO 8601)'),
  seconds_since_seen: z.number(),
  components: z.record(z.string(), z.string()).describe('Component or node type → state (running, error, stopped, off...)'),
  counters: z.record(z.string(), z.number()),
});

/** The whole cluster (extension of /system/status and /health/detailed, present in cluster mode only). */
export const ClusterStatusSchema = z.object({
  instance_id: z.string().describe('The instance answering'),
  instances_up: z.number().int(),
  instances_down: z.number().int(),
  roles: z.record(z.string(), Count).describe('Instances up and down per role'),
  instances: z.array(ClusterInstanceSchema),
});

/** Parsed cluster status. */
export type ClusterStatus = z.output<typeof ClusterStatusSchema>;

/** The cluster status of `members` (from heartbeats) as answered by instance `selfId`. */
export function clusterStatus(members: ClusterMember[], selfId: string): ClusterStatus {
  const roles: Record<string, { up: number; down: number }> = {};
  for (const m of members) {
    roles[m.role] ??= { up: 0, down: 0 };
    roles[m.role][m.status]++;
  }
  return {
    instance_id: selfId,
    instances_up: members.filter((m) => m.status === 'up').length,
    instances_down: members.filter((m) => m.status === 'down').length,
    roles,
    instances: members.map((m) => ({
      instance_id: m.instanceId,
      role: m.role,
      status: m.status,
      self: m.instanceId === selfId,
      host: m.host,
      pid: m.pid,
      last_seen: new Date(m.at).toISOString(),
      seconds_since_seen: Math.max(0, Math.round(m.lastSeenMs / 100) / 10),
      components: m.components,
      counters: m.counters,
    })),
  };
}
