import { randomUUID } from 'node:crypto';
import {
  StorageErrors,
  type AnalyticsEvent,
  type Person,
  type PoseFrame,
  type FileCreate,
  type FileRecord,
  type FlowCreate,
  type FlowFields,
  type FlowPatch,
  type FlowRecord,
  type MessageCreate,
  type MessageRecord,
  type PoseQuery,
  type ProjectCreate,
  type ProjectFields,
  type ProjectRecord,
  type StoredPerson,
} from '@wiflow/core';

// Builders every storage implementation uses, so defaults and validation are the same
// whatever the backend.

function requireName(value: unknown, what: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw StorageErrors.invalid(`${what} name must be a non-empty string`);
  return value;
}

/** A new flow record from FlowCreate (defaults: null, false, [], 'PRIVATE'; revision 1). */
export function buildFlow(input: FlowCreate, now: number): FlowRecord {
  const flow: FlowRecord = {
    id: input.id ?? randomUUID(),
    userId: input.userId ?? null,
    name: requireName(input.name, 'flow'),
    description: input.description ?? null,
    data: input.data ?? null,
    accessType: input.accessType ?? 'PRIVATE',
    actionName: input.actionName ?? null,
    actionDescription: input.actionDescription ?? null,
    endpointName: input.endpointName ?? null,
    folderId: input.folderId ?? null,
    fsPath: input.fsPath ?? null,
    gradient: input.gradient ?? null,
    icon: input.icon ?? null,
    iconBgColor: input.iconBgColor ?? null,
    isComponent: input.isComponent ?? false,
    locked: input.locked ?? false,
    mcpEnabled: input.mcpEnabled ?? false,
    tags: input.tags ?? [],
    webhook: input.webhook ?? false,
    createdAt: now,
    updatedAt: now,
    revision: 1,
  };
  if (flow.accessType !== 'PRIVATE' && flow.accessType !== 'PUBLIC') throw StorageErrors.invalid(`accessType must be PRIVATE or PUBLIC, got ${String(flow.accessType)}`);
  return flow;
}

const FLOW_FIELDS: (keyof FlowFields)[] = [
  'name', 'description', 'data', 'accessType', 'actionName', 'actionDescription', 'endpointName', 'folderId', 'fsPath',
  'gradient', 'icon', 'iconBgColor', 'isComponent', 'locked', 'mcpEnabled', 'tags', 'webhook',
];

/** The flow after a patch (undefined fields kept), at the next revision. */
export function patchFlow(flow: FlowRecord, patch: FlowPatch, now: number): FlowRecord {
  const next: FlowRecord = { ...flow, updatedAt: Math.max(now, flow.updatedAt), revision: flow.revision + 1 };
  for (const field of FLOW_FIELDS) {
    if (patch[field] !== undefined) (next as unknown as Record<string, unknown>)[field] = patch[field];
  }
  requireName(next.name, 'flow');
  if (next.tags === null) next.tags = [];
  return next;
}

