import type { FlowData } from './flow.js';

const JSON_TYPES: Record<string, Record<string, unknown>> = {
  text: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  json: {},
  file: { type: 'string', description: 'An uploaded file: its id or path as returned by the files API' },
};

/**
 * JSON Schemas of a flow's job inputs (from its io.input nodes) and outputs (from its
 * io.output nodes): one declaration, so forms, MCP tool schemas and execution agree.
 */
export function flowIoSchemas(data: FlowData): { input: Record<string, unknown>; output: Record<string, unknown> } {
  const inputProps: Record<string, unknown> = {};
  const required: string[] = [];
  const outputProps: Record<string, unknown> = {};
  for (const node of data.nodes ?? []) {
    const config = (node.data?.config ?? {}) as Record<string, unknown>;
    const name = typeof config.name === 'string' ? config.name : undefined;
    if (!name) continue;
    if (node.data.nodeType === 'io.input') {
      const base = (config.valueType === 'json' && config.schema ? config.schema : JSON_TYPES[(config.valueType as string) ?? 'text']) ?? {};
      inputProps[name] = { ...base, ...(config.description ? { description: config.description } : {}), ...(config.default !== undefined ? { default: config.default } : {}) };
      if (config.required !== false && config.default === undefined) required.push(name);
    } else if (node.data.nodeType === 'io.output') {
      const one = (config.schema as Record<string, unknown> | undefined) ?? {};
      outputProps[name] = config.collect === 'last' ? { ...one, ...(config.description ? { description: config.description } : {}) } : { type: 'array', items: one, ...(config.description ? { description: config.description } : {}) };
    }
  }
  return {
    input: { type: 'object', properties: inputProps, required, additionalProperties: false },
    output: { type: 'object', properties: outputProps },
  };
}
