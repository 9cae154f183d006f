import type { FlowData } from './flow.js';

/**
 * Environments a flow writes, as its nodes name them: `environmentId` in a node's config or in
 * an inline scenario. A scenario given as a file path is not opened here, so a flow that names
 * its environment only there has none.
 */
export function flowEnvironments(data: FlowData): string[] {
  const ids = new Set<string>();
  for (const node of data.nodes ?? []) {
    const config = (node.data?.config ?? {}) as Record<string, unknown>;
    if (typeof config.environmentId === 'string' && config.environmentId) ids.add(config.environmentId);
    const scenario = config.scenario as Record<string, unknown> | undefined;
    if (scenario && typeof scenario === 'object' && typeof scenario.environmentId === 'string' && scenario.environmentId) ids.add(scenario.environmentId);
  }
  return [...ids].sort();
}
