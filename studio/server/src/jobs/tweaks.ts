import { nodeConfigJsonSchema, type FlowData, type FlowNode, type FlowControl, type NodeDefinition } from '@wiflow/core';
import { RequestValidationError, type ValidationIssue } from '../http/validation.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function configFields(definition: NodeDefinition): Set<string> {
  const schema = nodeConfigJsonSchema(definition) as { properties?: Record<string, unknown> };
  return new Set(Object.keys(schema.properties ?? {}));
}

/**
 * Apply tweaks to a copy of flow data. A key naming a node (by id, title, or its type's title)
 * with an object value overrides that node's config fields; a top-level scalar applies to
 * every node whose config has that field. Unknown nodes, unknown fields and values the
 * node's config schema rejects are a 422 naming the tweak field — nothing passes silently.
 */
export function applyTweaks(flows: Pick<FlowControl, 'registry'>, data: FlowData, tweaks: Record<string, unknown> | null | undefined): FlowData {
  if (!tweaks || Object.keys(tweaks).length === 0) return data;
  const nodes: FlowNode[] = data.nodes.map((n) => ({ ...n, data: { ...n.data, config: { ...(n.data?.config ?? {}) } } }));
  const issues: ValidationIssue[] = [];
  const touched = new Map<FlowNode, string>();
  const definitionOf = (node: FlowNode) => flows.registry.get(node.data?.nodeType);

  for (const [key, value] of Object.entries(tweaks)) {
    if (isPlainObject(value)) {
      const matches = nodes.filter((n) => n.id === key);
      if (!matches.length) matches.push(...nodes.filter((n) => n.data?.title === key || definitionOf(n)?.title === key));
      if (!matches.length) {
        issues.push({ loc: ['body', 'tweaks', key], msg: `no node with id or title "${key}" in this flow`, type: 'unknown_node' });
        continue;
      }
      for (const node of matches) {
        const definition = definitionOf(node);
        if (!definition) {
          issues.push({ loc: ['body', 'tweaks', key], msg: `node ${node.id} has an unknown node type ${node.data?.nodeType}`, type: 'unknown_node_type' });
          continue;
        }
        const fields = configFields(definition);
        for (const [field, fieldValue] of Object.entries(value)) {
          if (!fields.has(field)) {
            issues.push({ loc: ['body', 'tweaks', key, field], msg: `${definition.type} has no config field "${field}" (fields: ${[...fields].join(', ') || 'none'})`, type: 'unknown_field' });
            continue;
          }
          node.data.config![field] = fieldValue;
          touched.set(node, key);
        }
      }
    } else {
      const matches = nodes.filter((n) => {
        const definition = definitionOf(n);
        return definition !== undefined && configFields(definition).has(key);
      });
      if (!matches.length) {
        issues.push({ loc: ['body', 'tweaks', key], msg: `no node of this flow has a config field "${key}"`, type: 'unknown_field' });
        continue;
      }
      for (const node of matches) {
        node.data.config![key] = value;
        if (!touched.has(node)) touched.set(node, key);
      }
    }
  }

  for (const [node, key] of touched) {
    const definition = definitionOf(node)!;
    const parsed = definition.config.safeParse(node.data.config);
    if (parsed.success) continue;
    for (const issue of parsed.error.issues) {
      const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
      const base: (string | number)[] = key === node.id || isPlainObject(tweaks[key]) ? ['body', 'tweaks', key] : ['body', 'tweaks'];
      issues.push({ loc: [...base, ...path], msg: `${definition.type} (node ${node.id}): ${issue.message}`, type: issue.code });
    }
  }
  if (issues.length) throw new RequestValidationError(issues);
  return { ...data, nodes };
}
