import { param } from '../http/params.js';
import { randomUUID } from 'node:crypto';
import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { Tokens, type Principal, type ProjectRecord, type SecretBox } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { isUuid } from '../context.js';
import { StudioErrors } from '../errors.js';
import { credentialsOf, isLoopback, principalOf, requireUser } from '../http/auth.js';
import { requireRole } from '../http/roles.js';
import { jsonBody } from '../http/json-body.js';
import { parseWith } from '../http/validation.js';
import type { FlowService } from '../flows/flow-service.js';
import type { FlowRunner } from '../jobs/flow-runner.js';
import { baseUrlOf } from '../studio/studio-routes.js';
import { ANONYMOUS_MCP_PRINCIPAL, AuthSettingsSchema, DEFAULT_MCP_AUTH_TYPE, mcpAuthType, openClientSecret, publicAuthSettings, sealAuthSettings } from './auth-settings.js';
import { MCP_CLIENTS, clientConfigPath, defaultHome, installServer, isInstalled, serverEntry } from './install.js';
import { jsonRpcBody, sendJsonRpcError } from './json-rpc-body.js';
import { createProjectServer } from './mcp-server.js';
import { OAuthValidator } from './oauth.js';
import { projectTools, sanitizeToolName } from './tools.js';

/** MCPSettings. */
const MCPSettingsSchema = z.object({
  id: z.guid(),
  name: z.string().nullable().optional(),
  description: z.string().nullable().optional(),
  action_name: z.string().nullable().optional(),
  action_description: z.string().nullable().optional(),
  mcp_enabled: z.boolean().nullable().optional(),
});

/** MCPProjectUpdateRequest. */
const MCPProjectUpdateRequestSchema = z.object({ settings: z.array(MCPSettingsSchema), auth_settings: AuthSettingsSchema.nullable().optional() });

/** MCPInstallRequest. */
const MCPInstallRequestSchema = z.object({ client: z.string().min(1), transport: z.enum(['sse', 'streamablehttp']).nullable().optional() });

/** A live MCP connection. */
interface McpSession {
  projectId: string;
  server: Server;
  transport: StreamableHTTPServerTransport | SSEServerTransport;
}

/** The live MCP sessions of every project, so changes reach them as tools/list_changed. */
export class McpSessions {
  readonly #sessions = new Map<string, McpSession & { lastSeen: number }>();
  #sweeper: NodeJS.Timeout | undefined;

  /** Sessions idle longer than `idleMs` are closed (clients that never send DELETE). */
  constructor(private readonly idleMs = 30 * 60_000) {}

