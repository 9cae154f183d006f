// Pilot (not shipped): presence round 6, the installer's empty-room reference (pilot/refloor-protocol.md).
// Scores the presence rows of the simulated evaluation (still, empty with fan/cat/door, leaving, walk-in) per room
// on chosen validation rooms, for the shipped rules without a reference and for each candidate with the
// reference (`runSimSession(..., { reference: true })`), and writes one JSON per candidate. Validation rooms only.
// Run from the repository root after a build:
//   node plugins/sensing/pilot/refloor_candidates.mjs 144-155 /tmp/refloor-pilot [names]
import { mkdirSync, writeFileSync } from 'node:fs';
import { DEFAULT_SENSING_MODELS, runSimSession, scoreSimRuns, SensingConfigSchema, SIM_SIZES, simSessions } from '../dist/index.js';

/** The protocol's candidates: name → (reference?, config override). */
export const CANDIDATES = {
  base: { reference: false, config: {} },
  A: { reference: true, config: { presenceReferenceFloor: true, presenceReferenceLevel: 'off' } },
  B: { reference: true, config: {} },
  C: { reference: true, config: { presenceReferenceLevel: 'keep' } },
  D: { reference: true, config: { presenceReferenceFloor: true } },
  E: { reference: true, config: { presenceReferenceFloor: true, presenceReferenceLevel: 'keep' } },
};

const [from, to] = (process.argv[2] ?? '144-155').split('-').map(Number);
const out = process.argv[3] ?? '/tmp/refloor-pilot';
const names = process.argv[4] ? process.argv[4].split(',') : Object.keys(CANDIDATES);
mkdirSync(out, { recursive: true });
const sessions = simSessions('validation', { ...SIM_SIZES.full, rooms: to + 1 }).filter((s) => s.room >= from && ['still', 'empty', 'leave', 'walk-in'].includes(s.kind));
const num = (text, re) => { const m = re.exec(text); return m ? m.slice(1).map(Number) : null; };
for (const name of names) {
  const { reference, config } = CANDIDATES[name];
  const started = Date.now();
  const cpu = process.cpuUsage();
  const perRoom = [];
  for (let room = from; room <= to; room++) {
    const runs = sessions.filter((s) => s.room === room).map((s) => runSimSession(s, DEFAULT_SENSING_MODELS, SensingConfigSchema.parse(config), { reference }));
    const rows = Object.fromEntries(scoreSimRuns(runs).map((r) => [r.name, r]));
    const [stillFound, stillSeconds] = num(rows['still person present: recall'].detail, /^(\d+)\/(\d+) s/);
    const [episodes, , emptySeconds] = num(rows['empty room with distractors: false presence per day'].detail, /^(\d+) episodes \((\d+) present s\) in (\d+) s/);
    const [walkFound, walkSeconds] = num(rows['walk-in after the warm-up: recall from arrival'].detail, /^(\d+)\/(\d+) s/);
    const [leadEpisodes, , leadSeconds] = num(rows['walk-in: empty lead-in before arrival: false presence per day'].detail, /^(\d+) episodes \((\d+) present s\) in (\d+) s/);
    const afterLeaving = rows['after leaving: present seconds per session (median)'].value;
    perRoom.push({ room, stillFound, stillSeconds, episodes, emptySeconds, walkFound, walkSeconds, leadEpisodes, leadSeconds, afterLeaving, stillDetail: rows['still person present: recall'].detail });
  }
  const used = process.cpuUsage(cpu);
  const record = { name, reference, config, rooms: [from, to], wallS: Math.round((Date.now() - started) / 1000), cpuS: Math.round((used.user + used.system) / 1e6), perRoom };
  writeFileSync(`${out}/${name}.json`, JSON.stringify(record, null, 1));
  console.log(`${name}: ${record.wallS} s wall, ${record.cpuS} s CPU`);
}
