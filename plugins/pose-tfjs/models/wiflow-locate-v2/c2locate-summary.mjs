// c2locate-protocol.md: the runs (a: 2.3.0 C2 off, b: 2.3.0 C2 on, c: refit C2 on, d: refit C2 off, control) summarised,
// per people count, with the protocol's reading and paired 95 % bootstrap intervals over rooms.
// Each run is DIR/<name>.json (`wiflow locate eval --per-room --json`), DIR/<name>.cpu ("wall user sys"
// seconds, from /usr/bin/time -f '%e %U %S') and DIR/<name>.uptime (uptime before and after).
// Usage: node models/wiflow-locate-v2/c2locate-summary.mjs DIR [suffix]   (suffix: e.g. -v2 for --realism v2 runs)
import { logRunsAndChanges, pairedChange, readRun, reading, runsWithoutRooms } from './room-bootstrap.mjs';

const [dir, suffix = ''] = process.argv.slice(2);
const RUNS = { a: '2.3.0, C2 off', b: '2.3.0, C2 on', c: 'refit on C2, C2 on', d: 'refit on C2 off, C2 off (control)' };

const read = (name) => readRun(dir, `${name}${suffix}`);
const runs = Object.fromEntries(Object.keys(RUNS).map((k) => [k, read(k)]));
const change = (x, y) => pairedChange(runs[x], runs[y]);
const changes = { c2On: change('b', 'a'), refitUnderC2: change('c', 'b'), refitAgainstToday: change('c', 'a'), refitOff: change('d', 'a'), c2OnBothRefitted: change('c', 'd') };
const verdict = { c2On: reading(changes.c2On), refitUnderC2: reading(changes.refitUnderC2), refitRecovers: changes.refitAgainstToday ? reading(changes.refitAgainstToday) !== 'worse' : null, c2OnBothRefitted: reading(changes.c2OnBothRefitted) };

logRunsAndChanges(Object.entries(RUNS).map(([k, label]) => [`${k} (${label})`, runs[k]]), Object.entries(changes));
console.error(`reading: ${JSON.stringify(verdict)}`);
console.log(JSON.stringify({ suffix, runs: runsWithoutRooms(runs), changes, verdict }, null, 1));
