import { mergeSecrets, redactSecrets, type FlowData, type FlowControl, type FlowNode } from '@wiflow/core';
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
export function redactFlowSecrets(flows: Pick<FlowControl, 'registry'>, data: Record<string, unknown> | null, how: 'mask' | 'remove'): Record<string, unknown> | null {
  if (!data || !Array.isArray(data.nodes)) return data;
  return {
    ...data,
    nodes: (data.nodes as FlowNode[]).map((node) => {
      const type = node?.data?.nodeType;
      const definition = typeof type === 'string' ? flows.registry.get(type) : undefined;
      if (!definition?.secrets?.length || !node.data.config) return node;
      return { ...node, data: { ...node.data, config: redactSecrets(definition, node.data.config, how) } };
    }),
  };
}

/** Apply an update's data over the stored data: secrets sent masked or left out keep their stored values (per node id). */
export function mergeFlowSecrets(flows: Pick<FlowControl, 'registry'>, update: Record<string, unknown> | null, stored: Record<string, unknown> | null): Record<string, unknown> | null {
  if (!update || !Array.isArray(update.nodes)) return update;
  const storedById = new Map(nodesOf(stored).map((n) => [n.id, n]));
  return {
    ...update,
    nodes: (update.nodes as FlowNode[]).map((node) => {
      const type = node?.data?.nodeType;
      const definition = typeof type === 'string' ? flows.registry.get(type) : undefined;
      const before = storedById.get(node?.id);
      if (!definition?.secrets?.length || !before || before.data?.nodeType !== type) return node;
      return { ...node, data: { ...node.data, config: mergeSecrets(definition, node.data.config ?? {}, before.data.config) } };
    }),
  };
}

/** Compile a flow's data against the installed node types; every problem at once, never throws. */
export function validateFlowData(flows: Pick<FlowControl, 'compile'>, data: Record<string, unknown> | null | undefined): FlowValidity {
  if (!data) return { valid: false, problems: [{ code: 'missing_input', message: 'the flow has no data (nodes and edges)' }] };
  if (!Array.isArray(data.nodes) || !Array.isArray(data.edges)) {
    return { valid: false, problems: [{ code: 'missing_input', message: 'flow data needs "nodes" and "edges" arrays' }] };
  }
  try {
    const result = flows.compile(data as unknown as FlowData);
    // The compiler checks the flow's input bindings too (flow-interface.ts).
    return { valid: result.ok, problems: result.ok ? [] : result.problems };
  } catch (error) {
    return { valid: false, problems: [{ code: 'invalid_config', message: `the flow data is malformed: ${(error as Error).message}` }] };
  }
}
