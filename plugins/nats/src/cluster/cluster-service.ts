import { serviceToken, type ServiceToken } from '@wiflow/core';
import { hostname } from 'node:os';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FlowControl, Logger } from '@wiflow/core';
import { redactNatsUrl, type NatsService } from '../service.js';
import { ClusterHeartbeat, type ClusterMember, type InstanceHeartbeat } from './cluster-heartbeat.js';
import type { ClusterSettings } from './cluster-config.js';
import { PoseClusterLink, type PoseClusterLinkOptions } from './pose-cluster-link.js';

/** Token of the ClusterService (`services.get`). */
export const CLUSTER_SERVICE: ServiceToken<ClusterService> = serviceToken<ClusterService>('wiflow.nats.ClusterService');

/** What a component adds to this instance's heartbeat. */
export interface InstanceReport {
  /** A role the component implies (the pose API: 'api'); config `cluster.role` wins. */
  role?: string;
  components?: Record<string, string>;
  counters?: Record<string, number>;
}

/**
 * This runtime as a member of the cluster: announces itself (role, the state of its deployed
 * pipelines and what components report) and knows every other member from their heartbeats.
 * Started by the NATS plugin when `cluster.enabled`; the pose API reads `members()` for
 * /system/status and /health/detailed.
 */
export class ClusterService {
  readonly #reporters = new Set<() => InstanceReport>();
  #heartbeat: ClusterHeartbeat | undefined;

  constructor(
    /** The deployed pipelines this instance reports in its heartbeat. */
    private readonly flows: Pick<FlowControl, 'pipelines'>,
    private readonly nats: NatsService,
    readonly settings: ClusterSettings,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.settings.enabled;
  }

  get instanceId(): string {
    return this.settings.instanceId;
  }

  /** Whether heartbeats are being sent and received. */
  get started(): boolean {
    return this.#heartbeat !== undefined;
  }

  /** Add to this instance's heartbeat; returns the removal. */
  report(reporter: () => InstanceReport): () => void {
    this.#reporters.add(reporter);
    return () => this.#reporters.delete(reporter);
  }

  /** This instance as its next heartbeat announces it. */
  describe(): Omit<InstanceHeartbeat, 'at'> {
    const components: Record<string, string> = {};
    const counters: Record<string, number> = {};
    let claimed: string | undefined;
    for (const deployed of this.flows.pipelines.values()) {
      components[`pipeline:${deployed.id}`] = 'running';
      for (const [nodeId, c] of Object.entries(deployed.pipeline.counters())) {
        const type = deployed.pipeline.runners.get(nodeId)?.node.definition.type ?? nodeId;
        // A node that fails everything it receives is in error; one that produced once is running.
        const state = c.errors > 0 && c.out === 0 ? 'error' : 'running';
        if (components[type] !== 'error') components[type] = state;
        counters.node_errors = (counters.node_errors ?? 0) + c.errors;
        for (const name of ['published', 'received', 'acked', 'redelivered'] as const) {
          const v = c.stats?.[name];
          if (typeof v === 'number') counters[`nats_${name}`] = (counters[`nats_${name}`] ?? 0) + v;
        }
      }
    }
    for (const reporter of this.#reporters) {
      try {
        const r = reporter();
        claimed ??= r.role;
        Object.assign(components, r.components);
        Object.assign(counters, r.counters);
      } catch (error) {
        this.logger.warn('cluster reporter failed', { error: String(error) });
      }
    }
    return { instanceId: this.settings.instanceId, role: this.settings.role ?? claimed ?? 'worker', pid: process.pid, host: hostname(), components, counters };
  }

  /** Announce this instance now (after what it reports changed). */
  announce(): void {
    this.#heartbeat?.beat();
  }

  /** Connect, announce, and listen to the others (resolves once the first beat is out). */
  async start(): Promise<void> {
    if (this.#heartbeat) return;
    let nc: NatsConnection;
    try {
      ({ nc } = await this.nats.get());
    } catch (error) {
      throw new Error(`cannot join the cluster as ${this.settings.instanceId}: NATS at ${redactNatsUrl(this.nats.url)}: ${(error as Error).message}`, { cause: error });
    }
    const heartbeat = new ClusterHeartbeat(nc, () => this.describe(), { intervalMs: this.settings.heartbeatIntervalMs, missedBeats: this.settings.missedBeats });
    await heartbeat.start();
    this.#heartbeat = heartbeat;
    this.logger.info('joined the cluster', { instanceId: this.settings.instanceId, role: this.describe().role });
  }

  /**
   * The pose API's link to the cluster (live feeds, shared storage consumers, outlet, shared
   * rate-limit counters); rejects when NATS cannot be reached.
   */
  async openPoseLink(options: Omit<PoseClusterLinkOptions, 'ackWaitMs'> = {}): Promise<PoseClusterLink> {
    const connection = await this.nats.get();
    return new PoseClusterLink(connection, { ...options, ackWaitMs: this.nats.ackWaitMs });
  }

  /** Every member heard from (this one included), with up/down status; empty before start. */
  members(): ClusterMember[] {
    return this.#heartbeat?.members() ?? [];
  }

  /** Called after every heartbeat received. */
  onHeartbeat(listener: () => void): () => void {
    if (!this.#heartbeat) throw new Error('the cluster service is not started');
    return this.#heartbeat.onHeartbeat(listener);
  }

  /** Leave the cluster (the others forget this instance rather than report it down). */
  stop(): void {
    this.#heartbeat?.stop({ leave: true });
    this.#heartbeat = undefined;
  }
}
