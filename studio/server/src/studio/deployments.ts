import { flowEnvironments, type DeployedPipeline, type FlowData, type NodeCounters, type Principal } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { FlowCreateSchema } from '../flows/flow-model.js';
import type { FlowService } from '../flows/flow-service.js';

/** DeploymentView: one pipeline of the runtime as the studio shows it. */
export interface DeploymentView {
  id: string;
  flow_id: string | null;
  flow_name: string;
  status: 'running' | 'stopped' | 'failed';
  /** Why a failed pipeline failed (the node's error, naming the node); null while it runs or when it ended otherwise. */
  error: string | null;
  /** 'studio': deployed through POST /deployments; 'server': started by the server itself (the system pipeline). */
  origin: 'server' | 'studio';
  /** The environment the flow's nodes name (the first, when they name several); null when none names one. */
  environment_id: string | null;
  /** Every environment the flow's nodes name, sorted; empty when none names one. */
  environment_ids: string[];
  started_at: string;
  counters: Record<string, NodeCounters>;
}

const LINKS_NAMESPACE = 'studio';
const LINKS_KEY = 'server-pipeline-flows';

/** What `deployed.outcome` means to a reader: null while it runs. */
export function statusOf(deployed: DeployedPipeline): DeploymentView['status'] {
  if (!deployed.outcome) return 'running';
  return deployed.outcome.status === 'failed' ? 'failed' : 'stopped';
}

/** Why a pipeline failed (the engine's message names the failing node: `node sim (sim.source) failed to start: …`); null unless it failed. */
export function failureOf(deployed: DeployedPipeline): string | null {
  const outcome = deployed.outcome;
  return outcome && outcome.status === 'failed' ? outcome.error : null;
}

/**
 * The runtime's pipelines as deployments: those the studio deployed (with their owners) and
 * those the server started itself (the system pipeline from a flow file), which it links to a
 * stored flow of the examples owner so that they have a flow id and name like any other.
 */
export class Deployments {
  /** Studio deployments: pipeline id → the user who deployed it. */
  readonly #owners = new Map<string, string>();
  /** Flow links being made, by source (one at a time per source). */
  readonly #linking = new Map<string, Promise<string | null>>();

  constructor(
    private readonly studio: StudioContext,
    private readonly flows: FlowService,
  ) {}

  /** Remember who deployed a pipeline through the studio. */
  own(id: string, userId: string): void {
    this.#owners.set(id, userId);
  }

  /** Forget a studio deployment (undeployed). */
  disown(id: string): void {
    this.#owners.delete(id);
  }

  /** The owner of a studio deployment; undefined for the server's own pipelines. */
  ownerOf(id: string): string | undefined {
    return this.#owners.get(id);
  }

  /**
   * How many studio deployments still run: the user's and everyone's (for `studio.quotas`). A
   * deployment that failed or stopped stays listed until undeployed, but holds no place.
   */
  countStudioDeployments(userId: string): { mine: number; total: number } {
    let mine = 0;
    let total = 0;
    for (const [id, owner] of this.#owners) {
      const deployed = this.studio.flows.pipelines.get(id);
      if (!deployed) {
        this.#owners.delete(id);
        continue;
      }
      if (deployed.outcome) continue;
      total++;
      if (owner === userId) mine++;
    }
    return { mine, total };
  }

