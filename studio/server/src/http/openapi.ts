import { createRequire } from 'node:module';
import type { Router } from 'express';
import { buildOpenApi, defineRoute } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { JsonObject, declaredRoutes, flowServiceRouter } from './route-kit.js';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** The flow service's error body: `{detail, code}`, `detail` a message or (422) FastAPI's list of field problems. */
const FlowServiceError = z.object({
  detail: z.union([z.string(), z.array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() })), JsonObject]),
  code: z.string(),
});

/** Where the document is served: beside Langflow's `/api/v1` paths, clashing with none of them (Langflow serves its own at `/openapi.json`). */
export const OPENAPI_PATH = '/api/v1/openapi.json';

/**
 * The same document at a path of its own: where the pose API loads too (`wiflow serve`, `npm start`),
 * the pose service's document answers at OPENAPI_PATH, registered first, and this one is reached here.
 */
export const FLOW_SERVICE_OPENAPI_PATH = '/api/v1/studio/openapi.json';

/** A mount path and a route path; a document mounted at its own path ('/api/v1/openapi.json' + '/') keeps no trailing slash. */
function joinPath(mount: string, path: string): string {
  return path === '/' && mount.endsWith('.json') ? mount : `${mount}${path}`;
}

/**
 * OpenAPI 3.1 document of every flow service route declared with `defineRoute` (core's
 * `buildOpenApi`, with the flow service's `{detail, code}` error body). Bare handlers (streams,
 * multipart uploads, file downloads, MCP) are not in it.
 */
export function flowServiceOpenApi(mounts: readonly { path: string; router: Router }[]): Record<string, unknown> {
  const routes = mounts.flatMap(({ path, router }) => declaredRoutes(router).map((route) => ({ ...route, path: joinPath(path, route.path) })));
  const document = buildOpenApi(routes, 'A', { title: 'wiflow flow service', name: 'Flow service', version, serverUrl: '/' }) as Record<string, any>;
  document.info.description = 'The wiflow flow service (Langflow-compatible paths): the routes declared with defineRoute. Errors answer {detail, code}; validation errors answer 422 with FastAPI\'s detail list.';
  document.components.schemas.Error = z.toJSONSchema(FlowServiceError, { io: 'output', target: 'draft-2020-12' });
  delete document.components.schemas.Error.$schema;
  document.components.securitySchemes.bearerAuth.description = 'Access token from POST /api/v1/auth/token';
  delete document['x-wiflow-convention'];
  return document;
}

/** `GET /api/v1/openapi.json` (mount at OPENAPI_PATH and FLOW_SERVICE_OPENAPI_PATH): the document of `mounts`, built once, on the first request. */
export function openApiRoutes(studio: StudioContext, mounts: readonly { path: string; router: Router }[]): Router {
  let document: Record<string, unknown> | undefined;
  return flowServiceRouter(studio, [
    defineRoute({
      method: 'get',
      path: '/',
      summary: 'This OpenAPI document',
      tags: ['meta'],
      spec: false,
      access: 'public',
      success: { status: 200, description: 'OpenAPI 3.1', A: JsonObject, B: JsonObject },
      errors: [],
      handler: async () => ({ body: (document ??= flowServiceOpenApi(mounts)) }),
    }),
  ]);
}
