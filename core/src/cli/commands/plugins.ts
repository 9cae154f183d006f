import type { Command } from 'commander';
import type { CliContext } from '../../hooks/hooks.js';

/** `wiflow plugins`: discovered plugins, their status and node types. */
export function registerPluginsCommand(program: Command, cli: CliContext): void {
  program
    .command('plugins')
    .description('list discovered plugins and the node types they contribute')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const runtime = await cli.runtime();
      const reports = runtime.plugins;
      if (options.json) {
        cli.print(JSON.stringify(reports, null, 2));
        return;
      }
      for (const r of reports) {
        cli.print(`${r.name}@${r.version}  ${r.status}${r.reason ? ` (${r.reason})` : ''}`);
        if (r.location !== 'builtin' && r.location !== 'explicit') cli.print(`  from ${r.location}`);
        for (const type of r.nodeTypes) {
          const d = runtime.registry.get(type);
          cli.print(`  - ${type}${d ? `  [${d.category}] ${d.title}` : ''}`);
        }
      }
    });
}
