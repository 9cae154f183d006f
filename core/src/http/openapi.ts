import { z } from 'zod';
import { SPEC_ERROR_CODES, type ApiConvention } from './api-errors.js';
import { forConvention, type RouteDefinition } from './route.js';

type Json = Record<string, unknown>;

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Json;
  delete out.$schema;
  return out;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid format (body not JSON)',
  401: 'Authentication required or invalid',
  403: 'Insufficient permissions',
  404: 'Resource or pose data not found',
  409: 'Conflict with the system state',
  413: 'Body too large',
  422: 'Validation failed',
  429: 'Rate limit exceeded',
  500: 'Unexpected error',
  502: 'Upstream (hardware) error',
  503: 'System not ready or dependency unavailable',
  504: 'Timeout',
};

/** The error envelope schema of a convention. */
export function errorSchema(convention: ApiConvention): z.ZodType {
  const FieldErrorA = z.object({ field: z.string(), message: z.string(), received_value: z.unknown() });
  const FieldErrorB = z.object({ field: z.string(), reason: z.string() });
  const details = z.object({ field_errors: z.array(convention === 'A' ? FieldErrorA : FieldErrorB).optional() }).catchall(z.unknown());
  const body = { code: z.enum(SPEC_ERROR_CODES), message: z.string(), details };
  return convention === 'A'
    ? z.object({ error: z.object({ ...body, timestamp: z.string(), request_id: z.string() }) })
    : z.object({ success: z.literal(false), error: z.object(body), timestamp: z.string(), request_id: z.string() });
}

/** The success body schema of a route in a convention (B: inside the envelope). */
export function successSchema(route: RouteDefinition, convention: ApiConvention): z.ZodType {
  const payload = route.success[convention];
  if (convention === 'A' || route.bare) return payload;
  return z.object({ success: z.literal(true), data: payload, ...(route.success.extrasB?.shape ?? {}), timestamp: z.string(), request_id: z.string() });
}

/** Rate-limit headers an API sends on every answer (documented on every response). */
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests allowed in the window' },
  'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in the window' },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Window end, epoch seconds' },
  'X-RateLimit-Window': { schema: { type: 'integer' }, description: 'Window length, seconds' },
};

/** What an OpenAPI document says about its API. */
export interface OpenApiOptions {
  title: string;
  /** The API's name in the description, e.g. 'Pose service'. */
  name: string;
  version: string;
  /** Where the routes are mounted, e.g. '/api/v1'. */
  serverUrl: string;
  /** Headers documented on every response (e.g. RATE_LIMIT_HEADERS). */
  headers?: Record<string, Json>;
}

/** OpenAPI 3.1 document of routes defined with `defineRoute`, for the response shapes of one convention. */
export function buildOpenApi(routes: readonly RouteDefinition[], convention: ApiConvention, options: OpenApiOptions): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const parameters: Json[] = [];
    for (const [where, schema] of [['path', route.params], ['query', route.query ? forConvention(route.query, convention) : undefined]] as const) {
      if (!schema) continue;
      for (const [name, field] of Object.entries((schema as z.ZodObject).shape)) {
        const fieldSchema = field as z.ZodType;
        const parameter: Json = { name, in: where, required: where === 'path' || !fieldSchema.safeParse(undefined).success, schema: jsonSchema(fieldSchema, 'output') };
        if (fieldSchema.description) parameter.description = fieldSchema.description;
        parameters.push(parameter);
      }
    }
    const statuses = new Set<number>(route.errors);
    if (route.access !== 'public') [401, 403].forEach((s) => statuses.add(s));
    if (route.body) [400, 422].forEach((s) => statuses.add(s));
    [429, 500].forEach((s) => statuses.add(s));
    const responses: Record<string, Json> = {
      [String(route.success.status)]: { description: route.success.description, headers: options.headers ?? {}, content: { 'application/json': { schema: jsonSchema(successSchema(route, convention), 'output') } } },
    };
    for (const status of [...statuses].sort()) responses[String(status)] = { $ref: `#/components/responses/Error${status}` };
    const operation: Json = {
      operationId: `${route.method}${route.path.replace(/[{}]/g, '').replace(/[/_-](\w)/g, (_, c: string) => c.toUpperCase())}`,
      summary: route.summary,
      tags: route.tags,
      parameters,
      responses,
      security: route.access === 'public' ? [] : [{ bearerAuth: [] }, { apiKeyAuth: [] }],
      'x-wiflow-role': route.access,
      ...(route.category ? { 'x-wiflow-rate-limit-category': route.category } : {}),
      'x-wiflow-spec-endpoint': route.spec,
    };
    if (route.description) operation.description = route.description;
    if (route.specConvention) operation['x-wiflow-spec-convention'] = route.specConvention;
    if (route.body) operation.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(forConvention(route.body, convention), 'input') } } };
    (paths[route.path] ??= {})[route.method] = operation;
  }
  const errorResponses: Record<string, Json> = {};
  for (const [status, description] of Object.entries(ERROR_DESCRIPTIONS)) {
    errorResponses[`Error${status}`] = { description, headers: options.headers ?? {}, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: { title: options.title, version: options.version, description: `${options.name} API, response convention ${convention}. Ask for ?convention=${convention === 'A' ? 'B' : 'A'} to see the other convention's shapes.` },
    servers: [{ url: options.serverUrl }],
    paths,
    components: {
      schemas: { Error: jsonSchema(errorSchema(convention), 'output') },
      responses: errorResponses,
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from POST /auth/token' },
        apiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      },
    },
    'x-wiflow-convention': convention,
  };
}
