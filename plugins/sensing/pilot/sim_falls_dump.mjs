// Pilot (not shipped): the fall series and candidates of the simulated training and validation rooms and of the
// demo home, for sim_falls.py. Every half second the raw phase-between-chains spread of the last second; every fall
// candidate with its features; the truth falls and fall-like movements. Test rooms are not dumped.
// Run from the repository root after a build: node plugins/sensing/pilot/sim_falls_dump.mjs /tmp/simfalls.json [--small]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Simulator, loadScenario } from '@wiflow/plugin-sim';
import { LinkSensor, SensingConfigSchema, DEFAULT_SENSING_MODELS, sensingConfigHash, simSessions, SIM_SIZES } from '../dist/index.js';

const small = process.argv.includes('--small');
const sizes = small ? SIM_SIZES.small : SIM_SIZES.full;
const config = SensingConfigSchema.parse({});
const models = DEFAULT_SENSING_MODELS;
const hash = sensingConfigHash(config, models);

function sense(scenario, seconds, name, split, kind) {
  const sim = new Simulator(scenario);
  const start = sim.startTimeMs;
  const links = new Map();
  const falls = [];
  const fallLike = [];
  const open = new Map();
  for (const tick of sim.run(seconds)) {
    for (const e of tick.truth.events) {
      const at = (e.time - start) / 1000;
      if (e.type === 'fall_start' || e.type === 'fall_like_start') open.set(e.type, at);
      if (e.type === 'fall_end') falls.push([open.get('fall_start') ?? at, at]);
      if (e.type === 'fall_like_end') fallLike.push([open.get('fall_like_start') ?? at, at]);
    }
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}>${frame.link.rx}`;
      if (!links.has(key)) {
        const entry = { half: [], cands: [] };
        entry.sensor = new LinkSensor(frame.link, { environmentId: 'pilot', config, models, configHash: hash, onHalfSecond: (s, f) => entry.half.push([s, f.pairSpread]), onFallCandidate: (c) => entry.cands.push({ t: (c.time - start) / 1000, peak: c.peak, features: c.features, p: c.probability }) });
        links.set(key, entry);
      }
      links.get(key).sensor.push(frame);
    }
  }
  for (const l of links.values()) l.sensor.finish();
  return { name, split, kind, falls, fallLike, links: [...links.values()].map((l) => ({ half: l.half, cands: l.cands })) };
}

const out = [];
for (const split of ['train', 'validation']) {
  const s = split === 'validation' ? { ...sizes, rooms: Math.max(2, Math.round(sizes.rooms / 2)) } : sizes;
  // walk-in sessions (added 2026-11-27) are left out, so the dump is the one its findings were read from
  for (const session of simSessions(split, s).filter((x) => x.kind !== 'walk-in')) {
    out.push(sense(session.scenario, session.seconds, session.scenario.name, split, session.kind));
    console.log(session.scenario.name);
  }
}
out.push(sense(loadScenario(join(import.meta.dirname, '../../../examples/scenarios/home-monitored.yaml')), 170, 'demo home', 'demo', 'demo'));
writeFileSync(process.argv[2] ?? 'simfalls.json', JSON.stringify(out));
console.log(`${out.length} sessions`);
