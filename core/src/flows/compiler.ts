import { nodeConfigJsonSchema, type NodeDefinition } from '../nodes/define-node.js';
import { arePortsCompatible, portTypes } from '../nodes/ports.js';
import type { NodeRegistry } from '../nodes/registry.js';
import { describeConfigIssue } from './config-issues.js';
import type { FlowData, FlowEdge, OverflowPolicy } from './flow.js';
import { applyBindings, flowInterface, type FlowBinding } from './flow-interface.js';

/** How a problem names a node: its title, type and id, so people find it on the canvas and in the JSON. */
function nodeLabel(id: string, type: string, title: string | undefined): string {
  return title ? `Node "${title}" (${type}, id ${id})` : `Node ${id} (${type})`;
}

/** One problem found in a flow: what, where (node, edge, port) and why. */
export interface FlowProblem {
  code:
    | 'unknown_node_type'
    | 'invalid_config'
    | 'missing_input'
    | 'dangling_edge'
    | 'unknown_port'
    | 'incompatible_edge'
    | 'cycle'
    | 'duplicate_id'
    | 'capability_denied';
  message: string;
  nodeId?: string;
  edgeId?: string;
  port?: string;
  /** Config field path for invalid_config. */
  field?: string;
  /** The capability a capability_denied node needs. */
  capability?: string;
}

/** A node ready to instantiate. */
export interface CompiledNode {
  id: string;
  title: string;
  definition: NodeDefinition;
  config: Record<string, unknown>;
  /** Topological layer: 0 for nodes without inputs. */
  layer: number;
}

/** An edge with its queue settings resolved. */
export interface CompiledEdge {
  id: string;
  source: string;
  sourcePort: string;
  target: string;
  targetPort: string;
  capacity: number;
  overflow: OverflowPolicy;
}

/** A flow the engine can run: nodes in layered topological order. */
export interface CompiledFlow {
  nodes: CompiledNode[];
  edges: CompiledEdge[];
  /** Node ids per layer. */
  layers: string[][];
}

/** The compiler's answer: every problem at once, and the plan when there are none. */
export type CompileResult = { ok: true; flow: CompiledFlow; problems: [] } | { ok: false; problems: FlowProblem[] };

/** Default queue settings for edges that do not say, and the capabilities the flow may use. */
export interface CompileOptions {
  defaultCapacity?: number;
  defaultOverflow?: OverflowPolicy;
  /** Capabilities nodes may declare; undefined: any (trusted callers). */
  allowedCapabilities?: readonly string[];
  /** Who the capabilities belong to, for messages ("role viewer"). */
  capabilityHolder?: string;
}

/** Validates and orders flows against a node registry. */
export class FlowCompiler {
  constructor(private readonly registry: NodeRegistry, private readonly options: CompileOptions = {}) {}