  /** Views of every pipeline the user may see: their studio deployments and the server's. */
  async list(userId: string): Promise<DeploymentView[]> {
    const views: DeploymentView[] = [];
    for (const deployed of [...this.studio.flows.pipelines.values()]) {
      const owner = this.#owners.get(deployed.id);
      if (owner !== undefined && owner !== userId) continue;
      views.push(await this.view(deployed));
    }
    for (const id of this.#owners.keys()) if (!this.studio.flows.pipelines.has(id)) this.#owners.delete(id);
    return views;
  }

  /** The view of one pipeline the user may see, or 404. */
  async get(userId: string, id: string): Promise<DeploymentView> {
    const deployed = this.studio.flows.pipelines.get(id);
    const owner = this.#owners.get(id);
    if (!deployed || (owner !== undefined && owner !== userId)) throw StudioErrors.deploymentNotFound(id);
    return this.view(deployed);
  }

  /** One pipeline's view: flow id and name (linked for the server's own), status, origin, environment, counters. */
  async view(deployed: DeployedPipeline): Promise<DeploymentView> {
    const origin = this.#owners.has(deployed.id) ? 'studio' : 'server';
    const flowId = deployed.flowId ?? (origin === 'server' ? await this.#linkedFlow(deployed) : null);
    const stored = flowId && this.studio.hasStorage ? await this.studio.storage.flows.get(flowId) : null;
    const environments = flowEnvironments(deployed.data);
    return {
      id: deployed.id,
      flow_id: flowId,
      flow_name: stored?.name ?? deployed.name ?? deployed.source ?? deployed.id,
      status: statusOf(deployed),
      error: failureOf(deployed),
      origin,
      environment_id: environments[0] ?? null,
      environment_ids: environments,
      started_at: new Date(deployed.startedAt).toISOString(),
      counters: deployed.pipeline.counters(),
    };
  }

  /**
   * Refuse a deployment of `flowId` (writing `environments`) while a running pipeline runs the
   * same flow or writes one of those environments: two writers would interleave their frames.
   */
  async assertFree(flowId: string, data: FlowData): Promise<void> {
    const wanted = new Set(flowEnvironments(data));
    for (const deployed of [...this.studio.flows.pipelines.values()]) {
      if (statusOf(deployed) !== 'running') continue;
      const view = await this.view(deployed);
      if (view.flow_id === flowId) throw StudioErrors.deploymentConflict(view.id, view.flow_name, view.origin, `it runs this flow`);
      const shared = flowEnvironments(deployed.data).find((environment) => wanted.has(environment));
      if (shared) throw StudioErrors.deploymentConflict(view.id, view.flow_name, view.origin, `it writes environment "${shared}"`);
    }
  }

  /** The stored flow a server pipeline runs: linked once per source, by name in the examples owner's flows, else imported. */
  async #linkedFlow(deployed: DeployedPipeline): Promise<string | null> {
    const source = deployed.source;
    if (!source || !this.studio.hasStorage) return null;
    let pending = this.#linking.get(source);
    if (!pending) {
      pending = this.#link(deployed, source).catch((error: Error) => {
        this.studio.logger.warn(`server pipeline ${deployed.id} not linked to a flow: ${error.message}`);
        return null;
      });
      this.#linking.set(source, pending);
      // A failed or vanished link is tried again on the next request.
      void pending.then((id) => {
        if (!id) this.#linking.delete(source);
      });
    }
    const id = await pending;
    if (id && !(await this.studio.storage.flows.get(id))) {
      this.#linking.delete(source);
      return this.#linkedFlow(deployed);
    }
    return id;
  }

  async #link(deployed: DeployedPipeline, source: string): Promise<string | null> {
    const storage = this.studio.storage;
    const links = ((await storage.settings.get(LINKS_NAMESPACE, LINKS_KEY)) ?? {}) as Record<string, string>;
    if (links[source] && (await storage.flows.get(links[source]))) return links[source];
    const user = await storage.users.getByUsername(this.studio.config.examplesOwner);
    if (!user) return null;
    const name = deployed.name ?? source;
    let flow = await storage.flows.getByName(user.id, name);
    if (!flow) {
      const principal: Principal = { userId: user.id, username: user.username, roles: user.roles, via: 'local' };
      const project = await this.studio.defaultProject(user.id);
      const body = FlowCreateSchema.parse({ name, description: `Started by the server from ${source}`, data: deployed.data });
      flow = await this.flows.create(principal, { ...body, id: null }, { folderId: project.id });
    }
    await storage.settings.set(LINKS_NAMESPACE, LINKS_KEY, { ...links, [source]: flow.id });
    return flow.id;
  }
}
