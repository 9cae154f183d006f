import type { Command } from 'commander';
import type { CliContext } from '../../hooks/hooks.js';

/** `wiflow serve`: start the runtime, the APIs and the studio on one port. */
export function registerServeCommand(program: Command, cli: CliContext): void {
  program
    .command('serve')
    .description('start the runtime, pose API, flow service and studio')
    .option('-p, --port <port>', 'HTTP port (also WIFLOW_PORT)', (v) => Number(v))
    .option('--host <host>', 'address to listen on (also WIFLOW_HOST)')
    .action(async (options: { port?: number; host?: string }) => {
      const runtime = await cli.runtime();
      const envPort = process.env.WIFLOW_PORT ? Number(process.env.WIFLOW_PORT) : undefined;
      const address = await runtime.listen(options.port ?? envPort, options.host ?? process.env.WIFLOW_HOST);
      cli.print(`wiflow ${runtime.version} listening on ${address.url}`);
      cli.print(`  studio:     ${address.url}/`);
      cli.print(`  pose API:   ${address.url}/api/v1`);
      cli.print(`  readiness:  ${address.url}/api/v1/health`);
      cli.print(`  data dir:   ${runtime.dataDir}`);
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) return;
        stopping = true;
        runtime.logger.info(`received ${signal}, shutting down`);
        void runtime.stop().then(() => process.exit(0));
      };
      process.once('SIGTERM', () => shutdown('SIGTERM'));
      process.once('SIGINT', () => shutdown('SIGINT'));
    });
}