  /**
   * Check everything and report every problem, each naming node, edge, port and reason. With
   * `inputs` (a job run), bound inputs are written into their target nodes' config first, so
   * the node's own schema validates the value it will run with.
   */
  compile(given: FlowData, inputs?: Readonly<Record<string, unknown>>): CompileResult {
    const problems: FlowProblem[] = [];
    const data = inputs ? applyBindings(given, inputs) : given;
    const nodes = new Map<string, CompiledNode>();
    const seenEdges = new Set<string>();

    for (const node of data.nodes ?? []) {
      if (nodes.has(node.id)) {
        problems.push({ code: 'duplicate_id', nodeId: node.id, message: `node id ${node.id} is used twice` });
        continue;
      }
      const type = node.data?.nodeType;
      const definition = type ? this.registry.get(type) : undefined;
      if (!definition) {
        problems.push({ code: 'unknown_node_type', nodeId: node.id, message: `Node ${node.id}: unknown node type ${JSON.stringify(type)} (no installed plugin provides it)` });
        continue;
      }
      const parsed = definition.config.safeParse(node.data.config ?? {});
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          const field = issue.path.join('.');
          problems.push({
            code: 'invalid_config',
            nodeId: node.id,
            field: field || undefined,
            message: `${nodeLabel(node.id, definition.type, node.data.title ?? definition.title)}: ${describeConfigIssue(issue, node.data.config ?? {})}.`,
          });
        }
      }
      if (this.options.allowedCapabilities) {
        for (const capability of definition.capabilities ?? []) {
          if (this.options.allowedCapabilities.includes(capability)) continue;
          problems.push({
            code: 'capability_denied',
            nodeId: node.id,
            capability,
            message: `node ${node.id} (${definition.type}) needs capability ${capability}, which ${this.options.capabilityHolder ?? 'this run'} does not allow`,
          });
        }
      }
      nodes.set(node.id, {
        id: node.id,
        title: node.data.title ?? definition.title,
        definition,
        config: parsed.success ? (parsed.data as Record<string, unknown>) : {},
        layer: 0,
      });
    }

    const edges: CompiledEdge[] = [];
    const connectedInputs = new Set<string>();
    for (const edge of data.edges ?? []) {
      if (seenEdges.has(edge.id)) {
        problems.push({ code: 'duplicate_id', edgeId: edge.id, message: `edge id ${edge.id} is used twice` });
        continue;
      }
      seenEdges.add(edge.id);
      const checked = this.#checkEdge(edge, nodes, data, problems);
      if (checked) {
        edges.push(checked);
        connectedInputs.add(`${edge.target}\u0000${edge.targetHandle}`);
      }
    }

    for (const node of nodes.values()) {
      for (const [port, spec] of Object.entries(node.definition.inputs)) {
        if (spec.required && !connectedInputs.has(`${node.id}\u0000${port}`)) {
          problems.push({ code: 'missing_input', nodeId: node.id, port, message: `${nodeLabel(node.id, node.definition.type, node.title)}: the input "${port}" is required but not connected.` });
        }
      }
    }

    for (const binding of flowInterface(data).bindings) this.#checkBinding(binding, nodes, data, problems);

    const layers = this.#layer(nodes, edges, problems);
    if (problems.length > 0) return { ok: false, problems };
    return { ok: true, problems: [], flow: { nodes: layers.flat().map((id) => nodes.get(id)!), edges, layers } };
  }

  /** A binding must name a node of the flow and a config field its type has. */
  #checkBinding(binding: FlowBinding, nodes: Map<string, CompiledNode>, data: FlowData, problems: FlowProblem[]): void {
    if (!(data.nodes ?? []).some((n) => n.id === binding.node)) {
      problems.push({ code: 'dangling_edge', nodeId: binding.inputNodeId, message: `input ${binding.input} is bound to node ${binding.node}, which is not in the flow` });
      return;
    }
    const target = nodes.get(binding.node);
    if (!target) return; // its unknown type is reported already
    const schema = nodeConfigJsonSchema(target.definition) as { properties?: Record<string, unknown> };
    if (!schema.properties?.[binding.field]) {
      problems.push({ code: 'invalid_config', nodeId: binding.node, field: binding.field, message: `input ${binding.input} is bound to ${target.definition.type} config field "${binding.field}", which does not exist` });
    }
  }

  #checkEdge(edge: FlowEdge, nodes: Map<string, CompiledNode>, data: FlowData, problems: FlowProblem[]): CompiledEdge | undefined {
    const declared = new Set((data.nodes ?? []).map((n) => n.id));
    let ok = true;
    for (const [end, id] of [['source', edge.source], ['target', edge.target]] as const) {
      if (!declared.has(id)) {
        problems.push({ code: 'dangling_edge', edgeId: edge.id, nodeId: id, message: `edge ${edge.id}: ${end} node ${JSON.stringify(id)} does not exist` });
        ok = false;
      }
    }
    const source = nodes.get(edge.source);
    const target = nodes.get(edge.target);
    if (!ok || !source || !target) return undefined;
    const output = source.definition.outputs[edge.sourceHandle];
    const input = target.definition.inputs[edge.targetHandle];
    if (!output) {
      problems.push({ code: 'unknown_port', edgeId: edge.id, nodeId: source.id, port: edge.sourceHandle, message: `edge ${edge.id}: node ${source.id} (${source.definition.type}) has no output ${JSON.stringify(edge.sourceHandle)}` });
    }
    if (!input) {
      problems.push({ code: 'unknown_port', edgeId: edge.id, nodeId: target.id, port: edge.targetHandle, message: `edge ${edge.id}: node ${target.id} (${target.definition.type}) has no input ${JSON.stringify(edge.targetHandle)}` });
    }
    if (!output || !input) return undefined;
    if (!arePortsCompatible(output, input)) {
      problems.push({
        code: 'incompatible_edge',
        edgeId: edge.id,
        nodeId: target.id,
        port: edge.targetHandle,
        message: `edge ${edge.id}: ${source.id}.${edge.sourceHandle} carries ${portTypes(output).join('|')} but ${target.id}.${edge.targetHandle} accepts ${portTypes(input).join('|')}`,
      });
      return undefined;
    }
    return {
      id: edge.id,
      source: edge.source,
      sourcePort: edge.sourceHandle,
      target: edge.target,
      targetPort: edge.targetHandle,
      capacity: edge.data?.capacity ?? this.options.defaultCapacity ?? 1024,
      overflow: edge.data?.overflow ?? this.options.defaultOverflow ?? 'block',
    };
  }

  /** Kahn's algorithm by layers; nodes left over sit on a cycle. */
  #layer(nodes: Map<string, CompiledNode>, edges: CompiledEdge[], problems: FlowProblem[]): string[][] {
    const indegree = new Map<string, number>();
    const next = new Map<string, string[]>();
    for (const id of nodes.keys()) {
      indegree.set(id, 0);
      next.set(id, []);
    }
    for (const e of edges) {
      indegree.set(e.target, (indegree.get(e.target) ?? 0) + 1);
      next.get(e.source)?.push(e.target);
    }
    const layers: string[][] = [];
    let frontier = [...nodes.keys()].filter((id) => indegree.get(id) === 0);
    let placed = 0;
    while (frontier.length > 0) {
      layers.push(frontier);
      placed += frontier.length;
      const following: string[] = [];
      for (const id of frontier) {
        nodes.get(id)!.layer = layers.length - 1;
        for (const t of next.get(id) ?? []) {
          const d = indegree.get(t)! - 1;
          indegree.set(t, d);
          if (d === 0) following.push(t);
        }
      }
      frontier = following;
    }
    if (placed < nodes.size) {
      const cyclic = [...nodes.keys()].filter((id) => indegree.get(id)! > 0);
      problems.push({ code: 'cycle', nodeId: cyclic[0], message: `the flow has a cycle through nodes ${cyclic.join(', ')}` });
    }
    return layers;
  }
}
