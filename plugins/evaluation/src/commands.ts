import { readFileSync, writeFileSync } from 'node:fs';
import type { CliContext } from '@wiflow/core';
import type { Command } from 'commander';
import { evaluateEmptyRooms, evaluateEndToEnd, type EmptyRoomReport, type EndToEndReport } from './evaluate-end-to-end.js';
import { EMPTY_ROOM_CONDITIONS, parseEmptyConditions, type EmptyRoomRow } from './empty-rooms.js';
import { HARDWARE_CHOICES } from '@wiflow/plugin-sim';
import { TWIN_COUNT } from '@wiflow/plugin-pose-tfjs';
import { parsePlannerProfiles, planHardware, plannerTable, PLANNER_PROFILES, type PlannerResult } from './hardware-planner.js';
import { EvaluationErrors } from './errors.js';

/** `--tracker`'s JSON: an object of tracker.track options (checked by the node itself when the flow starts). */
function trackerOptions(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw EvaluationErrors.optionsInvalid(`--tracker: not JSON (${(err as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw EvaluationErrors.optionsInvalid('--tracker: a JSON object of tracker.track options, e.g. {"upstream_min_evidence":0.5}');
  return parsed as Record<string, unknown>;
}

const metres = (v: number | null) => (v === null ? '—' : `${v.toFixed(2)} m`);
const share = (v: number | null) => (v === null ? '—' : `${(v * 100).toFixed(0)} %`);

/** An end-to-end report as plain-text lines. */
export function formatEndToEnd(r: EndToEndReport): string[] {
  const lines = [
    `${r.estimator} (${r.hash.slice(0, 12)}) → tracker.track → retail.analytics, profile ${r.profile}, ${r.rooms} unseen ${r.split} rooms${r.small ? ' (small subset)' : ''}, ${r.seconds} s`,
    'true people  frames  floor error mean / median / p90   count exact  detected (≤ 1 m)  matched',
  ];
  for (const bucket of ['1', '2', '3', 'all'] as const) {
    const b = r.people[bucket];
    lines.push(`${bucket.padEnd(12)} ${String(b.frames).padEnd(7)} ${`${metres(b.floorErrorM.mean)} / ${metres(b.floorErrorM.median)} / ${metres(b.floorErrorM.p90)}`.padEnd(33)} ${share(b.countExact).padEnd(12)} ${share(b.detectedShare).padEnd(16)} ${share(b.matchedShare)}`);
  }
  lines.push(`tracking, three people crossing ${r.tracking.rooms} room(s) (${r.tracking.simulatedSeconds} s): IDF1 ${share(r.tracking.idf1)}, MOTA ${share(r.tracking.mota)}, ${r.tracking.trackIds} track ids, ${r.tracking.idSwitches} identity switches`);
  lines.push(`retail, shop (${r.retail.simulatedSeconds} s): ${r.retail.visitorsCounted} visitors counted, ${r.retail.visitorsTrue} true`);
  lines.push(...formatEmptyRooms(r.emptyRoom));
  if (r.twinFit) {
    lines.push(`twin-fit: each room's own locator, correcting ${r.twinFit.base}, ${r.twinFit.sessions} twin sessions per room, ${r.twinFit.cpuSeconds} CPU-s (${r.twinFit.wallSeconds} s wall) for ${r.twinFit.rooms.length} rooms`);
    for (const room of r.twinFit.rooms) lines.push(`  ${room.environmentId}: ${room.framesCarried} (bias ${room.countBias.map((v) => v.toFixed(2)).join(' / ')}, birth margin ${room.birthAboveNoise}, twin count ${room.twinCountAccuracy.before} → ${room.twinCountAccuracy.after}, ${room.cpuSeconds} CPU-s)`);
  }
  return lines;
}

/** One empty-room row as a line: phantoms, hours, rate and its bound. */
function emptyRowLine(row: EmptyRoomRow): string {
  const hours = (row.simulatedSeconds / 3600).toFixed(2);
  const bound = row.upper95PerHour === null ? '—' : row.upper95PerHour.toFixed(2);
  return `empty rooms, ${row.condition} (${row.rooms} × ${row.secondsPerRoom} s = ${hours} h): ${row.falseTracks} false people, ${row.falsePeoplePerHour} per hour (95 % upper bound ${bound} per hour)`;
}

