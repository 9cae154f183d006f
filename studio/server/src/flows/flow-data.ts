import { mergeSecrets, nodeConfigJsonSchema, redactSecrets, type FlowData, type FlowNode, type Runtime } from '@wiflow/core';
import type { FlowValidity } from './flow-model.js';

/** The nodes of a stored flow's data, or [] when the data is not a graph. */
export function nodesOf(data: Record<string, unknown> | null | undefined): FlowNode[] {
  const nodes = (data as { nodes?: unknown } | null | undefined)?.nodes;
  return Array.isArray(nodes) ? (nodes.filter((n) => n && typeof n === 'object') as FlowNode[]) : [];
}

/** Data as the engine expects it (`nodes`/`edges` arrays, even when the stored data lacks them). */
export function asFlowData(data: Record<string, unknown> | null | undefined): FlowData {
  const d = (data ?? {}) as Partial<FlowData>;
  return { ...(d as object), nodes: Array.isArray(d.nodes) ? d.nodes : [], edges: Array.isArray(d.edges) ? d.edges : [] } as FlowData;
}

/** Copy of flow data with node secrets masked (responses) or removed (exports). */
export function redactFlowSecrets(runtime: Runtime, data: Record<string, unknown> | null, how: 'mask' | 'remove'): Record<string, unknown> | null {
  if (!data || !Array.isArray(data.nodes)) return data;
  return {
    ...data,
    nodes: (data.nodes as FlowNode[]).map((node) => {
      const type = node?.data?.nodeType;
      const definition = typeof type === 'string' ? runtime.registry.get(type) : undefined;
      if (!definition?.secrets?.length || !node.data.config) return node;
      return { ...node, data: { ...node.data, config: redactSecrets(definition, node.data.config, how) } };
    }),
  };
}

/** Apply an update's data over the stored data: secrets sent masked or left out keep their stored values (per node id). */
export function mergeFlowSecrets(runtime: Runtime, update: Record<string, unknown> | null, stored: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!update || !Array.isArray(update.nodes)) return update;
  const storedById = new Map(nodesOf(stored).map((n) => [n.id, n]));
  return {
    ...update,
    nodes: (update.nodes as FlowNode[]).map((node) => {
      const type = node?.data?.nodeType;
      const definition = typeof type === 'string' ? runtime.registry.get(type) : undefined;
      const before = storedById.get(node?.id);
      if (!definition?.secrets?.length || !before || before.data?.nodeType !== type) return node;
      return { ...node, data: { ...node.data, config: mergeSecrets(definition, node.data.config ?? {}, before.data.config) } };
    }),
  };
}

/** Compile a flow's data against the installed node types; every problem at once, never throws. */
export function validateFlowData(runtime: Runtime, data: Record<string, unknown> | null | undefined): FlowValidity {
  if (!data) return { valid: false, problems: [{ code: 'missing_input', message: 'the flow has no data (nodes and edges)' }] };
  if (!Array.isArray(data.nodes) || !Array.isArray(data.edges)) {
    return { valid: false, problems: [{ code: 'missing_input', message: 'flow data needs "nodes" and "edges" arrays' }] };
  }
  try {
    const result = runtime.compile(data as unknown as FlowData);
    const problems = [...(result.ok ? [] : result.problems), ...bindingProblems(runtime, data as unknown as FlowData)];
    return { valid: problems.length === 0, problems };
  } catch (error) {
    return { valid: false, problems: [{ code: 'invalid_config', message: `the flow data is malformed: ${(error as Error).message}` }] };
  }
}

/** A binding of a job input to a config field of another node (`data.bind` of an io.input node). */
export interface InputBinding {
  input: string;
  inputNodeId: string;
  node: string;
  field: string;
}

/**
 * The config bindings of a flow: an io.input node may carry `data.bind: [{node, field}]` so
 * its value (a resolved file path, a number...) is written into that node's config before
 * the run, e.g. the `path` of a `csi.file` source fed by an uploaded capture.
 */
export function inputBindings(data: FlowData): InputBinding[] {
  const out: InputBinding[] = [];
  for (const node of data.nodes) {
    if (node.data?.nodeType !== 'io.input') continue;
    const name = (node.data.config as { name?: unknown } | undefined)?.name;
    const bind = node.data.bind;
    if (typeof name !== 'string' || !Array.isArray(bind)) continue;
    for (const b of bind as { node?: unknown; field?: unknown }[]) {
      if (b && typeof b.node === 'string' && typeof b.field === 'string') out.push({ input: name, inputNodeId: node.id, node: b.node, field: b.field });
    }
  }
  return out;
}

/** Problems of a flow's bindings: unknown target nodes or config fields. */
export function bindingProblems(runtime: Runtime, data: FlowData): FlowValidity['problems'] {
  const problems: FlowValidity['problems'] = [];
  for (const b of inputBindings(data)) {
    const target = data.nodes.find((n) => n.id === b.node);
    const definition = target ? runtime.registry.get(target.data?.nodeType) : undefined;
    if (!target) problems.push({ code: 'dangling_edge', nodeId: b.inputNodeId, message: `input ${b.input} is bound to node ${b.node}, which is not in the flow` });
    else if (definition) {
      const schema = nodeConfigJsonSchema(definition) as { properties?: Record<string, unknown> };
      if (!schema.properties?.[b.field]) problems.push({ code: 'invalid_config', nodeId: b.node, field: b.field, message: `input ${b.input} is bound to ${definition.type} config field "${b.field}", which does not exist` });
    }
  }
  return problems;
}

/** Write bound input values into their target nodes' config (a copy of the data). */
export function applyBindings(data: FlowData, inputs: Record<string, unknown>): FlowData {
  const bindings = inputBindings(data).filter((b) => inputs[b.input] !== undefined);
  if (!bindings.length) return data;
  return {
    ...data,
    nodes: data.nodes.map((node) => {
      const mine = bindings.filter((b) => b.node === node.id);
      if (!mine.length) return node;
      const config = { ...(node.data.config ?? {}) };
      for (const b of mine) config[b.field] = inputs[b.input];
      return { ...node, data: { ...node.data, config } };
    }),
  };
}
