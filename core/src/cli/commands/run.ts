import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { FlowData, FlowDocument } from '../../flows/flow.js';
import type { CliContext } from '../../hooks/hooks.js';
import { WiflowError } from '../../errors.js';

/** Parse `name=value` pairs; values that parse as JSON are taken as JSON. */
export function parseInputPairs(pairs: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`--input expects name=value, got ${JSON.stringify(pair)}`);
    const raw = pair.slice(eq + 1);
    let value: unknown = raw;
    try {
      value = JSON.parse(raw);
    } catch {
      value = raw;
    }
    out[pair.slice(0, eq)] = value;
  }
  return out;
}

/** Read a flow file: a FlowDocument (`{name, data}`) or bare React Flow data (`{nodes, edges}`). */
export function readFlowFile(file: string): FlowData {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as FlowDocument | FlowData;
  const data = 'data' in doc && doc.data ? (doc as FlowDocument).data : (doc as FlowData);
  if (!Array.isArray(data.nodes) || !Array.isArray(data.edges)) throw new Error(`${file}: not a flow (expected data.nodes and data.edges)`);
  return data;
}

/** `wiflow run <flow.json>`: run a flow as a job and print its outputs as JSON. */
export function registerRunCommand(program: Command, cli: CliContext): void {
  program
    .command('run')
    .description('run a flow as a job and print its outputs')
    .argument('<flow>', 'flow JSON file')
    .option('-i, --input <name=value...>', 'job input (repeatable; JSON values allowed)', [])
    .option('--inputs <json>', 'all inputs as one JSON object')
    .option('--timeout <ms>', 'job timeout in milliseconds', (v) => Number(v))
    .option('--events', 'print the job event log to stderr as it happens')
    .action(async (file: string, options: { input: string[]; inputs?: string; timeout?: number; events?: boolean }) => {
      const runtime = await cli.runtime();
      await runtime.start();
      try {
        const inputs = { ...(options.inputs ? (JSON.parse(options.inputs) as Record<string, unknown>) : {}), ...parseInputPairs(options.input) };
        let job;
        try {
          job = await runtime.runJob(readFlowFile(file), { inputs, timeoutMs: options.timeout });
        } catch (error) {
          if (error instanceof WiflowError && error.details?.problems) {
            for (const p of error.details.problems as { message: string }[]) process.stderr.write(`error: ${p.message}\n`);
          }
          throw error;
        }
        if (options.events) job.log.subscribe(0, (e) => e && process.stderr.write(`${e.seq} ${e.event} ${JSON.stringify(e.data)}\n`));
        const result = await job.done;
        cli.print(JSON.stringify({ status: result.status, outputs: result.outputs, error: result.error }, null, 2));
        if (result.status !== 'completed') process.exitCode = 1;
      } finally {
        await runtime.stop(5000);
      }
    });
}
