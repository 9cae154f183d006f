// The product's held-evidence gate (tracker.track's `upstream_min_evidence` switched on at 0.5 over 10 s; opt-in, off by default) against
// confirm21's replay-only candidate A (confirm21-gate.mjs, window 10 s, 0.5) on the same VALIDATION cache:
// the product's tracker.track with the gate switched on, fed `evidence` as pose.locate gives it, must give A's
// figures exactly (every emptied room's phantoms, every people room's figures, the delays).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/gate-consistency.mjs /tmp/confirm21-fresh.json > out.json
import { isDeepStrictEqual } from 'node:util';
import { readPilotCache } from './pilot-cache-file.mjs';
import { PeopleTrackerSettingsSchema } from '../../dist/locate/people-tracker.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR } from '@wiflow/plugin-pose-tfjs';
import { round, measureRooms, pooledFigures, perHour, delayFigures } from './e2e-replay.mjs';
import { idGate } from './confirm21-gate.mjs';

const files = process.argv.slice(2);
const caches = files.map((f) => ({ file: f, cache: readPilotCache(f) }));
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
for (const { file, cache } of caches) if (cache.hash !== model.hash) throw new Error(`${file} was made with locator ${cache.hash.slice(0, 12)}, not the shipped ${model.hash.slice(0, 12)}`);
const started = process.cpuUsage();
const settings = (cache) => PeopleTrackerSettingsSchema.parse(cache.tracker);
const A = { mode: 'window', windowS: 10, minExplained: 0.5 };
const chains = {
  'gate off (upstream_min_evidence 0)': measureRooms(model, caches, settings),
  'A, replay (confirm21-gate.mjs)': measureRooms(model, caches, settings, () => idGate(A)),
  'product tracker.track, gate on (upstream_min_evidence 0.5)': measureRooms(model, caches, settings, undefined, { upstream_min_evidence: 0.5 }),
};
const figures = (m) => {
  const seconds = m.phantoms['fan-cat-door'].seconds + m.phantoms.drift.seconds;
  const p = pooledFigures(m.rooms);
  return { phantomsPerHour: round(perHour(m.phantoms['fan-cat-door'].tracks + m.phantoms.drift.tracks, seconds), 1), perRoom: { 'fan-cat-door': m.phantoms['fan-cat-door'].perRoom, drift: m.phantoms.drift.perRoom }, countExact: round(p.countExact), detectedShare: round(p.detectedShare), stillDetectedShare: round(p.stillDetectedShare), onePersonFloorM: round(p.onePersonFloorM), delay: delayFigures(m.rooms) };
};
const [, replay, product] = Object.values(chains);
const cpu = process.cpuUsage(started);
console.log(JSON.stringify({
  caches: caches.map(({ file, cache }) => ({ file, split: cache.source.split, hash: cache.hash.slice(0, 12) })),
  chains: Object.fromEntries(Object.entries(chains).map(([k, m]) => [k, figures(m)])),
  productEqualsReplay: isDeepStrictEqual(product.phantoms, replay.phantoms) && isDeepStrictEqual(product.rooms, replay.rooms),
  cpuSeconds: round((cpu.user + cpu.system) / 1e6, 1),
}, null, 1));
