import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { FileAccess, Tokens, type FlowControl, type FlowRecord, type Logger, type PluginContext, type ProjectRecord, type RunAccess, type RuntimeHooks, type ServiceReader, type Storage, type SystemInfo } from '@wiflow/core';
import type { StudioConfig, StudioConfigSchema } from './config.js';
import { StudioErrors } from './errors.js';
import { FlowEventStore } from './flows/flow-events.js';
import { LOCAL_PRINCIPAL } from './http/auth.js';
import { hasFlowRole, roleOf } from './http/roles.js';
import type { ArchiveLimits } from './flows/zip-archive.js';

/** Something that wants to hear when a project's flows change (MCP servers send tools/list_changed). */
export type ProjectChangeListener = (projectId: string) => void;

/** The studio server plugin's context: its declared `studio` section is typed. */
export type StudioPluginContext = PluginContext<{ studio: typeof StudioConfigSchema }>;

/**
 * What every route of the flow service shares: narrow capabilities of the runtime (flow
 * control, system info, hooks, services, storage), the `studio` config, and in-memory state.
 * Never the runtime itself.
 */
export class StudioContext {
  readonly flowEvents = new FlowEventStore();
  readonly #projectListeners = new Set<ProjectChangeListener>();
  /** Run, deploy and inspect flows; the node catalog. */
  readonly flows: FlowControl;
  /** Version, state and the recent log (GET /logs). */
  readonly system: SystemInfo;
  /** `authenticate` (who is calling). */
  readonly hooks: Pick<RuntimeHooks, 'authenticate'>;
  /** Other plugins' services and core's (the SecretBox). */
  readonly services: ServiceReader;
  readonly logger: Logger;
  /** The runtime's data directory (uploaded files live under it). */
  readonly dataDir: string;

  constructor(private readonly plugin: StudioPluginContext) {
    this.flows = plugin.services.get(Tokens.Flows);
    this.system = plugin.services.get(Tokens.System);
    this.hooks = plugin.hooks;
    this.services = plugin.services;
    // The runtime's logger, not the plugin's child: log entries (GET /logs) keep the component names they always had.
    this.logger = plugin.services.get(Tokens.Logger);
    this.dataDir = plugin.dataDir;
  }

  /** The `studio` configuration section (defaults applied). */
  get config(): StudioConfig {
    return this.plugin.config.studio;
  }

  /** Whether a storage plugin resolved storage (after start). */
  get hasStorage(): boolean {
    return this.plugin.hasStorage;
  }

  /** Storage, or a 503 error when no storage plugin is installed. */
  get storage(): Storage {
    if (!this.plugin.hasStorage) throw StudioErrors.storageUnavailable();
    return this.plugin.storage;
  }

  /** Folder of a user's files (uploads; what their flows read and write unless `fileRoots` adds more). */
  userFilesDir(userId: string): string {
    return path.join(this.filesDir, userId);
  }

  /** The roles of a flow's owner: from storage (the auto-login user is an admin). */
  async ownerRoles(userId: string): Promise<string[]> {
    if (this.config.autoLogin && userId === LOCAL_PRINCIPAL.userId) return [...LOCAL_PRINCIPAL.roles];
    const user = this.hasStorage ? await this.storage.users.get(userId).catch(() => null) : null;
    return user?.isActive === false ? [] : (user?.roles ?? []);
  }

  /**
   * What a flow of this owner may reach when the flow service runs or deploys it: viewers
   * run nothing; others get their role's capabilities (`roleCapabilities`), and file nodes
   * are confined to the owner's file folder and `fileRoots`.
   */
  async runAccess(ownerId: string, roles?: readonly string[]): Promise<RunAccess> {
    const held = roles ?? (await this.ownerRoles(ownerId));
    const role = roleOf(held);
    if (!hasFlowRole(held, 'operator')) throw StudioErrors.forbidden(`flows of a ${role} may not run or be deployed: operator or admin is needed`);
    const own = this.userFilesDir(ownerId);
    await mkdir(own, { recursive: true });
    return { capabilities: this.config.roleCapabilities[role], holder: `role ${role}`, files: new FileAccess([own, ...this.config.fileRoots], this.exampleScenariosDir ? [this.exampleScenariosDir] : []) };
  }

