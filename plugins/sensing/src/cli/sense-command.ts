import { readFile } from 'node:fs/promises';
import type { SensingFrame } from '@wiflow/core';
import { WiflowError } from '@wiflow/core';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { badInputFile } from '../errors.js';
import { median } from '../median.js';
import { readEmptyRoomReference, senseCapture, type SenseCaptureResult } from '../sense-capture.js';
import { linkReadiness } from '../signal/readiness.js';

/** The per-file summary `wiflow sense` prints after a file's seconds. */
export interface SenseSummary {
  seconds: number;
  falls: number[];
  state_seconds: { empty: number; still: number; moving: number };
  /** Median over the still seconds that have a rate (the mean of the two middle rates for an even count), or null. */
  breathing_bpm: number | null;
  /** Why `breathing_bpm` is null: the most common reason over the still seconds (or 'no_still_seconds'). */
  breathing_reason: string | null;
}

/** One JSON line per whole second, as `wiflow sense --json` prints it. */
export function secondLine(file: string, f: SensingFrame): Record<string, unknown> {
  const fall = f.falls.length ? Math.max(...f.falls.map((e) => e.confidence)) : null;
  return { file, t: f.second, presence: f.presence, state: f.state, motion: f.motion, breathing_bpm: f.breathingBpm, breathing_reason: f.breathingReason, activity: f.activity, fall: fall === null ? null : Math.round(fall * 1000) / 1000 };
}

/** Summarise a file's room frames. */
export function summarize(room: SensingFrame[]): SenseSummary {
  const state_seconds = { empty: 0, still: 0, moving: 0 };
  const rates: number[] = [];
  const reasons = new Map<string, number>();
  const falls: number[] = [];
  for (const f of room) {
    state_seconds[f.state]++;
    if (f.falls.length) falls.push(f.second);
    if (f.state !== 'moving') {
      if (f.breathingBpm !== null) rates.push(f.breathingBpm);
      else if (f.breathingReason) reasons.set(f.breathingReason, (reasons.get(f.breathingReason) ?? 0) + 1);
    }
  }
  let reason: string | null = null;
  if (!rates.length) {
    let most = 0;
    for (const [r, c] of reasons) if (c > most) [reason, most] = [r, c];
    reason ??= 'no_still_seconds';
  }
  return { seconds: room.length, falls, state_seconds, breathing_bpm: median(rates), breathing_reason: reason };
}

/** Environment id from an environment or scenario file (JSON or YAML with `environmentId` or `id`). */
async function environmentIdOf(path: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw badInputFile(path, `cannot read: ${(error as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = path.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw badInputFile(path, `not JSON or YAML: ${(error as Error).message}`);
  }
  const record = (doc ?? {}) as Record<string, unknown>;
  const id = record.environmentId ?? record.id ?? record.name;
  if (typeof id !== 'string' || !id) throw badInputFile(path, 'has no environmentId (or id) string');
  return id;
}

const pad = (s: string, n: number) => s.padEnd(n);

function printTable(print: (line: string) => void, result: SenseCaptureResult, summary: SenseSummary, environmentId: string): void {
  print(`${result.file}  (room ${result.room[0]?.environmentId ?? environmentId}, ${result.frames} frames, ${summary.seconds} s)`);
  // Sensing reports whole seconds: a capture shorter than one gives no row, and an empty table alone reads as a fault.
  if (result.room.length === 0) print(`  no whole second of CSI in ${result.frames} frames: nothing to sense (sensing reports per second; give a longer capture)`);
  // What each link gives the sensing, over the whole capture: an installer's first question.
  for (const link of result.linkSnapshots) {
    const radio = link.format === null ? `kind not known (${link.frames} frames)` : `${link.format}, ${link.transmitChains}×${link.receiveChains} chains, ${link.subcarriers} subcarriers`;
    const rate = link.packetsPerSecond === null ? 'no whole second' : `${link.packetsPerSecond.toFixed(1)} packets/s, ${Math.round(100 * (link.lostFraction ?? 0))} % of the 10-Hz grid's slots empty`;
    print(`  link ${link.link.tx}>${link.link.rx}: ${radio}; ${rate} (whole capture)`);
    const readiness = linkReadiness(link);
    for (const c of readiness.checks) print(`    ${pad(c.capability.replace('_', ' ') + ':', 14)}${pad(c.verdict, 8)}${c.reason}`);
    for (const note of readiness.notes) print(`    note: ${note}`);
  }
  print(`  ${pad('t', 5)}${pad('state', 8)}${pad('motion', 8)}${pad('breathing', 22)}${pad('activity', 10)}fall`);
  for (const f of result.room) {
    const breathing = f.breathingBpm !== null ? `${f.breathingBpm.toFixed(1)} bpm` : `- (${f.breathingReason})`;
    const fall = f.falls.length ? Math.max(...f.falls.map((e) => e.confidence)).toFixed(2) : '';
    print(`  ${pad(String(f.second), 5)}${pad(f.state, 8)}${pad(f.motion.toFixed(2), 8)}${pad(breathing, 22)}${pad(f.activity ?? '-', 10)}${fall}`);
  }
  const s = summary.state_seconds;
  print(`  summary: empty ${s.empty} s, still ${s.still} s, moving ${s.moving} s; falls at [${summary.falls.join(', ')}] s; breathing ${summary.breathing_bpm !== null ? `${summary.breathing_bpm} bpm` : `none (${summary.breathing_reason})`}`);
}

/** Register `wiflow sense <capture...>`. */
export function registerSenseCommand(program: Command, print: (line: string) => void): void {
  program
    .command('sense')
    .description('presence, still/moving, motion, breathing rate, activity and falls per second from CSI captures (any format wiflow reads)')
    .argument('<capture...>', 'capture files')
    .option('--environment <file>', 'environment or scenario file (JSON/YAML): names the room in the frames')
    .option('--reference <file>', 'an empty-room capture of the same link(s): a still person then also counts by signal level')
    .option('--json', 'one JSON object per line per second, and a summary per file')
    .action(async (files: string[], options: { environment?: string; reference?: string; json?: boolean }) => {
      const environmentId = options.environment ? await environmentIdOf(options.environment) : 'default';
      const reference = options.reference ? await readEmptyRoomReference(options.reference) : undefined;
      let failed = 0;
      for (const file of files) {
        let result: SenseCaptureResult;
        try {
          result = await senseCapture(file, { environmentId, reference });
        } catch (error) {
          failed++;
          const e = error as WiflowError & { offset?: number };
          if (options.json) print(JSON.stringify({ file, error: { code: e.code ?? 'WIFLOW_SENSE_FAILED', message: e.message, offset: e.offset ?? null } }));
          else print(`${file}: error: ${e.message}`);
          continue;
        }
        const summary = summarize(result.room);
        if (result.error) {
          failed++;
          if (options.json) print(JSON.stringify({ file, error: { code: result.error.code, message: result.error.message, offset: result.error.offset } }));
          else print(`${file}: error: ${result.error.message} (the ${result.frames} frames before it were sensed)`);
        }
        if (options.json) {
          for (const f of result.room) print(JSON.stringify(secondLine(file, f)));
          print(JSON.stringify({ file, summary }));
        } else printTable(print, result, summary, environmentId);
      }
      if (failed) process.exitCode = 1;
    });
}
