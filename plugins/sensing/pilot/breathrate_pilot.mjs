// Issue 22, breathing of a still person: where the wrong lines and the missing rates come from. VALIDATION rooms
// only: the eval's validation rooms 0-5 and fresh validation rooms (default 66-77; 0-65 were read by earlier
// rounds). For each rated still second (from 30 s on, truth not moving) more than 2 bpm from the windowed truth,
// the first cause that fits; for each still second without a rate, the room's reason; the fan rooms rerun with
// the fan removed (same seed, same breaths) to see which wrong lines the fan draws.
// Usage: node plugins/sensing/pilot/breathrate_pilot.mjs [firstFresh=66] [freshCount=12] [--json out.json]
//   [--config '{"breathingSubharmonicRatio":0.5}'] (sensing settings to score instead of the defaults) [--no-fan] (skip the fan reruns)
import { writeFileSync } from 'node:fs';
import { personBreathing } from '@wiflow/plugin-sim';
import { runSimSession, simSessions, SIM_SIZES, SensingConfigSchema } from '../dist/index.js';

const configAt = process.argv.indexOf('--config');
const config = SensingConfigSchema.parse(configAt > 0 ? JSON.parse(process.argv[configAt + 1]) : {});
const noFan = process.argv.includes('--no-fan');
const args = process.argv.slice(2).filter((a, i, all) => !a.startsWith('--') && !['--config', '--json'].includes(all[i - 1]));
const first = Number(args[0] ?? 66);
const count = Number(args[1] ?? 12);
const jsonAt = process.argv.indexOf('--json');
const rooms = [0, 1, 2, 3, 4, 5, ...Array.from({ length: count }, (_, i) => first + i)];
const all = simSessions('validation', { ...SIM_SIZES.full, rooms: Math.max(...rooms) + 1 });
const still = all.filter((s) => s.kind === 'still' && rooms.includes(s.room));

const causes = new Map();
const add = (map, key, n = 1) => map.set(key, (map.get(key) ?? 0) + n);
const unrated = new Map();
const sessionsNoRate = [];
const rows = [];
const sessionErrors = [];
let stillSeconds = 0;
let rated = 0;
let wrong = 0;
const quality = { right: [], wrong: [] };
const withoutFan = (s) => ({ ...s, scenario: { ...s.scenario, distractors: [] } });

