import type { Command } from 'commander';
import type { CliContext } from '../../hooks/hooks.js';
import { readFlowFile } from './run.js';

/**
 * `wiflow pipeline <flow.json>`: run a flow as a long-lived stream pipeline without the HTTP
 * server (a worker runtime: part of a flow, connected to others by subjects). Prints node
 * counters every `--stats` seconds; stops cleanly on SIGTERM/SIGINT or when the flow ends.
 */
export function registerPipelineCommand(program: Command, cli: CliContext): void {
  program
    .command('pipeline')
    .description('run a flow as a stream pipeline (no HTTP server) until stopped')
    .argument('<flow>', 'flow JSON file')
    .option('--stats <seconds>', 'print node counters as JSON lines every N seconds', (v) => Number(v))
    .action(async (file: string, options: { stats?: number }) => {
      const runtime = await cli.runtime();
      await runtime.start();
      const deployed = await runtime.deploy(readFlowFile(file), { id: 'pipeline' });
      cli.print(JSON.stringify({ event: 'pipeline_started', pid: process.pid, nodes: Object.keys(deployed.pipeline.counters()) }));
      const timer = options.stats ? setInterval(() => cli.print(JSON.stringify({ event: 'counters', counters: deployed.pipeline.counters() })), options.stats * 1000) : undefined;
      const stop = (signal: string) => {
        runtime.logger.info(`received ${signal}, stopping pipeline`);
        void runtime.stop();
      };
      process.once('SIGTERM', () => stop('SIGTERM'));
      process.once('SIGINT', () => stop('SIGINT'));
      const outcome = await deployed.pipeline.done;
      if (timer) clearInterval(timer);
      cli.print(JSON.stringify({ event: 'pipeline_ended', outcome, counters: deployed.pipeline.counters() }));
      await runtime.stop();
      if (outcome.status === 'failed') process.exitCode = 1;
    });
}