/** A new project record. */
export function buildProject(input: ProjectCreate, now: number): ProjectRecord {
  return {
    id: input.id ?? randomUUID(),
    userId: input.userId ?? null,
    name: requireName(input.name, 'project'),
    description: input.description ?? null,
    parentId: input.parentId ?? null,
    authSettings: input.authSettings ?? null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The project after a patch. */
export function patchProject(project: ProjectRecord, patch: Partial<ProjectFields>, now: number): ProjectRecord {
  const next: ProjectRecord = { ...project, updatedAt: Math.max(now, project.updatedAt) };
  for (const field of ['name', 'description', 'parentId', 'authSettings'] as const) {
    if (patch[field] !== undefined) (next as unknown as Record<string, unknown>)[field] = patch[field];
  }
  requireName(next.name, 'project');
  return next;
}

/** A new message record. */
export function buildMessage(input: MessageCreate, now: number): MessageRecord {
  for (const field of ['sessionId', 'sender', 'senderName'] as const) {
    if (typeof input[field] !== 'string') throw StorageErrors.invalid(`message ${field} must be a string`);
  }
  if (typeof input.text !== 'string') throw StorageErrors.invalid('message text must be a string');
  return {
    id: input.id ?? randomUUID(),
    flowId: input.flowId ?? null,
    sessionId: input.sessionId,
    sender: input.sender,
    senderName: input.senderName,
    text: input.text,
    category: input.category ?? 'message',
    contentBlocks: input.contentBlocks ?? [],
    contextId: input.contextId ?? null,
    edit: input.edit ?? false,
    error: input.error ?? false,
    files: input.files ?? [],
    properties: input.properties ?? {},
    timestamp: input.timestamp ?? now,
  };
}

/** A new file record. */
export function buildFile(input: FileCreate, now: number): FileRecord {
  requireName(input.name, 'file');
  if (typeof input.path !== 'string' || input.path === '') throw StorageErrors.invalid('file path must be a non-empty string');
  if (!Number.isInteger(input.size) || input.size < 0) throw StorageErrors.invalid(`file size must be an integer >= 0, got ${input.size}`);
  return {
    id: input.id ?? randomUUID(),
    userId: input.userId ?? null,
    flowId: input.flowId ?? null,
    name: input.name,
    path: input.path,
    size: input.size,
    mimeType: input.mimeType ?? 'application/octet-stream',
    sha256: input.sha256 ?? null,
    createdAt: now,
    updatedAt: now,
  };
}

/** A person with its identifiers removed (anonymize_data): person and track ids become null. */
export function anonymizePerson(person: Person | StoredPerson): StoredPerson {
  return { ...person, id: null, trackId: null };
}

/** Check an analytics event before it is stored; throws StorageErrors.invalid naming the field. */
export function checkEvent(event: AnalyticsEvent): void {
  if (typeof event !== 'object' || event === null) throw StorageErrors.invalid('an event must be an object');
  if (typeof event.eventId !== 'string' || event.eventId === '') throw StorageErrors.invalid('event eventId must be a non-empty string');
  if (!Number.isFinite(event.timestamp)) throw StorageErrors.invalid('event timestamp must be a finite number (ms)');
  if (typeof event.type !== 'string' || typeof event.environmentId !== 'string') throw StorageErrors.invalid('event type and environmentId must be strings');
}

/** Check a pose frame before it is queued; throws StorageErrors.invalid. */
export function checkPoseFrame(frame: PoseFrame): void {
  if (typeof frame !== 'object' || frame === null) throw StorageErrors.invalid('a pose frame must be an object');
  if (!Number.isFinite(frame.timestamp)) throw StorageErrors.invalid('pose frame timestamp must be a finite number (ms)');
  if (typeof frame.environmentId !== 'string' || frame.environmentId === '') throw StorageErrors.invalid('pose frame environmentId must be a non-empty string');
  if (!Number.isFinite(frame.frameId)) throw StorageErrors.invalid('pose frame frameId must be a number');
  if (!Array.isArray(frame.persons)) throw StorageErrors.invalid('pose frame persons must be an array');
  for (const person of frame.persons) {
    if (typeof person !== 'object' || person === null || !Number.isFinite(person.confidence)) throw StorageErrors.invalid('every person needs a numeric confidence');
  }
}

/** Whether a pose query filters persons (then frames keep only matching persons and drop empty ones). */
export function hasPersonFilter(query: PoseQuery): boolean {
  return query.personId !== undefined || query.trackId !== undefined || query.minConfidence !== undefined;
}

/** Whether one person passes a pose query's person filters. */
export function personMatches(person: { id: number | null; trackId: number | null; confidence: number }, query: PoseQuery): boolean {
  if (query.personId !== undefined && person.id !== query.personId) return false;
  if (query.trackId !== undefined && person.trackId !== query.trackId) return false;
  if (query.minConfidence !== undefined && person.confidence < query.minConfidence) return false;
  return true;
}
