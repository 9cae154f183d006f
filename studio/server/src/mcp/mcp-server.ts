import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolRequest, type CallToolResult, type ServerNotification, type ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { boundedEcho, WIFLOW_VERSION, type JobEvent, type Principal } from '@wiflow/core';
import type { StudioContext } from '../context.js';
import type { FlowService } from '../flows/flow-service.js';
import type { FlowRunner } from '../jobs/flow-runner.js';
import { RequestValidationError } from '../http/validation.js';
import { argumentProblems, projectTools } from './tools.js';

function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

/** A tools/call request that does not fit CallToolRequest: -32602 naming the first bad field, never the validator's dump. */
function invalidCallRequest(issue: { path: PropertyKey[]; message: string } | undefined): McpError {
  const field = issue?.path.length ? issue.path.map(String).join('.') : 'params';
  return new McpError(ErrorCode.InvalidParams, `Invalid params: ${boundedEcho(field)}: ${boundedEcho(issue?.message ?? 'invalid')}`);
}

/**
 * An MCP server for one project: tools/list reads the project's mcp-enabled flows afresh;
 * tools/call checks the arguments against the same schema, runs the flow as a job (as the
 * project owner when the caller proved to be the owner or the owner's delegate; as `caller`,
 * the anonymous principal, when the project is open), reports progress, honours cancellation
 * and returns structured content plus text, or `isError` with the reason.
 */
export function createProjectServer(studio: StudioContext, flows: FlowService, runner: FlowRunner, projectId: string, caller: Principal | null = null): Server {
  const server = new Server(
    { name: `wiflow-project-${projectId}`, version: WIFLOW_VERSION },
    { capabilities: { tools: { listChanged: true } }, instructions: 'Each tool runs a wiflow flow of this project as a job and returns its outputs.' },
  );

  const loadProject = async () => {
    const project = await studio.storage.projects.get(projectId);
    if (!project) throw new Error(`project ${projectId} no longer exists`);
    return project;
  };

  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await projectTools(studio, flows, await loadProject());
    return {
      tools: tools.map((t) => ({
        name: t.name,
        title: t.flow.name,
        description: t.description,
        inputSchema: t.inputSchema as { type: 'object'; properties?: Record<string, object> },
        ...(t.outputSchema ? { outputSchema: t.outputSchema as { type: 'object'; properties?: Record<string, object> } } : {}),
      })),
    };
  });

  const callTool = async (request: CallToolRequest, extra: RequestHandlerExtra<ServerRequest, ServerNotification>): Promise<CallToolResult> => {
    const project = await loadProject();
    const tools = await projectTools(studio, flows, project);
    const tool = tools.find((t) => t.name === request.params.name);
    // An unknown tool is a protocol error (MCP 2025-11-25, "Error Handling"); bad arguments below are tool errors the model can correct.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${boundedEcho(request.params.name)}; this project's tools: ${tools.map((t) => t.name).join(', ') || 'none'}`);
    const args = request.params.arguments ?? {};
    const problems = argumentProblems(tool.inputSchema, args);
    if (problems) return errorResult(`Invalid arguments for ${tool.name}: ${problems}`);
    let started;
    try {
      // An anonymous caller's job is its own: it reaches none of the owner's files and counts against nobody's rights.
      started = await runner.start({ userId: caller?.userId ?? project.userId!, flow: tool.flow, named: args, anonymous: Boolean(caller), source: caller ? 'mcp-anonymous' : 'mcp', sessionId: extra.sessionId ?? null });
    } catch (error) {
      const message = error instanceof RequestValidationError ? error.issues.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; ') : (error as Error).message;
      return errorResult(`Could not start ${tool.name}: ${message}`);
    }
    const job = started.job;
    const onAbort = () => void job.cancel('cancelled by the MCP client');
    extra.signal.addEventListener('abort', onAbort, { once: true });
    const progressToken = request.params._meta?.progressToken;
    let unsubscribe: () => void = () => {};
    if (progressToken !== undefined) {
      let last = -1;
      const send = (progress: number, message?: string) => {
        if (progress <= last) return;
        last = progress;
        void extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress, total: 100, ...(message ? { message } : {}) } }).catch(() => {});
      };
      unsubscribe = job.log.subscribe(0, (event: JobEvent | null) => {
        if (!event) return;
        if (event.event === 'job_started') send(0, 'started');
        else if (event.event === 'progress') {
          const data = event.data as { fraction?: number; message?: string; node_id?: string };
          if (typeof data.fraction === 'number') send(Math.round(Math.min(1, Math.max(0, data.fraction)) * 99), data.message ?? data.node_id);
        } else if (event.event === 'job_completed') send(100, 'completed');
      });
    }
    try {
      const { snapshot } = await runner.result(started);
      if (snapshot.status !== 'completed') return errorResult(`Flow run ${snapshot.status}${snapshot.error ? `: ${snapshot.error}` : ''} (job ${snapshot.id})`);
      const structured = snapshot.outputs;
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    } finally {
      unsubscribe();
      extra.signal.removeEventListener('abort', onAbort);
    }
  };

  // tools/call is served by the fallback handler because the SDK parses a registered handler's
  // request before it runs and answers one that does not fit (a `name` that is not a string,
  // `arguments` that are not an object) -32603 with the validator's whole dump; here it is -32602.
  server.fallbackRequestHandler = async (request, extra) => {
    if (request.method !== CallToolRequestSchema.shape.method.value) throw new McpError(ErrorCode.MethodNotFound, 'Method not found');
    const parsed = CallToolRequestSchema.safeParse(request);
    if (!parsed.success) throw invalidCallRequest(parsed.error.issues[0]);
    return callTool(parsed.data, extra);
  };

  return server;
}
