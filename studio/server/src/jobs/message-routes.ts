import type { Router } from 'express';
import { z } from 'zod';
import { defineRoute, type MessageRecord } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { requireUser } from '../http/auth.js';
import { JsonObject, flowServiceRouter, type FlowServiceRoute } from '../http/route-kit.js';
import type { FlowService } from '../flows/flow-service.js';

/** MessageRead. */
export function toMessageRead(m: MessageRecord): Record<string, unknown> {
  return {
    id: m.id,
    flow_id: m.flowId,
    session_id: m.sessionId,
    sender: m.sender,
    sender_name: m.senderName,
    text: m.text,
    category: m.category ?? 'message',
    content_blocks: m.contentBlocks ?? [],
    context_id: m.contextId ?? null,
    edit: m.edit ?? false,
    error: m.error ?? false,
    files: m.files ?? [],
    properties: m.properties ?? {},
    timestamp: new Date(m.timestamp).toISOString(),
  };
}

const MessageQuery = z.object({
  flow_id: z.guid().optional(),
  session_id: z.string().optional(),
  sender: z.string().optional(),
  sender_name: z.string().optional(),
  order_by: z.enum(['timestamp']).default('timestamp'),
  order: z.enum(['asc', 'desc']).default('asc'),
});

const SessionQuery = z.object({ flow_id: z.guid().optional() });
const MessageIds = z.array(z.string().min(1)).min(1);
const Deleted = z.object({ deleted: z.number() });

/** `/api/v1/monitor/messages`: messages by flow and session, delete by ids or session. */
export function messageRoutes(studio: StudioContext, flows: FlowService): Router {
  async function ownedFlowIds(userId: string, flowId?: string): Promise<string[]> {
    if (flowId) return [(await studio.ownedFlow(userId, flowId)).id];
    return (await flows.listAll(userId, { includeData: false })).map((f) => f.id);
  }

  async function findAll(flowIds: string[], filter: { sessionId?: string; sender?: string; senderName?: string; order: 'asc' | 'desc' }): Promise<MessageRecord[]> {
    const out: MessageRecord[] = [];
    for (const flowId of flowIds) {
      for (let page = 1; ; page++) {
        const result = await studio.storage.messages.find({ flowId, ...filter }, { page, perPage: 500 });
        out.push(...result.items);
        if (!result.hasNext) break;
      }
    }
    return out.sort((a, b) => (filter.order === 'asc' ? a.timestamp - b.timestamp : b.timestamp - a.timestamp));
  }

  const routes: FlowServiceRoute[] = [
    defineRoute({
      method: 'get',
      path: '/messages',
      summary: "Messages of the caller's flows, by flow, session and sender",
      tags: ['monitor'],
      spec: true,
      access: 'viewer',
      query: MessageQuery,
      success: { status: 200, description: 'MessageRead list', A: z.array(JsonObject), B: z.array(JsonObject) },
      errors: [404, 422],
      async handler({ query, principal }) {
        const q = query as z.output<typeof MessageQuery>;
        const ids = await ownedFlowIds(principal!.userId, q.flow_id);
        const messages = await findAll(ids, { sessionId: q.session_id, sender: q.sender, senderName: q.sender_name, order: q.order });
        return { body: messages.map(toMessageRead) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/messages/sessions',
      summary: "Session ids of the caller's flows' messages",
      tags: ['monitor'],
      spec: true,
      access: 'viewer',
      query: SessionQuery,
      success: { status: 200, description: 'Session ids', A: z.array(z.string()), B: z.array(z.string()) },
      errors: [404, 422],
      async handler({ query, principal }) {
        const ids = await ownedFlowIds(principal!.userId, (query as z.output<typeof SessionQuery>).flow_id);
        const sessions = new Set<string>();
        for (const id of ids) for (const s of await studio.storage.messages.sessions(id)) sessions.add(s);
        return { body: [...sessions] };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/messages',
      summary: "Delete messages by id (the caller's flows' only)",
      tags: ['monitor'],
      spec: true,
      access: 'operator',
      action: 'delete messages',
      body: MessageIds,
      success: { status: 200, description: 'How many were deleted', A: Deleted, B: Deleted },
      errors: [413, 422],
      async handler({ body, principal }) {
        const owned = new Set(await ownedFlowIds(principal!.userId));
        const deletable: string[] = [];
        for (const id of body as z.output<typeof MessageIds>) {
          const message = await studio.storage.messages.get(id);
          if (message && message.flowId && owned.has(message.flowId)) deletable.push(id);
        }
        const deleted = deletable.length ? await studio.storage.messages.delete(deletable) : 0;
        return { body: { deleted } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/messages/session/{session_id}',
      summary: "Delete a session's messages (all of them the caller's)",
      tags: ['monitor'],
      spec: true,
      access: 'viewer',
      params: z.object({ session_id: z.string() }),
      success: { status: 200, description: 'How many were deleted', A: Deleted, B: Deleted },
      errors: [404],
      async handler({ params, principal }) {
        const sessionId = params.session_id as string;
        const owned = new Set(await ownedFlowIds(principal!.userId));
        const inSession = await studio.storage.messages.find({ sessionId }, { page: 1, perPage: 10_000 });
        if (!inSession.items.length) throw StudioErrors.sessionNotFound(sessionId);
        const mine = inSession.items.filter((m) => m.flowId && owned.has(m.flowId)).map((m) => m.id);
        if (mine.length !== inSession.items.length) throw StudioErrors.forbidden('the session holds messages of flows you do not own');
        return { body: { deleted: await studio.storage.messages.delete(mine) } };
      },
    }),
  ];

  const router = flowServiceRouter(studio, routes);
  // Any other path under the mount answers as the router always has: 401 to nobody, else on to 404.
  router.use(requireUser(studio, () => studio.config.autoLogin));
  return router;
}
