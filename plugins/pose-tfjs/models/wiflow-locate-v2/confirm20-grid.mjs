// confirm20-protocol.md: each candidate's `reportExplained` on VALIDATION caches (pilot-distract-cache.mjs),
// end to end as a user sees it. Each run's untracked estimates are replayed through the locator's tracker
// with the candidate merged over the shipped settings, turned into the frames `pose.locate` emits (its
// reported tracks, with the locator's presence and mean pose, positions clamped to the room as
// `hypothesesFromEvidence` does), then through `tracker.track` (`MultiPersonTracker`, its defaults: it
// follows the locator's ids and joins a re-born id to a lost one) and scored as `eval-e2e` scores them:
// phantoms are the reported track ids of the emptied rooms (`phantomsIn`); people rooms by `BucketScorer`
// after its warm-up, and still people (standing, sitting, lying) detected within 1 m as distract-grid.mjs
// counts them; the delay from a person's first estimate to the first one where a reported person is within
// 1 m of them (one to one). Guards: the shipped setting's 95 % bootstrap interval over rooms (room-bootstrap.mjs).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/confirm20-grid.mjs confirm20-candidates.json cache.json... > out.json
// VETO=1: the caches are seen rooms, guards only (the rule's step 4).
import { readFileSync } from 'node:fs';
import { readPilotCache } from './pilot-cache-file.mjs';
import { bootstrap } from './room-bootstrap.mjs';
import { PeopleTrackerSettingsSchema } from '../../dist/locate/people-tracker.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR } from '@wiflow/plugin-pose-tfjs';
import { round, measureRooms, pooledFigures, perHour, delayFigures } from './e2e-replay.mjs';

const [candidatesFile, ...files] = process.argv.slice(2);
const { candidates } = JSON.parse(readFileSync(candidatesFile, 'utf8'));
const caches = files.map((f) => ({ file: f, cache: readPilotCache(f) }));
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
for (const { file, cache } of caches) if (cache.hash !== model.hash) throw new Error(`${file} was made with locator ${cache.hash.slice(0, 12)}, not the shipped ${model.hash.slice(0, 12)}`);

// Parsed as locator.json is, so the candidate's unstated settings take their defaults.
const measure = (overrides) => measureRooms(model, caches, (cache) => PeopleTrackerSettingsSchema.parse({ ...cache.tracker, ...overrides }));
const started = process.cpuUsage();
const KEYS = ['countExact', 'detectedShare', 'onePersonFloorM', 'stillDetectedShare'];
const shipped = measure({});
const intervals = Object.fromEntries(KEYS.map((k) => [k, bootstrap(shipped.rooms.length, (idx) => pooledFigures(idx.map((i) => shipped.rooms[i]))[k] ?? 0)]));
const installer = (m, key) => perHour(m.phantoms['fan-cat-door'][key] + m.phantoms.drift[key], m.phantoms['fan-cat-door'].seconds + m.phantoms.drift.seconds);
const describe = (name, overrides, m) => {
  const fig = pooledFigures(m.rooms);
  // The intervals carry 3 decimals: the figure is compared at the same precision.
  const guards = Object.fromEntries(KEYS.map((k) => [k, fig[k] === null ? null : k === 'onePersonFloorM' ? round(fig[k], 3) <= intervals[k][1] : round(fig[k], 3) >= intervals[k][0]]));
  const halved = installer(m, 'tracks') <= installer(shipped, 'tracks') / 2;
  const guardsPass = Object.values(guards).every((g) => g !== false);
  return {
    name, overrides,
    phantomsPerHour: { installer: round(installer(m, 'tracks'), 1), 'fan-cat-door': round(perHour(m.phantoms['fan-cat-door'].tracks, m.phantoms['fan-cat-door'].seconds), 1), drift: round(perHour(m.phantoms.drift.tracks, m.phantoms.drift.seconds), 1), locatorInstaller: round(installer(m, 'locatorTracks'), 1) },
    phantoms: m.phantoms, people: Object.fromEntries(KEYS.map((k) => [k, round(fig[k])])), delay: delayFigures(m.rooms), halved, guards,
    wins: process.env.VETO === '1' ? guardsPass : halved && guardsPass,
  };
};
const results = candidates.map((c) => describe(c.name, c.tracker, measure(c.tracker)));
const base = describe('shipped 2.3.0', {}, shipped);
const winners = results.filter((r) => r.wins).sort((a, b) => a.phantomsPerHour.installer - b.phantomsPerHour.installer);
// Within 5 % of the fewest phantoms, the shorter median delay.
const close = winners.filter((r) => r.phantomsPerHour.installer <= 1.05 * (winners[0]?.phantomsPerHour.installer ?? 0)).sort((a, b) => (a.delay.medianS ?? Infinity) - (b.delay.medianS ?? Infinity));
const cpu = process.cpuUsage(started);
console.log(JSON.stringify({
  protocol: 'confirm20-protocol.md', veto: process.env.VETO === '1',
  caches: caches.map(({ file, cache }) => ({ file, split: cache.source.split, hash: cache.hash.slice(0, 12), peopleRooms: cache.source.peopleRooms, installerRooms: cache.source.installerRooms, installerSeconds: cache.source.installerSeconds, cacheCpuSeconds: cache.source.cpuSeconds })),
  shipped: { ...base, bootstrap95: intervals, rooms: shipped.rooms.length },
  candidates: results, winner: process.env.VETO === '1' ? null : close[0]?.name ?? null, replayCpuSeconds: round((cpu.user + cpu.system) / 1e6, 1),
}, null, 1));