/** The empty-room rows as plain-text lines, each phantom under its row: room, when, where, the nearest distractor. */
export function formatEmptyRooms(e: EmptyRoomReport): string[] {
  const lines: string[] = [];
  for (const row of [e, ...e.installer]) {
    lines.push(emptyRowLine(row));
    for (const p of row.phantoms) {
      const near = p.distractors[0];
      lines.push(`  ${p.room} (${p.environmentId}): track ${p.trackId} shown at ${p.atSeconds} s for ${p.shownSeconds} s at (${p.position.x}, ${p.position.y})${near ? `, nearest ${near.id} ${near.distanceM} m${near.active ? ' (moving)' : ''}` : ''}`);
    }
  }
  return lines;
}

/** Read a planner JSON written by `plan-hardware --write`; a file that is not one is an error naming it. */
function readPlannerFile(file: string): PlannerResult {
  let parsed: Partial<PlannerResult>;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<PlannerResult>;
  } catch (err) {
    throw EvaluationErrors.optionsInvalid(`--table-from ${file}: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed.rows) || typeof parsed.size !== 'string') throw EvaluationErrors.optionsInvalid(`--table-from ${file}: not a plan-hardware JSON (no rows or size)`);
  return parsed as PlannerResult;
}

/**
 * Rows of several planner runs (runs of a few profiles each, side by side) as one, in the order
 * the files are given; runs of different sizes are refused, since their figures do not compare.
 */
export function mergePlannerFiles(files: readonly string[]): PlannerResult {
  const results = files.map(readPlannerFile);
  const size = results[0].size;
  const other = results.findIndex((r) => r.size !== size);
  if (other >= 0) throw EvaluationErrors.optionsInvalid(`--table-from ${files[other]}: size ${results[other].size}, not ${size} as ${files[0]}`);
  return { size, started: results.map((r) => r.started).sort()[0], rows: results.flatMap((r) => r.rows) };
}

/** Register `wiflow eval-e2e` and `wiflow plan-hardware`. */
export function registerEvaluationCommands(program: Command, cli: CliContext): void {
  program
    .command('eval-e2e')
    .description('end to end on simulated rooms never used for fitting: raw CSI → the default estimator (pose.locate) → tracker.track → retail analytics, scored against the simulator\'s truth')
    .option('--small', 'a small deterministic subset (4 test rooms, 30 s of crossing in one, the shop, 2 of them emptied): what CI runs', false)
    .option('--profile <name>', `hardware: ${Object.keys(HARDWARE_CHOICES).join(', ')}; add +4rx (a fourth receiver) or +2tx (a second transmitter), then ~clean (the chip without its impairments)`, 'recipe')
    .option('--split <name>', 'rooms of the recipe: test (reported) or val (for choosing settings)', 'test')
    .option('--model <dir>', 'locator directory for pose.locate (its `model` config) instead of the shipped wiflow-locate-v2, e.g. one `wiflow locate fit --profile` wrote')
    .option('--twin-fit', "give each room its own locator, fitted on the room's simulated twin as `wiflow locate twin-fit` fits it (correcting --model or the shipped locator); the report names each room's locator and the twin's CPU time", false)
    .option('--twin-sessions <n>', `with --twin-fit: twin sessions per room (${TWIN_COUNT.sessions}, as twin-fit)`, (v) => Number(v), TWIN_COUNT.sessions)
    .option('--tracker <json>', 'tracker.track options for every run, as JSON (default: its defaults), e.g. \'{"upstream_min_evidence":0.5}\' for the opt-in held evidence; the report names them')
    .option('--empty-seconds <n>', 'seconds each emptied test room is simulated (default 480 in the full run: 3.07 h per condition; the room length with --small)', (v) => Number(v))
    .option('--installer-seconds <n>', "seconds each emptied room is simulated under the installer's conditions (default --empty-seconds)", (v) => Number(v))
    .option('--empty-rooms <n>', 'how many of the test rooms are emptied (default all 23; 2 with --small)', (v) => Number(v))
    .option('--empty-conditions <list>', `empty-room conditions measured: ${EMPTY_ROOM_CONDITIONS.join(',')} (the default), or a subset`)
    .option('--empty-only', 'only the empty-room part (phantoms per simulated hour), not the rooms with people, the crossing or the shop', false)
    .option('--json', 'print the report as JSON', false)
    .option('--write <file>', 'also write the JSON report to this file')
    .action(async (opts: { small: boolean; profile: string; split: string; model?: string; twinFit: boolean; twinSessions: number; tracker?: string; emptySeconds?: number; installerSeconds?: number; emptyRooms?: number; emptyConditions?: string; emptyOnly: boolean; json: boolean; write?: string }) => {
      const emptyConditions = opts.emptyConditions === undefined ? undefined : parseEmptyConditions(opts.emptyConditions);
      // Jobs need the plugins' node types, not storage, users or a port: the runtime is not started.
      const runtime = await cli.runtime();
      try {
        const options = { small: opts.small, profile: opts.profile, split: opts.split as 'test', model: opts.model, twinFit: opts.twinFit, twinSessions: opts.twinSessions, tracker: opts.tracker === undefined ? undefined : trackerOptions(opts.tracker), emptySeconds: opts.emptySeconds, installerSeconds: opts.installerSeconds, emptyRooms: opts.emptyRooms, emptyConditions, onProgress: opts.json ? undefined : (line: string) => cli.print(`… ${line}`), onPlan: (line: string) => process.stderr.write(`${line}\n`) };
        const report = opts.emptyOnly ? await evaluateEmptyRooms(runtime, options) : await evaluateEndToEnd(runtime, options);
        const json = JSON.stringify(report, null, 2);
        if (opts.write) writeFileSync(opts.write, `${json}\n`);
        if (opts.json) cli.print(json);
        else if ('people' in report) for (const line of formatEndToEnd(report)) cli.print(line);
        else for (const line of [`${report.estimator} (${report.hash.slice(0, 12)}), profile ${report.profile}, ${report.emptyRoom.rooms} ${report.split} rooms emptied, ${report.seconds} s`, ...formatEmptyRooms(report.emptyRoom)]) cli.print(line);
      } finally {
        await runtime.stop();
      }
    });

  program
    .command('plan-hardware')
    .description('the hardware planner of docs/hardware.md: wiflow eval-e2e once per hardware profile, as one markdown table naming the estimator and hash the frames carried, with CPU seconds and load per row')
    .option('--small', 'each profile on the small subset of eval-e2e (what docs/hardware.md shows)', false)
    .option('--tiny', 'seconds of each scenario: checks that the command runs (figures mean nothing)', false)
    .option('--profiles <list>', `comma-separated profiles (default: ${PLANNER_PROFILES.join(',')})`)
    .option('--model <dir>', 'locator directory for every row instead of the shipped wiflow-locate-v2 (the table names the estimator and hash the frames carried)')
    .option('--json', 'print the planner JSON (every profile\'s eval-e2e report) instead of the table', false)
    .option('--write <file>', 'write the planner JSON to this file after each profile, so a stopped run keeps its rows')
    .option('--table-from <files>', 'print the table of JSONs written by --write (comma-separated: runs of a few profiles each, one table), running nothing')
    .action(async (opts: { small: boolean; tiny: boolean; profiles?: string; model?: string; json: boolean; write?: string; tableFrom?: string }) => {
      if (opts.tableFrom) {
        for (const line of plannerTable(mergePlannerFiles(opts.tableFrom.split(',')))) cli.print(line);
        return;
      }
      const profiles = parsePlannerProfiles(opts.profiles);
      const runtime = await cli.runtime();
      try {
        const result = await planHardware(runtime, {
          profiles,
          size: opts.tiny ? 'tiny' : opts.small ? 'small' : 'full',
          model: opts.model,
          onProgress: opts.json ? undefined : (line) => cli.print(`… ${line}`),
          onRow: opts.write ? (sofar) => writeFileSync(opts.write!, `${JSON.stringify(sofar, null, 2)}\n`) : undefined,
        });
        if (opts.json) cli.print(JSON.stringify(result, null, 2));
        else for (const line of plannerTable(result)) cli.print(line);
      } finally {
        await runtime.stop();
      }
    });
}
