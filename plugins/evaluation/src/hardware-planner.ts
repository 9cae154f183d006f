import { loadavg } from 'node:os';
import type { Runtime } from '@wiflow/core';
import { evaluateEndToEnd, EVALUATION_SIZES, type EndToEndReport, type EvaluationSizeName } from './evaluate-end-to-end.js';
import { parseProfile, PLACEMENTS } from '@wiflow/plugin-sim';
import { EvaluationErrors } from './errors.js';

/**
 * The rows of the hardware planner by default, in the order docs/hardware.md shows them: the
 * test rooms' own radios with 3 links, a fourth receiver and a second transmitter (how you
 * place it), then one row per chip (what you buy).
 */
export const PLANNER_PROFILES: readonly string[] = [
  'recipe',
  'recipe+4rx',
  'recipe+2tx',
  'esp32-ht20',
  'intel5300-1x3-ht20',
  'intel5300-1x3-ht40',
  'intel5300-3x3-ht20',
  'intel5300-3x3-ht40',
  'nexmon-1x4-80',
];

/** One row of the planner: a profile's end-to-end report and what it cost. */
export interface PlannerRow {
  profile: string;
  /** What the profile stands for, chip and placement, in words. */
  hardware: string;
  /** CPU seconds this process spent on the row (user + system, every thread). */
  cpuSeconds: number;
  /** One-minute load average of the machine when the row started and ended (`uptime`'s first figure). */
  load: { start: number; end: number };
  report: EndToEndReport;
}

/** The planner's JSON (`wiflow plan-hardware --json`). */
export interface PlannerResult {
  size: EvaluationSizeName;
  /** ISO time the first row started. */
  started: string;
  rows: PlannerRow[];
}

/** Options of a planner run. */
export interface PlannerOptions {
  profiles?: readonly string[];
  size?: EvaluationSizeName;
  onProgress?(line: string): void;
  /** A locator directory for every row instead of the shipped one (`--model`). */
  model?: string;
  /** Called after each row, with every row so far (the command writes them out as it goes). */
  onRow?(result: PlannerResult): void;
}

/** A profile's chip and placement in words. */
export function describeProfile(name: string): string {
  const profile = parseProfile(name);
  const placement = profile.placement === '' ? '3 links' : PLACEMENTS[profile.placement];
  return `${profile.hardware.description}; ${placement}${profile.clean ? '; without the chip\'s impairments' : ''}`;
}

/** Split and check a `--profiles` list; every name is parsed before anything runs. */
export function parsePlannerProfiles(list: string | undefined): string[] {
  const names = list === undefined ? [...PLANNER_PROFILES] : list.split(',').map((s) => s.trim()).filter(Boolean);
  if (!names.length) throw EvaluationErrors.optionsInvalid('--profiles names no profile');
  for (const name of names) parseProfile(name);
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated) throw EvaluationErrors.optionsInvalid(`--profiles names ${repeated} twice`);
  return names;
}

const round1 = (v: number) => Math.round(v * 10) / 10;

/**
 * Run the end-to-end evaluation once per profile, one after the other in this process, and
 * keep each report with the CPU time and machine load it ran under.
 */
export async function planHardware(runtime: Runtime, options: PlannerOptions = {}): Promise<PlannerResult> {
  const profiles = parsePlannerProfiles(options.profiles?.join(','));
  const size = options.size ?? 'small';
  const result: PlannerResult = { size, started: new Date().toISOString(), rows: [] };
  for (const [i, profile] of profiles.entries()) {
    options.onProgress?.(`profile ${i + 1}/${profiles.length}: ${profile}`);
    const load = loadavg()[0];
    const cpu = process.cpuUsage();
    // The table shows the rooms as drawn; the installer's empty-room rows are eval-e2e's, not per profile.
    const report = await evaluateEndToEnd(runtime, { size, profile, model: options.model, emptyConditions: ['as-drawn'], onProgress: (line) => options.onProgress?.(`${profile}: ${line}`) });
    const used = process.cpuUsage(cpu);
    result.rows.push({ profile, hardware: describeProfile(profile), cpuSeconds: round1((used.user + used.system) / 1e6), load: { start: round1(load), end: round1(loadavg()[0]) }, report });
    options.onRow?.(result);
  }
  return result;
}

const metres = (v: number | null) => (v === null ? '—' : v.toFixed(2));
const share = (v: number | null) => (v === null ? '—' : v.toFixed(2));

/** What a size simulates, in words, for the table's heading. */
function sizeInWords(size: EvaluationSizeName): string {
  const s = EVALUATION_SIZES[size];
  const rooms = Number.isFinite(s.rooms) ? `${s.rooms} test room${s.rooms === 1 ? '' : 's'}` : 'every test room';
  const empty = `${Number.isFinite(s.emptyRooms) ? `${s.emptyRooms} of them emptied` : 'each emptied'}${'emptySeconds' in s ? ` for ${s.emptySeconds} s` : ''}`;
  const flag = size === 'full' ? 'full run' : `\`--${size}\``;
  return `${flag}: ${rooms} scored after 5 s of track, three people crossing ${s.crossingRooms} of them for ${s.crossingSeconds} s, the shop for ${s.shopSeconds} s, ${empty}${size === 'tiny' ? ' (seconds each: checks the command, figures mean nothing)' : ''}`;
}

/**
 * The planner's markdown: a heading line naming the estimator and hash the frames carried, the
 * size and the load, then one row per profile. Rows measured with another estimator or hash
 * than the first are marked, so a mixed table cannot pass for one measurement.
 */
export function plannerTable(result: PlannerResult): string[] {
  if (!result.rows.length) throw EvaluationErrors.optionsInvalid('the planner has no row to show');
  const first = result.rows[0].report;
  const loads = result.rows.flatMap((r) => [r.load.start, r.load.end]);
  const lines = [
    `Estimator \`${first.estimator}\`, hash \`${first.hash.slice(0, 12)}\`; ${sizeInWords(result.size)}. Started ${result.started}; load average (1 min) ${Math.min(...loads)}–${Math.max(...loads)}.`,
    '',
    '| profile | hardware | 1 person mean / median (m) | 2 people (m) | 3 people (m) | count exact | detected | IDF1 / MOTA | visitors / true | phantoms / h | CPU s | load |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const row of result.rows) {
    const r = row.report;
    const other = r.estimator !== first.estimator || r.hash !== first.hash ? ` (measured with ${r.estimator} ${r.hash.slice(0, 12)})` : '';
    lines.push(`| \`${row.profile}\`${other} | ${row.hardware} | ${metres(r.people['1'].floorErrorM.mean)} / ${metres(r.people['1'].floorErrorM.median)} | ${metres(r.people['2'].floorErrorM.mean)} | ${metres(r.people['3'].floorErrorM.mean)} | ${share(r.people.all.countExact)} | ${share(r.people.all.detectedShare)} | ${share(r.tracking.idf1)} / ${share(r.tracking.mota)} | ${r.retail.visitorsCounted} / ${r.retail.visitorsTrue} | ${r.emptyRoom.falsePeoplePerHour.toFixed(0)} | ${row.cpuSeconds.toFixed(0)} | ${row.load.start}–${row.load.end} |`);
  }
  return lines;
}
