import { CoreErrors } from '../errors.js';
import type { NodeDefinition } from './define-node.js';
import { nodeConfigJsonSchema } from './define-node.js';
import type { PortSpec } from './ports.js';

/** A registered node type with the plugin that contributed it. */
export interface RegisteredNode {
  definition: NodeDefinition;
  plugin: string;
}

/** What the studio palette and `wiflow plugins` show of a node type. */
export interface NodeTypeDescription {
  type: string;
  title: string;
  category: string;
  description: string;
  plugin: string;
  source: boolean;
  inputs: Record<string, PortSpec>;
  outputs: Record<string, PortSpec>;
  configSchema: Record<string, unknown>;
  secrets: readonly string[];
  /** What the node reaches beyond its messages (see NODE_CAPABILITIES). */
  capabilities: readonly string[];
}

/** All node types known to a runtime. */
export class NodeRegistry {
  readonly #nodes = new Map<string, RegisteredNode>();
  #frozen = false;

  /** Add a node type; a duplicate type id is an error naming both plugins. */
  register(definition: NodeDefinition, plugin: string): void {
    if (this.#frozen) throw CoreErrors.registryFrozen(`node type ${definition.type}`);
    const existing = this.#nodes.get(definition.type);
    if (existing) throw CoreErrors.nodeTypeDuplicate(definition.type, existing.plugin);
    this.#nodes.set(definition.type, { definition, plugin });
  }

  /** Remove a node type (used when a plugin's setup fails half-way). */
  unregister(type: string): void {
    this.#nodes.delete(type);
  }

  /** Stop accepting registrations (the runtime calls this when it starts). */
  freeze(): void {
    this.#frozen = true;
  }

  get(type: string): NodeDefinition | undefined {
    return this.#nodes.get(type)?.definition;
  }

  has(type: string): boolean {
    return this.#nodes.has(type);
  }

  /** Every registered node type. */
  list(): RegisteredNode[] {
    return [...this.#nodes.values()];
  }

  /** Serializable descriptions of every node type, for the studio and the CLI. */
  describe(): NodeTypeDescription[] {
    return this.list().map(({ definition: d, plugin }) => ({
      type: d.type,
      title: d.title,
      category: d.category,
      description: d.description,
      plugin,
      source: Boolean(d.source),
      inputs: d.inputs,
      outputs: d.outputs,
      configSchema: nodeConfigJsonSchema(d),
      secrets: d.secrets ?? [],
      capabilities: d.capabilities ?? [],
    }));
  }
}