  add(id: string, session: McpSession): void {
    this.#sessions.set(id, { ...session, lastSeen: Date.now() });
    if (!this.#sweeper) {
      this.#sweeper = setInterval(() => this.sweep(), Math.min(60_000, this.idleMs));
      this.#sweeper.unref();
    }
  }
  /** The session (and mark it as used now). */
  get(id: string): McpSession | undefined {
    const session = this.#sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return session;
  }
  /** Close sessions idle for longer than the limit; returns how many. */
  sweep(now = Date.now()): number {
    let closed = 0;
    for (const [id, session] of this.#sessions) {
      // SSE sessions end with their connection; only Streamable HTTP sessions can be abandoned.
      if (!(session.transport instanceof StreamableHTTPServerTransport) || now - session.lastSeen <= this.idleMs) continue;
      this.#sessions.delete(id);
      void session.transport.close().catch(() => {});
      closed++;
    }
    return closed;
  }
  delete(id: string): void {
    this.#sessions.delete(id);
  }
  get size(): number {
    return this.#sessions.size;
  }
  /** Tell every session of the project that its tool list changed. */
  notifyToolsChanged(projectId: string): void {
    for (const session of this.#sessions.values()) {
      if (session.projectId === projectId) void session.server.sendToolListChanged().catch(() => {});
    }
  }
  /** Close every session (runtime stopping). */
  async closeAll(): Promise<void> {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
    await Promise.all([...this.#sessions.values()].map((s) => s.transport.close().catch(() => {})));
    this.#sessions.clear();
  }
}

/** How big one MCP message may be (tool arguments can carry a recording's worth of data). */
const MCP_BODY_LIMIT = 10 * 1024 * 1024;

/** `/api/v1/mcp/project`: per-project MCP servers (Streamable HTTP and legacy SSE), settings, install, composer URL. */
export function mcpRoutes(studio: StudioContext, flows: FlowService, runner: FlowRunner, sessions: McpSessions): Router {
  const router = Router();
  const json = jsonBody('10mb');
  const auth = requireUser(studio, () => studio.config.autoLogin);
  const box = () => studio.services.get(Tokens.SecretBox);
  const oauth = new OAuthValidator(() => studio.config.mcp.oauthCacheMs);
  studio.onProjectChange((projectId) => sessions.notifyToolsChanged(projectId));

  /** Browsers may reach the endpoints only from this server's own origin or the configured ones (DNS rebinding). */
  function checkOrigin(req: Request): void {
    const origin = req.get('origin');
    if (!origin) return;
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      throw StudioErrors.badOrigin(origin);
    }
    if (host === req.get('host') || studio.config.mcp.allowedOrigins.includes(origin)) return;
    throw StudioErrors.badOrigin(origin);
  }

  /** Enforce the project's MCP auth settings; the project goes to `res.locals.project`. */
  async function mcpAuth(req: Request, res: Response, next: NextFunction): Promise<void> {
    checkOrigin(req);
    const id = param(req, 'project_id');
    const project = isUuid(id) ? await studio.storage.projects.get(id) : null;
    if (!project) throw StudioErrors.projectNotFound(id);
    const settings = project.authSettings ?? {};
    const type = mcpAuthType(project.authSettings);
    // The owner vouches for key and OAuth callers; a call to a project left open runs as nobody in particular.
    res.locals.mcpCaller = type === 'none' ? ANONYMOUS_MCP_PRINCIPAL : null;
    if (type === 'apikey') {
      // The owner's API key, or the owner's own access token (a logged-in client of the owner).
      const { apiKey, bearer } = credentialsOf(req);
      const principal = apiKey || bearer ? await studio.hooks.authenticate.promise({ apiKey, bearer, request: req }) : undefined;
      if (!principal) {
        res.setHeader('WWW-Authenticate', 'ApiKey header="x-api-key"');
        throw StudioErrors.unauthenticated();
      }
      if (principal.userId !== project.userId) throw StudioErrors.forbidden('this API key does not belong to the owner of the project');
    } else if (type === 'oauth') {
      const { bearer } = credentialsOf(req);
      const ok = bearer
        ? await oauth.validate(
            { serverUrl: (settings.oauth_server_url as string | null) ?? null, clientId: (settings.oauth_client_id as string | null) ?? null, clientSecret: openClientSecret(box(), settings), scope: (settings.oauth_mcp_scope as string | null) ?? null },
            bearer,
          )
        : false;
      if (!ok) {
        res.setHeader('WWW-Authenticate', `Bearer realm="wiflow-mcp"${settings.oauth_mcp_scope ? `, scope="${String(settings.oauth_mcp_scope)}"` : ''}`);
        throw StudioErrors.unauthenticated();
      }
    }
    res.locals.project = project;
    next();
  }

  // --- Streamable HTTP ---------------------------------------------------------------
  // `/mcp` is an alias: clients such as the MCP Inspector CLI pick Streamable HTTP for URLs ending in /mcp.
  const streamable = ['/:project_id/streamable', '/:project_id/mcp'];
  router.post(streamable, mcpAuth, ...jsonRpcBody(MCP_BODY_LIMIT, { batches: true }), async (req, res) => {
    const project = res.locals.project as ProjectRecord;
    const sessionId = req.get('mcp-session-id');
    if (sessionId) {
      const session = sessions.get(sessionId);
      if (!session || session.projectId !== project.id || !(session.transport instanceof StreamableHTTPServerTransport)) return sendJsonRpcError(res, 404, -32001, 'Session not found');
      await session.transport.handleRequest(req, res, req.body);
      return;
    }
    const initialize = Array.isArray(req.body) ? req.body.some((m) => isInitializeRequest(m)) : isInitializeRequest(req.body);
    const stateless = !initialize || req.query.stateless === 'true' || req.query.stateless === '1';
    const server = createProjectServer(studio, flows, runner, project.id, res.locals.mcpCaller as Principal | null);
    let transport: StreamableHTTPServerTransport;
    if (stateless) {
      transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: req.query.json === 'true' });
      res.on('close', () => {
        void transport.close().catch(() => {});
        void server.close().catch(() => {});
      });
    } else {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => sessions.add(id, { projectId: project.id, server, transport }),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
    }
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });

  const sessionRequest = async (req: Request, res: Response) => {
    const project = res.locals.project as ProjectRecord;
    const sessionId = req.get('mcp-session-id');
    if (!sessionId) {
      res.setHeader('Allow', 'POST');
      return sendJsonRpcError(res, 405, -32000, 'Method not allowed without an mcp-session-id (stateless use is POST only)');
    }
    const session = sessions.get(sessionId);
    if (!session || session.projectId !== project.id || !(session.transport instanceof StreamableHTTPServerTransport)) return sendJsonRpcError(res, 404, -32001, 'Session not found');
    await session.transport.handleRequest(req, res);
  };
  router.get(streamable, mcpAuth, sessionRequest);
  router.delete(streamable, mcpAuth, sessionRequest);

  // --- Legacy HTTP+SSE -----------------------------------------------------------------
  router.get('/:project_id/sse', mcpAuth, async (req, res) => {
    const project = res.locals.project as ProjectRecord;
    const transport = new SSEServerTransport(`${req.baseUrl}/${project.id}`, res);
    const server = createProjectServer(studio, flows, runner, project.id, res.locals.mcpCaller as Principal | null);
    sessions.add(transport.sessionId, { projectId: project.id, server, transport });
    transport.onclose = () => sessions.delete(transport.sessionId);
    res.on('close', () => {
      sessions.delete(transport.sessionId);
      void server.close().catch(() => {});
    });
    await server.connect(transport);
  });

  router.post('/:project_id', mcpAuth, ...jsonRpcBody(MCP_BODY_LIMIT, { batches: false }), async (req, res) => {
    const project = res.locals.project as ProjectRecord;
    const sessionId = typeof req.query.sessionId === 'string' ? req.query.sessionId : '';
    const session = sessions.get(sessionId);
    if (!session || session.projectId !== project.id || !(session.transport instanceof SSEServerTransport)) return sendJsonRpcError(res, 404, -32001, 'Session not found');
    await session.transport.handlePostMessage(req, res, req.body);
  });

  // --- Settings ------------------------------------------------------------------------
  async function toolSettings(project: ProjectRecord) {
    const list = await flows.listAll(project.userId!, { folderId: project.id, includeData: false });
    return list
      .filter((f) => !f.isComponent)
      .map((f) => ({ id: f.id, name: f.name, description: f.description, action_name: f.actionName, action_description: f.actionDescription, mcp_enabled: f.mcpEnabled }));
  }

  router.get('/:project_id', auth, async (req, res) => {
    const project = await studio.ownedProject(principalOf(res).userId, param(req, 'project_id'));
    res.json({ tools: await toolSettings(project), auth_settings: publicAuthSettings(project.authSettings) ?? publicAuthSettings({ auth_type: DEFAULT_MCP_AUTH_TYPE }) });
  });

  router.patch('/:project_id', auth, requireRole('operator', 'change MCP settings'), ...json, async (req, res) => {
    const principal = principalOf(res);
    const project = await studio.ownedProject(principal.userId, param(req, 'project_id'));
    const body = parseWith(MCPProjectUpdateRequestSchema, req.body, 'body');
    let updatedFlows = 0;
    for (const s of body.settings) {
      const flow = await studio.ownedFlow(principal.userId, s.id);
      if (flow.folderId !== project.id) throw StudioErrors.invalidBody(`flow ${s.id} is not in project ${project.id}`);
      const patch: Record<string, unknown> = {};
      if (s.name != null && s.name !== flow.name) patch.name = s.name;
      if (s.description !== undefined && s.description !== flow.description) patch.description = s.description;
      if (s.action_name !== undefined && s.action_name !== flow.actionName) patch.actionName = s.action_name;
      if (s.action_description !== undefined && s.action_description !== flow.actionDescription) patch.actionDescription = s.action_description;
      if (s.mcp_enabled != null && s.mcp_enabled !== flow.mcpEnabled) patch.mcpEnabled = s.mcp_enabled;
      if (Object.keys(patch).length) {
        await flows.applyPatch(principal, flow, patch, undefined, 'MCP settings');
        updatedFlows++;
      }
    }
    let current = project;
    if (body.auth_settings) current = await studio.storage.projects.update(project.id, { authSettings: sealAuthSettings(box(), body.auth_settings, project.authSettings) });
    studio.projectsChanged(project.id);
    res.json({
      message: `Updated MCP settings for ${updatedFlows} flow${updatedFlows === 1 ? '' : 's'}${body.auth_settings ? ' and the project auth settings' : ''}`,
      tools: await toolSettings(current),
      auth_settings: publicAuthSettings(current.authSettings) ?? publicAuthSettings({ auth_type: DEFAULT_MCP_AUTH_TYPE }),
    });
  });

  // --- Install and composer URL ----------------------------------------------------------
  function urls(req: Request, projectId: string) {
    const base = `${baseUrlOf(studio, req)}/api/v1/mcp/project/${projectId}`;
    return { streamable_http_url: `${base}/streamable`, legacy_sse_url: `${base}/sse` };
  }

  router.post('/:project_id/install', auth, requireRole('operator', 'install MCP client configurations'), ...json, async (req, res) => {
    if (!isLoopback(req)) throw StudioErrors.notLoopback();
    const principal = principalOf(res);
    const project = await studio.ownedProject(principal.userId, param(req, 'project_id'));
    const body = parseWith(MCPInstallRequestSchema, req.body, 'body');
    const client = body.client.toLowerCase() as (typeof MCP_CLIENTS)[number];
    if (!MCP_CLIENTS.includes(client)) throw StudioErrors.unknownClient(body.client, MCP_CLIENTS.join(', '));
    const { streamable_http_url, legacy_sse_url } = urls(req, project.id);
    const url = body.transport === 'sse' ? legacy_sse_url : streamable_http_url;
    let apiKey: string | null = null;
    if (mcpAuthType(project.authSettings) === 'apikey') {
      apiKey = (await studio.storage.apiKeys.create({ userId: principal.userId, name: `MCP ${client} for ${project.name}`, scopes: ['mcp'] })).key;
    }
    const serverName = `wiflow_${sanitizeToolName(project.name)}`;
    const file = clientConfigPath(client, studio.config.mcp.installHome ?? defaultHome());
    await installServer(file, serverName, serverEntry(client, url, apiKey));
    res.json({ message: `Installed ${serverName} in the ${client} configuration`, client, server_name: serverName, config_path: file, transport: body.transport ?? 'streamablehttp' });
  });

  router.get('/:project_id/installed', auth, async (req, res) => {
    const project = await studio.ownedProject(principalOf(res).userId, param(req, 'project_id'));
    const serverName = `wiflow_${sanitizeToolName(project.name)}`;
    const home = studio.config.mcp.installHome ?? defaultHome();
    const out = [];
    for (const client of MCP_CLIENTS) out.push({ name: client, installed: await isInstalled(clientConfigPath(client, home), serverName) });
    res.json(out);
  });

  router.get('/:project_id/composer-url', auth, async (req, res) => {
    const id = param(req, 'project_id');
    try {
      const project = await studio.ownedProject(principalOf(res).userId, id);
      res.json({ project_id: project.id, uses_composer: false, ...urls(req, project.id), error_message: null });
    } catch (error) {
      res.json({ project_id: id, uses_composer: false, streamable_http_url: null, legacy_sse_url: null, error_message: (error as Error).message });
    }
  });

  router.get('/:project_id/tools', auth, async (req, res) => {
    const project = await studio.ownedProject(principalOf(res).userId, param(req, 'project_id'));
    const tools = await projectTools(studio, flows, project);
    res.json(tools.map((t) => ({ name: t.name, flow_id: t.flow.id, description: t.description, input_schema: t.inputSchema, output_schema: t.outputSchema ?? null })));
  });

  return router;
}