for (const session of still) {
  const run = runSimSession(session, undefined, config);
  const fan = session.scenario.distractors.length > 0;
  const fanFree = fan && !noFan ? runSimSession(withoutFan(session), undefined, config) : null;
  const fanFreeBpm = new Map((fanFree?.room ?? []).map((f) => [f.second, f.breathingBpm]));
  const spec = session.scenario.people[0];
  const breaths = personBreathing(spec, session.scenario.seed);
  const links = new Map();
  for (const f of run.links) links.set(f.second, [...(links.get(f.second) ?? []), f]);
  let sessionRated = 0;
  const errors = [];
  const reasons = new Map();
  for (const f of run.room) {
    const s = f.second;
    if (s < 30 || !run.present[s] || run.moving[s]) continue;
    stillSeconds++;
    const truth = run.breathingTruth[s];
    if (f.breathingBpm === null) {
      const linkReasons = (links.get(s) ?? []).map((l) => l.breathingReason);
      const reason = f.presence ? (linkReasons.includes('periodic_interference') ? 'periodic_interference' : f.breathingReason) : `not present (${f.breathingReason})`;
      add(unrated, reason);
      add(reasons, reason);
      continue;
    }
    rated++;
    sessionRated++;
    const r = f.breathingBpm;
    const error = Math.abs(r - truth);
    errors.push(error);
    if (error <= 2) {
      quality.right.push(f.breathingQuality);
      continue;
    }
    wrong++;
    quality.wrong.push(f.breathingQuality);
    const others = (links.get(s) ?? []).filter((l) => l.breathingBpm !== null && l.breathingBpm !== r);
    const sigh = breaths.breathsBetween(s + 1 - 30 - 10, s + 1).some((b) => b.sigh && b.start + b.duration > s + 1 - 30);
    const fidget = run.moving.slice(Math.max(0, s - 29), s + 1).some(Boolean);
    const fanLine = fan && !(Math.abs((fanFreeBpm.get(s) ?? NaN) - r) <= 0.5);
    let cause;
    if (Math.abs(r - 2 * truth) <= 2) cause = 'harmonic 2x';
    else if (Math.abs(r - 3 * truth) <= 2) cause = 'harmonic 3x';
    else if (Math.abs(r - truth / 2) <= 2) cause = 'sub-harmonic 1/2';
    else if (fanLine) cause = 'fan (gone without the fan)';
    else if (others.some((l) => Math.abs(l.breathingBpm - truth) <= 2)) cause = 'outvoted: another link was right';
    else if (fidget) cause = 'fidget in window';
    else if (sigh) cause = 'sigh in window';
    else if (error <= 3) cause = 'near: 2-3 bpm off';
    else cause = r < truth ? 'other, below truth (sway?)' : 'other, above truth';
    add(causes, cause);
    rows.push({ room: session.room, detail: session.detail, second: s, bpm: r, truth: Math.round(truth * 100) / 100, quality: f.breathingQuality, links: (links.get(s) ?? []).map((l) => l.breathingBpm), cause, sigh, fan });
  }
  if (errors.length) sessionErrors.push(errors.sort((a, b) => a - b)[errors.length >> 1]);
  const main = [...reasons.entries()].sort((a, b) => b[1] - a[1])[0];
  if (sessionRated === 0) sessionsNoRate.push(`room ${session.room} ${session.detail}${fan ? ' +fan' : ''}: ${main ? `${main[0]} (${main[1]} s)` : '-'}`);
  console.error(`room ${session.room} ${session.detail}${fan ? ' +fan' : ''}: rated ${sessionRated}`);
}

const pct = (n, d) => `${((100 * n) / Math.max(1, d)).toFixed(1)} %`;
const quant = (xs, q) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.floor(q * (s.length - 1))] : null; };
console.log(`rooms ${rooms.join(',')} (validation), ${still.length} still sessions`);
console.log(`still seconds (>= 30 s, not moving): ${stillSeconds}; rated ${rated} (${pct(rated, stillSeconds)}); > 2 bpm off ${wrong} (${pct(wrong, rated)} of rated)`);
sessionErrors.sort((a, b) => a - b);
console.log(`within 2 bpm: ${rated - wrong} of ${stillSeconds} still seconds; share of rated ${((rated - wrong) / Math.max(1, rated)).toFixed(3)}; rated share ${(rated / stillSeconds).toFixed(3)}; median error ${sessionErrors.length ? sessionErrors[sessionErrors.length >> 1].toFixed(3) : '-'} bpm (${sessionErrors.length} of ${still.length} sessions rated)`);
console.log('\n| wrong line: cause | seconds | share of wrong |\n|---|---|---|');
for (const [k, v] of [...causes.entries()].sort((a, b) => b[1] - a[1])) console.log(`| ${k} | ${v} | ${pct(v, wrong)} |`);
console.log('\n| unrated still second: reason | seconds |\n|---|---|');
for (const [k, v] of [...unrated.entries()].sort((a, b) => b[1] - a[1])) console.log(`| ${k} | ${v} |`);
console.log(`\nsessions with no rate: ${sessionsNoRate.length} of ${still.length}`);
for (const l of sessionsNoRate) console.log(`  ${l}`);
console.log(`\nquality of right lines: p10 ${quant(quality.right, 0.1)} p50 ${quant(quality.right, 0.5)}; wrong lines: p50 ${quant(quality.wrong, 0.5)} p90 ${quant(quality.wrong, 0.9)}`);
if (jsonAt > 0) writeFileSync(process.argv[jsonAt + 1], JSON.stringify(rows));
