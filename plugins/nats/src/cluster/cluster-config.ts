import { hostname } from 'node:os';
import { z } from 'zod';

/** Config section `cluster`: this runtime as one instance of a wiflow cluster on the NATS of `nats.url`. */
export const ClusterConfig = z
  .object({
    enabled: z.boolean().default(false).describe('Join the cluster: announce heartbeats; the pose API shares rate limits, pose feed and storage through NATS (also WIFLOW_CLUSTER=1)'),
    instanceId: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]+$/)
      .max(128)
      .optional()
      .describe('Name of this instance in the cluster, unique and stable across restarts (also WIFLOW_INSTANCE_ID; default <host>-<pid>)'),
    role: z.string().regex(/^[a-z0-9_-]+$/).max(32).optional().describe("What the instance does: api, worker, ingest... (also WIFLOW_CLUSTER_ROLE; default 'api' where the pose API runs, else 'worker')"),
    heartbeatIntervalMs: z.number().int().min(100).max(600_000).default(5000).describe('How often the instance announces itself'),
    missedBeats: z.number().int().min(2).max(100).default(3).describe('Intervals without a heartbeat after which an instance is reported down'),
    storageWriter: z
      .boolean()
      .default(true)
      .describe('Pose API instances: write the cluster\'s pose frames and alerts to this runtime\'s storage (one shared durable consumer: each frame is written once by one writer). With a shared MongoDB every instance may write; with one SQLite file per instance, set it on exactly one'),
  })
  .prefault({});

/** Parsed `cluster` section. */
export type ClusterConfigValue = z.output<typeof ClusterConfig>;

/** The cluster settings in force: the section with the environment's overrides applied and defaults filled. */
export interface ClusterSettings extends Omit<ClusterConfigValue, 'instanceId' | 'role'> {
  instanceId: string;
  /** Undefined: the role a component claims (the pose API claims 'api'), else 'worker'. */
  role: string | undefined;
}

function flag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new Error(`WIFLOW_CLUSTER must be true or false, not ${value}`);
}

/**
 * Apply WIFLOW_CLUSTER, WIFLOW_INSTANCE_ID and WIFLOW_CLUSTER_ROLE over the section (the
 * environment wins, as WIFLOW_PORT does over server.port: one config file can serve every
 * instance of a cluster, each started with its own id).
 */
export function resolveClusterSettings(section: unknown, env: NodeJS.ProcessEnv = process.env): ClusterSettings {
  const parsed = ClusterConfig.parse({
    ...(section as object | undefined),
    ...(flag(env.WIFLOW_CLUSTER) !== undefined && { enabled: flag(env.WIFLOW_CLUSTER) }),
    ...(env.WIFLOW_INSTANCE_ID && { instanceId: env.WIFLOW_INSTANCE_ID }),
    ...(env.WIFLOW_CLUSTER_ROLE && { role: env.WIFLOW_CLUSTER_ROLE }),
  });
  return { ...parsed, instanceId: parsed.instanceId ?? `${hostname()}-${process.pid}`, role: parsed.role };
}
