import { z } from 'zod';
import type { FlowProblem, FlowRecord } from '@wiflow/core';

/** AccessTypeEnum. */
export const AccessTypeEnum = z.enum(['PRIVATE', 'PUBLIC']);

const nullableString = z.string().nullable().optional();
const nullableBoolean = z.boolean().nullable().optional();
/** Endpoint names are URL path segments: letters, digits, hyphens and underscores. */
export const EndpointName = z.string().regex(/^[A-Za-z0-9_-]+$/, 'Endpoint name must contain only letters, numbers, hyphens, and underscores').max(255);

/** FlowCreate (unknown properties are ignored, as Langflow's model does). */
export const FlowCreateSchema = z.object({
  id: z.guid().nullable().optional(),
  name: z.string().trim().min(1, 'name must not be empty').max(255),
  description: nullableString,
  data: z.record(z.string(), z.unknown()).nullable().optional(),
  access_type: AccessTypeEnum.default('PRIVATE'),
  action_name: nullableString,
  action_description: nullableString,
  endpoint_name: EndpointName.nullable().optional(),
  folder_id: z.guid().nullable().optional(),
  fs_path: nullableString,
  gradient: nullableString,
  icon: nullableString,
  icon_bg_color: nullableString,
  is_component: z.boolean().nullable().default(false),
  locked: z.boolean().nullable().default(false),
  mcp_enabled: z.boolean().nullable().default(false),
  tags: z.array(z.string()).nullable().optional(),
  updated_at: z.iso.datetime({ offset: true, local: true }).nullable().optional(),
  user_id: z.guid().nullable().optional(),
  webhook: z.boolean().nullable().default(false),
});
/** A parsed FlowCreate. */
export type FlowCreateBody = z.output<typeof FlowCreateSchema>;

/**
 * The fields of a FlowCreate body that become the flow's as they are, with their defaults
 * (creating a flow and replacing one with PUT both take them so).
 */
export function flowFieldsOfBody(body: FlowCreateBody) {
  return {
    description: body.description ?? null,
    actionName: body.action_name ?? null,
    actionDescription: body.action_description ?? null,
    fsPath: body.fs_path ?? null,
    gradient: body.gradient ?? null,
    icon: body.icon ?? null,
    iconBgColor: body.icon_bg_color ?? null,
    isComponent: body.is_component ?? false,
    locked: body.locked ?? false,
    mcpEnabled: body.mcp_enabled ?? false,
    tags: body.tags ?? [],
    webhook: body.webhook ?? false,
  };
}

/** FlowUpdate: only its fields; null means "leave as is" for name, access_type and the booleans, "clear" for the rest. */
export const FlowUpdateSchema = FlowCreateSchema.pick({
  description: true,
  data: true,
  action_name: true,
  action_description: true,
  endpoint_name: true,
  folder_id: true,
  fs_path: true,
}).extend({
  name: FlowCreateSchema.shape.name.nullable().optional(),
  access_type: AccessTypeEnum.nullable().optional(),
  locked: nullableBoolean,
  mcp_enabled: nullableBoolean,
});
/** A parsed FlowUpdate. */
export type FlowUpdateBody = z.output<typeof FlowUpdateSchema>;

/** FlowListCreate. */
export const FlowListCreateSchema = z.object({ flows: z.array(FlowCreateSchema) });

/** A list of flow ids (delete many, download). */
export const FlowIdListSchema = z.array(z.guid()).min(1, 'give at least one flow id');

/** Validity of a stored flow against the installed node types. */
export interface FlowValidity {
  valid: boolean;
  problems: FlowProblem[];
}

/** FlowRead, plus wiflow's `revision`, `created_at`, `valid` and `problems` (drafts are stored with their problems). */
export function toFlowRead(flow: FlowRecord, data: Record<string, unknown> | null, validity: FlowValidity): Record<string, unknown> {
  return {
    ...toFlowExport(flow, data),
    folder_id: flow.folderId,
    updated_at: new Date(flow.updatedAt).toISOString(),
    user_id: flow.userId,
    created_at: new Date(flow.createdAt).toISOString(),
    revision: flow.revision,
    valid: validity.valid,
    problems: validity.problems,
  };
}

/** FlowHeader: exactly its fields (data only for components). */
export function toFlowHeader(flow: FlowRecord, data: Record<string, unknown> | null): Record<string, unknown> {
  return {
    id: flow.id,
    name: flow.name,
    folder_id: flow.folderId,
    is_component: flow.isComponent,
    endpoint_name: flow.endpointName,
    description: flow.description,
    data: flow.isComponent ? data : null,
    access_type: flow.accessType,
    mcp_enabled: flow.mcpEnabled,
    action_name: flow.actionName,
    action_description: flow.actionDescription,
    tags: flow.tags,
  };
}

/** The exported form of a flow (download, project download): no ids of the owner, secrets removed. */
export function toFlowExport(flow: FlowRecord, data: Record<string, unknown> | null): Record<string, unknown> {
  return {
    id: flow.id,
    name: flow.name,
    description: flow.description,
    data,
    access_type: flow.accessType,
    action_name: flow.actionName,
    action_description: flow.actionDescription,
    endpoint_name: flow.endpointName,
    gradient: flow.gradient,
    icon: flow.icon,
    icon_bg_color: flow.iconBgColor,
    is_component: flow.isComponent,
    locked: flow.locked,
    mcp_enabled: flow.mcpEnabled,
    tags: flow.tags,
    webhook: flow.webhook,
  };
}

/** Page_FlowRead_ (fastapi-pagination's shape). */
export function toPage<T>(items: T[], total: number, page: number, size: number): { items: T[]; total: number; page: number; size: number; pages: number } {
  return { items, total, page, size, pages: total === 0 ? 0 : Math.ceil(total / size) };
}
