// Pilot (not shipped): candidate (a) of pilot/c2falls-protocol.md. Today's fall path refitted with the reverberant
// body on (C2): `fitSimModels` with the what-if (training rooms 0–11, its choices on validation rooms 0–5), then
// scored end to end on fresh validation rooms with C2 on (the falls row's sessions: still, empty, fall, fall-like),
// and the demo home with C2 on (information). `baseline` scores the shipped models with C2 off on the same rooms.
// Run from the repository root after a build:
//   node plugins/sensing/pilot/c2falls_refit.mjs <firstRoom> <rooms> refit|baseline OUT.json [--pause S]
// `--pause S` inserts a S-s stand after the walk of every fall and fall-like session, for fitting and scoring alike
// (pilot/fallwidth-protocol.md).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadScenario, validateScenario } from '@wiflow/plugin-sim';
import { DEFAULT_SENSING_MODELS, fitSimModels, formatSimEvaluation, runSimSession, scoreSimRuns, SIM_SIZES, simSessions } from '../dist/index.js';
import { withPauseBeforeFall } from './pause_before_fall.mjs';

const C2 = { reverberation: { decayNs: 22, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' } };
const first = Number(process.argv[2]);
const count = Number(process.argv[3]);
const mode = process.argv[4];
const outFile = process.argv[5];
if (!Number.isInteger(first) || first < 168 || !Number.isInteger(count) || !['refit', 'baseline'].includes(mode) || !outFile) throw new Error('usage: c2falls_refit.mjs <firstRoom ≥ 168> <rooms> refit|baseline OUT.json');
const pauseAt = process.argv.indexOf('--pause');
const pause = pauseAt > 0 ? Number(process.argv[pauseAt + 1]) : 0;
const withC2 = (drawn) => {
  const s = withPauseBeforeFall(drawn, pause);
  return { ...s, scenario: validateScenario({ ...s.scenario, propagation: { ...s.scenario.propagation, ...C2 } }, s.scenario.name) };
};
const fallsRow = (s) => s.kind === 'still' || s.kind === 'empty' || s.kind === 'fall' || s.kind === 'fall-like';
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms: first + count }).filter((s) => s.room >= first && fallsRow(s));
const clock = () => ({ wall: Date.now(), cpu: process.cpuUsage() });
const since = (c) => { const u = process.cpuUsage(c.cpu); return { wallS: (Date.now() - c.wall) / 1000, cpuS: (u.user + u.system) / 1e6 }; };
const out = { mode, pause, rooms: [first, first + count - 1] };

let models = DEFAULT_SENSING_MODELS;
const prepare = mode === 'refit' ? withC2 : (s) => withPauseBeforeFall(s, pause);
if (mode === 'refit') {
  const c = clock();
  const log = [];
  models = fitSimModels((line) => { log.push(line); if (!line.startsWith('  train') && !line.startsWith('  validation')) console.error(line); }, false, withC2);
  out.fit = { ...since(c), log: log.filter((l) => !l.startsWith('  train') && !l.startsWith('  validation')), fall: models.fallByFamily.sim, motion: models.motion.sim };
}
const c = clock();
const runs = sessions.map((s) => runSimSession(prepare(s), models));
const score = (rs) => scoreSimRuns(rs).filter((r) => r.name.startsWith('falls'));
out.validation = { ...since(c), sessions: runs.length, seconds: sessions.reduce((a, s) => a + s.seconds, 0), all: score(runs), first6: score(runs.filter((r) => r.session.room < first + 6)) };
// The alarms per session kind and the falls missed, for the report.
const DAY = 86_400;
out.alarmsByKind = {};
for (const run of runs) {
  const start = run.room.length ? run.room[0].time - (run.room[0].second + 1) * 1000 : 0;
  const raised = run.room.flatMap((f) => f.falls.map((x) => (x.time - start) / 1000));
  const falseAlarms = raised.filter((t) => !run.falls.some((w) => t >= w.start - 2 && t <= w.end + 3));
  out.alarmsByKind[`${run.session.kind} ${run.session.detail}`] = (out.alarmsByKind[`${run.session.kind} ${run.session.detail}`] ?? 0) + falseAlarms.length;
}
console.error(`validation rooms ${first}–${first + count - 1}: ${runs.length} sessions, ${out.validation.seconds} s, ${out.validation.wallS.toFixed(0)} s wall, ${out.validation.cpuS.toFixed(0)} CPU-s`);
for (const line of formatSimEvaluation({ results: out.validation.all })) console.error(line);
// The demo home (scripted falls), C2 on with the refitted models, or off with the shipped ones.
const demoScenario = loadScenario(join(import.meta.dirname, '../../../examples/scenarios/home-monitored.yaml'));
const demo = runSimSession(prepare({ split: 'validation', room: -1, kind: 'fall', detail: 'demo home', scenario: demoScenario, seconds: 170, breathingBpm: null }), models);
const start = demo.room.length ? demo.room[0].time - (demo.room[0].second + 1) * 1000 : 0;
const raised = demo.room.flatMap((f) => f.falls.map((x) => (x.time - start) / 1000));
out.demo = { falls: demo.falls.map((w) => w.start), alarms: raised, found: demo.falls.filter((w) => raised.some((t) => t >= w.start - 2 && t <= w.end + 3)).length, false: raised.filter((t) => !demo.falls.some((w) => t >= w.start - 2 && t <= w.end + 3)).length, perDay: null };
out.demo.perDay = (out.demo.false / 170) * DAY;
console.error(`demo home: ${out.demo.found}/${out.demo.falls.length} found, ${out.demo.false} false (alarms at ${raised.map((t) => t.toFixed(1)).join(', ')})`);
writeFileSync(outFile, JSON.stringify(out, null, 1));