  /**
   * What an anonymous caller's run may reach (an MCP project whose owner chose `auth_type: none`):
   * no capabilities at all, and files only in the caller's own, empty folder — never the owner's.
   */
  async anonymousRunAccess(callerId: string): Promise<RunAccess> {
    const own = this.userFilesDir(callerId);
    await mkdir(own, { recursive: true });
    return { capabilities: [], holder: 'an anonymous MCP caller', files: new FileAccess([own]) };
  }

  /**
   * The installation's shipped example scenarios (`scenarios` beside `examplesDir`): a read-only
   * root of every flow-service run, so the example flows run; null without `examplesDir`.
   */
  get exampleScenariosDir(): string | null {
    return this.config.examplesDir ? path.resolve(this.config.examplesDir, '..', 'scenarios') : null;
  }

  /** The archive import limits in bytes (`studio.imports`). */
  get archiveLimits(): ArchiveLimits {
    const { maxEntries, maxEntryMb, maxTotalMb } = this.config.imports;
    return { maxEntries, maxEntryBytes: Math.floor(maxEntryMb * 1024 * 1024), maxTotalBytes: Math.floor(maxTotalMb * 1024 * 1024) };
  }

  /** Where uploaded files live. */
  get filesDir(): string {
    return path.join(this.dataDir, 'studio-files');
  }

  /** Listen for changes of a project's flow set; returns the unsubscribe function. */
  onProjectChange(listener: ProjectChangeListener): () => void {
    this.#projectListeners.add(listener);
    return () => this.#projectListeners.delete(listener);
  }

  /** Announce that flows of these projects changed (created, edited, moved, deleted). */
  projectsChanged(...projectIds: (string | null | undefined)[]): void {
    for (const id of new Set(projectIds)) {
      if (!id) continue;
      for (const listener of this.#projectListeners) {
        try {
          listener(id);
        } catch (error) {
          this.logger.warn('project change listener failed', { error: String(error) });
        }
      }
    }
  }

  /** A flow the user owns, or 404 (flows of others are not revealed). */
  async ownedFlow(userId: string, id: string): Promise<FlowRecord> {
    const flow = isUuid(id) ? await this.storage.flows.get(id) : null;
    if (!flow || flow.userId !== userId) throw StudioErrors.flowNotFound(id);
    return flow;
  }

  /** A flow of the user by id, endpoint name or name (run and webhook paths). */
  async flowByIdOrName(userId: string | null, idOrName: string): Promise<FlowRecord> {
    let flow: FlowRecord | null = null;
    if (isUuid(idOrName)) {
      flow = await this.storage.flows.get(idOrName);
      if (flow && userId !== null && flow.userId !== userId) flow = null;
    } else if (userId !== null) {
      flow = (await this.storage.flows.getByEndpointName(userId, idOrName)) ?? (await this.storage.flows.getByName(userId, idOrName));
    }
    if (!flow) throw StudioErrors.flowNotFound(idOrName);
    return flow;
  }

  /** A project the user owns, or 404. */
  async ownedProject(userId: string, id: string): Promise<ProjectRecord> {
    const project = isUuid(id) ? await this.storage.projects.get(id) : null;
    if (!project || project.userId !== userId) throw StudioErrors.projectNotFound(id);
    return project;
  }

  /** The user's default project (named by `default_folder_name`), created on first use. */
  async defaultProject(userId: string): Promise<ProjectRecord> {
    const name = this.config.defaultFolderName;
    const existing = await this.storage.projects.getByName(userId, name);
    if (existing) return existing;
    try {
      return await this.storage.projects.create({ name, userId, description: 'The default project: flows created without naming a project land here' });
    } catch (error) {
      const again = await this.storage.projects.getByName(userId, name);
      if (again) return again;
      throw error;
    }
  }
}

/** Whether a string looks like a UUID (any version). */
export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
