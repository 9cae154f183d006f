import { param } from '../http/params.js';
import express, { Router } from 'express';
import { z } from 'zod';
import type { MessageRecord } from '@wiflow/core';
import { jsonBody } from '../http/json-body.js';
import { requireRole } from '../http/roles.js';
import type { StudioContext } from '../context.js';
import { StudioErrors } from '../errors.js';
import { principalOf, requireUser } from '../http/auth.js';
import { parseWith } from '../http/validation.js';
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

/** `/api/v1/monitor/messages`: messages by flow and session, delete by ids or session. */
export function messageRoutes(studio: StudioContext, flows: FlowService): Router {
  const router = Router();
  router.use(requireUser(studio.runtime, () => studio.config.autoLogin));

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

  router.get('/messages', async (req, res) => {
    const q = parseWith(MessageQuery, req.query, 'query');
    const ids = await ownedFlowIds(principalOf(res).userId, q.flow_id);
    const messages = await findAll(ids, { sessionId: q.session_id, sender: q.sender, senderName: q.sender_name, order: q.order });
    res.json(messages.map(toMessageRead));
  });

  router.get('/messages/sessions', async (req, res) => {
    const flowId = parseWith(z.object({ flow_id: z.guid().optional() }), req.query, 'query').flow_id;
    const ids = await ownedFlowIds(principalOf(res).userId, flowId);
    const sessions = new Set<string>();
    for (const id of ids) for (const s of await studio.storage.messages.sessions(id)) sessions.add(s);
    res.json([...sessions]);
  });

  router.delete('/messages', requireRole('operator', 'delete messages'), ...jsonBody(), async (req, res) => {
    const ids = parseWith(z.array(z.string().min(1)).min(1), req.body, 'body');
    const owned = new Set(await ownedFlowIds(principalOf(res).userId));
    const deletable: string[] = [];
    for (const id of ids) {
      const message = await studio.storage.messages.get(id);
      if (message && message.flowId && owned.has(message.flowId)) deletable.push(id);
    }
    const deleted = deletable.length ? await studio.storage.messages.delete(deletable) : 0;
    res.json({ deleted });
  });

  router.delete('/messages/session/:session_id', async (req, res) => {
    const owned = new Set(await ownedFlowIds(principalOf(res).userId));
    const inSession = await studio.storage.messages.find({ sessionId: param(req, 'session_id') }, { page: 1, perPage: 10_000 });
    if (!inSession.items.length) throw StudioErrors.sessionNotFound(param(req, 'session_id'));
    const mine = inSession.items.filter((m) => m.flowId && owned.has(m.flowId)).map((m) => m.id);
    if (mine.length !== inSession.items.length) throw StudioErrors.forbidden('the session holds messages of flows you do not own');
    res.json({ deleted: await studio.storage.messages.delete(mine) });
  });

  return router;
}
