import { z } from 'zod';
import { ApiErrors } from '../errors.js';
import { defineRoute, type RouteDefinition } from '../http/route.js';
import { PoseConfigSchema, PoseSection, PrivacyConfigSchema, RESTART_PREFIXES } from '../config.js';
import { configView, configViewSchema, toCanonicalPatch, toConventionPath } from '../schemas/config-view.js';
import type { ApiServices } from '../services.js';

/** Configuration routes: read, partial update, schema. */
export function configRoutes(services: ApiServices): RouteDefinition[] {
  const config = services.host.config;
  const views = { A: configViewSchema('A', false), B: configViewSchema('B', false) };
  const patches = { A: configViewSchema('A', true), B: configViewSchema('B', true) };
  const jsonSchemas = {
    A: z.toJSONSchema(views.A, { io: 'input', unrepresentable: 'any' }),
    B: z.toJSONSchema(views.B, { io: 'input', unrepresentable: 'any' }),
  };
  const sections = () => ({ pose: config.get('pose'), privacy: config.get('privacy') });

  const read = defineRoute({
    method: 'get',
    path: '/config',
    summary: 'Read configuration',
    tags: ['config'],
    spec: true,
    access: 'viewer',
    category: 'config',
    success: { status: 200, description: 'The configuration in the shape of the convention in force', A: views.A, B: views.B },
    errors: [],
    async handler({ convention }) {
      return { body: configView(sections(), convention) };
    },
  });

  const update = defineRoute({
    method: 'put',
    path: '/config',
    summary: 'Partial configuration update',
    description: 'Any subset of the configuration; unknown fields are rejected; nothing changes when any field is invalid.',
    tags: ['config'],
    spec: true,
    access: 'admin',
    category: 'config',
    body: patches,
    success: {
      status: 200,
      description: 'What changed',
      A: z.object({ status: z.literal('updated'), changes_applied: z.array(z.string()), restart_required: z.boolean(), validation_warnings: z.array(z.string()) }),
      B: z.object({ updated_fields: z.array(z.string()), requires_restart: z.boolean(), applied_at: z.string(), configuration: views.B }),
    },
    errors: [400, 422],
    async handler({ body, convention }) {
      const patch = toCanonicalPatch(body as Record<string, unknown>, convention);
      const result = Object.keys(patch).length ? config.update(patch) : { changed: [], errors: [] };
      if (result.errors.length) {
        throw ApiErrors.validation(result.errors.map((e) => ({ field: toConventionPath(e.field, convention) ?? e.field, message: e.message, received: e.received })));
      }
      const changed = result.changed.map((p) => toConventionPath(p, convention) ?? p);
      const restartRequired = result.changed.some((p) => RESTART_PREFIXES.some((prefix) => p.replace(/^pose\./, '').startsWith(prefix)));
      if (convention === 'A') {
        const warnings: string[] = [];
        const pose = config.read(PoseSection);
        if (pose.streaming.mqtt_enabled && !services.host.flows.registry.list().some((n) => n.definition.type.startsWith('mqtt.'))) {
          warnings.push('streaming.mqtt_enabled is on but no MQTT plugin is installed');
        }
        if (restartRequired && services.system.running) warnings.push('some changes take effect after POST /system/restart');
        return { body: { status: 'updated', changes_applied: changed, restart_required: restartRequired, validation_warnings: warnings } };
      }
      return { body: { updated_fields: changed, requires_restart: restartRequired, applied_at: new Date().toISOString(), configuration: configView(sections(), 'B') } };
    },
  });

  const schema = defineRoute({
    method: 'get',
    path: '/config/schema',
    summary: 'Configuration schema',
    description: 'JSON Schema (draft 2020-12) generated from the zod schema that validates PUT /config, with the defaults.',
    tags: ['config'],
    spec: true,
    specConvention: 'B',
    access: 'viewer',
    category: 'config',
    success: {
      status: 200,
      description: 'Schema and defaults',
      A: z.object({ schema: z.record(z.string(), z.unknown()), defaults: z.record(z.string(), z.unknown()) }),
      B: z.object({ schema: z.record(z.string(), z.unknown()), defaults: z.record(z.string(), z.unknown()) }),
    },
    errors: [],
    async handler({ convention }) {
      const defaults = configView({ pose: PoseConfigSchema.parse(undefined), privacy: PrivacyConfigSchema.parse(undefined) }, convention);
      return { body: { schema: jsonSchemas[convention], defaults } };
    },
  });

  return [read, update, schema];
}
