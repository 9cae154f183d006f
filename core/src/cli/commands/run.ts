import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { FlowData, FlowDocument } from '../../flows/flow.js';
import { flowInterface, parseInputText, undeclaredInputProblem, type FlowInterface } from '../../flows/flow-interface.js';
import type { CliContext } from '../../hooks/hooks.js';
import { WiflowError } from '../../errors.js';

/**
 * Parse `name=value` pairs by the kind each input declares (the flow interface): text and file
 * values as given (a quoted JSON string is unquoted), numbers and booleans must parse, JSON
 * parsed when it parses. A name the flow does not declare is an error.
 */
export function parseInputPairs(pairs: string[], iface: FlowInterface): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error(`--input expects name=value, got ${JSON.stringify(pair)}`);
    const name = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    const undeclared = undeclaredInputProblem(iface, name);
    if (undeclared) throw new Error(`--input ${name}: ${undeclared}`);
    const input = iface.inputs.find((i) => i.name === name)!;
    const parsed = parseInputText(input, input.valueType === 'text' || input.valueType === 'file' ? unquoted(raw) : raw);
    if ('error' in parsed) throw new Error(`--input ${name}: ${parsed.error}`);
    out[name] = parsed.value;
  }
  return out;
}

/** `"hello"` → `hello` (a JSON string literal, as shells hand quotes through); anything else as is. */
function unquoted(raw: string): string {
  if (!raw.startsWith('"')) return raw;
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'string' ? value : raw;
  } catch {
    return raw;
  }
}

/** `--inputs <json>`: an object of values by input name, each one the flow declares. */
function parseInputObject(json: string | undefined, iface: FlowInterface): Record<string, unknown> {
  if (json === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error(`--inputs is not valid JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('--inputs must be a JSON object of values by input name');
  for (const name of Object.keys(value)) {
    const undeclared = undeclaredInputProblem(iface, name);
    if (undeclared) throw new Error(`--inputs ${name}: ${undeclared}`);
  }
  return value as Record<string, unknown>;
}

/** Read a flow file: a FlowDocument (`{name, data}`) or bare React Flow data (`{nodes, edges}`). */
export function readFlowFile(file: string): FlowData {
  let doc: FlowDocument | FlowData;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as FlowDocument | FlowData;
  } catch (error) {
    throw new Error(`cannot read flow ${file}: ${(error as Error).message}`);
  }
  const data = doc && typeof doc === 'object' && 'data' in doc && doc.data ? (doc as FlowDocument).data : (doc as FlowData);
  if (!data || !Array.isArray(data.nodes) || !Array.isArray(data.edges)) throw new Error(`${file}: not a flow (expected data.nodes and data.edges)`);
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
      const data = readFlowFile(file);
      const iface = flowInterface(data);
      const inputs = { ...parseInputObject(options.inputs, iface), ...parseInputPairs(options.input, iface) };
      const runtime = await cli.runtime();
      await runtime.start();
      try {
        let job;
        try {
          job = await runtime.runJob(data, { inputs, timeoutMs: options.timeout });
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
