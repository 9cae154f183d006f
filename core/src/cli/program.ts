import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WiflowPlugin } from '../plugins/define-plugin.js';
import { Command } from 'commander';
import type { CliContext } from '../hooks/hooks.js';
import { Runtime, WIFLOW_VERSION } from '../runtime/runtime.js';
import { registerPipelineCommand } from './commands/pipeline.js';
import { registerPluginsCommand } from './commands/plugins.js';
import { registerRunCommand } from './commands/run.js';
import { registerServeCommand } from './commands/serve.js';

/** Options every command shares, read before plugins load (they decide which plugins load). */
export interface GlobalOptions {
  configFile?: string;
  dataDir: string;
  /** Extra plugin modules to load by path (development, tests). */
  pluginModules: string[];
}

/** Read `--config` and `--data-dir` (or WIFLOW_CONFIG / WIFLOW_DATA_DIR) from argv before parsing. */
export function readGlobalOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): GlobalOptions {
  const valueOf = (flag: string): string | undefined => {
    for (let i = 0; i < argv.length; i++) {
      if (argv[i] === flag) return argv[i + 1];
      if (argv[i].startsWith(`${flag}=`)) return argv[i].slice(flag.length + 1);
    }
    return undefined;
  };
  const pluginModules: string[] = [];
  for (let i = 0; i < argv.length; i++) if (argv[i] === '--plugin' && argv[i + 1]) pluginModules.push(path.resolve(argv[i + 1]));
  return {
    pluginModules,
    configFile: valueOf('--config') ?? env.WIFLOW_CONFIG,
    dataDir: path.resolve(valueOf('--data-dir') ?? env.WIFLOW_DATA_DIR ?? '.wiflow'),
  };
}

/** Load a JSON config file (a clear error when it cannot be read or parsed). */
export function loadConfigFile(file: string | undefined): Record<string, unknown> {
  if (!file) return {};
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read config file ${file}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Build the `wiflow` program: core's commands plus every plugin's (through `hooks.cli`).
 * Plugins load once, before parsing, so their commands appear in `--help`.
 */
export async function buildProgram(argv: string[], io: { print(line: string): void } = { print: (l) => process.stdout.write(l + '\n') }): Promise<{ program: Command; context: CliContext; runtime: Runtime }> {
  const globals = readGlobalOptions(argv);
  const config = loadConfigFile(globals.configFile);
  const plugins: WiflowPlugin[] = [];
  for (const file of globals.pluginModules) {
    const mod = (await import(pathToFileURL(file).href)) as { default?: WiflowPlugin };
    if (!mod.default || typeof mod.default.setup !== 'function') throw new Error(`--plugin ${file}: no default export with a setup function`);
    plugins.push(mod.default);
  }
  const runtime = await Runtime.create({ dataDir: globals.dataDir, config, plugins });
  const context: CliContext = { runtime: async () => runtime, print: io.print };
  const program = new Command('wiflow')
    .description('wiflow: WiFi CSI to people — poses, tracks, falls, visitors, intrusions')
    .version(WIFLOW_VERSION)
    .option('--config <file>', 'JSON config file (also WIFLOW_CONFIG)')
    .option('--data-dir <dir>', 'data directory (also WIFLOW_DATA_DIR)', globals.dataDir)
    .option('--plugin <module>', 'load an extra plugin module by path (repeatable)')
    .showHelpAfterError();
  registerServeCommand(program, context);
  registerRunCommand(program, context);
  registerPipelineCommand(program, context);
  registerPluginsCommand(program, context);
  runtime.hooks.cli.call(program, context);
  return { program, context, runtime };
}
