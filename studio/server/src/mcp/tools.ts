import { flowIoSchemas, type FlowRecord, type ProjectRecord } from '@wiflow/core';
import { Ajv, type ValidateFunction } from 'ajv';
import type { StudioContext } from '../context.js';
import type { FlowService } from '../flows/flow-service.js';
import { asFlowData } from '../flows/flow-data.js';

/** One flow published as a tool of its project's MCP server. */
export interface FlowTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown> | undefined;
  flow: FlowRecord;
}

/** A tool name clients accept: lower-case letters, digits, `_` and `-`, at most 64 characters. */
export function sanitizeToolName(name: string): string {
  const clean = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '')
    .slice(0, 64);
  return clean || 'flow';
}

/**
 * The tools of a project: its flows with `mcp_enabled`, oldest first so names stay stable;
 * name from `action_name` (or the flow name) made unique with `_2`, `_3`...; schemas from
 * the flow's io.input / io.output nodes (flowIoSchemas), the same declaration the run uses.
 */
export async function projectTools(studio: StudioContext, flows: FlowService, project: ProjectRecord): Promise<FlowTool[]> {
  if (!project.userId) return [];
  const list = (await flows.listAll(project.userId, { folderId: project.id, mcpEnabled: true })).filter((f) => f.mcpEnabled && !f.isComponent);
  list.sort((a, b) => a.createdAt - b.createdAt || a.id.localeCompare(b.id));
  const used = new Set<string>();
  return list.map((flow) => {
    const base = sanitizeToolName(flow.actionName || flow.name);
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base.slice(0, 60)}_${n}`;
    used.add(name);
    const schemas = flowIoSchemas(asFlowData(flow.data));
    const hasOutputs = Object.keys((schemas.output.properties as object) ?? {}).length > 0;
    return {
      name,
      description: flow.actionDescription || flow.description || `Run the flow "${flow.name}"`,
      inputSchema: schemas.input,
      outputSchema: hasOutputs ? schemas.output : undefined,
      flow,
    };
  });
}

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map<string, ValidateFunction>();

/** Check tool arguments against the tool's input schema; the problems as one message, or null. */
export function argumentProblems(schema: Record<string, unknown>, args: unknown): string | null {
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    if (validators.size > 500) validators.clear();
    validators.set(key, validate);
  }
  if (validate(args ?? {})) return null;
  return (validate.errors ?? []).map((e) => `${e.instancePath || '(arguments)'} ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`).join('; ');
}
