import { configSection, definePlugin } from '@wiflow/core';
import { z } from 'zod';
import { confidenceFilterNode } from './confidence-filter.js';
import { FilterStats, FilterStatsToken } from './filter-stats.js';

export { confidenceFilterNode, ConfidenceFilterConfig } from './confidence-filter.js';
export { FilterStats, FilterStatsToken } from './filter-stats.js';

/** The plugin's own config section (`template` in the runtime config): declared once, parsed and typed in `ctx.config.template`. */
export const TemplateConfig = z
  .object({ statsRoute: z.boolean().default(true).describe('Serve the filter totals at GET /template/stats') })
  .prefault({});

/**
 * The same section by name and schema, for code that holds the `ConfigStore` rather than `ctx`
 * (a node's `ctx.services.get(Tokens.Config)`, a route): `config.read(TemplateSection)` is typed.
 */
export const TemplateSection = configSection('template', TemplateConfig);

/**
 * The plugin: the name must be the package name. Everything `setup` registers through `ctx`
 * (node types, services, routes, commands, hook taps, the config section) is undone if it throws.
 * `ctx` holds capabilities, never the runtime: a plugin that runs or deploys flows asks for
 * `ctx.services.get(Tokens.Flows)`, one that reports on the system for `Tokens.System`.
 */
export default definePlugin({
  name: 'wiflow-plugin-template',
  config: { template: TemplateSection.schema },
  setup(ctx) {
    ctx.registerNode(confidenceFilterNode);
    ctx.services.provide(FilterStatsToken, () => new FilterStats());
    if (ctx.config.template.statsRoute) {
      ctx.registerRoutes((http) => {
        http.app.get('/template/stats', (_req, res) => void res.json(ctx.services.get(FilterStatsToken).snapshot()));
      });
    }
    ctx.registerCommand((program, cli) => {
      program
        .command('template-stats')
        .description('print what the confidence filters removed in this process')
        .action(() => cli.print(JSON.stringify(ctx.services.get(FilterStatsToken).snapshot())));
    });
  },
});
