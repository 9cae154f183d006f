// confirm21-protocol.md: each candidate gate on tracker.track's ids (confirm21-gate.mjs) on VALIDATION caches
// (pilot-distract-cache.mjs), end to end as a user sees it (e2e-replay.mjs: the locator's shipped tracker,
// pose.locate's frames, tracker.track with its defaults, then the gate), against the shipped chain (no gate).
// Guards: the shipped chain's 95 % bootstrap interval over rooms (room-bootstrap.mjs).
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/confirm21-grid.mjs confirm21-candidates.json cache.json... > out.json
// Added after the fresh grid's outcome (post hoc, descriptive; the rule does not read it): each candidate's
// phantoms as a share of the shipped chain's, with a 95 % bootstrap over the emptied rooms (paired, both
// conditions of a room together).
// SWEEP=1: the caches are seen rooms and the candidates a sweep that fixes the protocol's settings (no winner is named).
import { readFileSync } from 'node:fs';
import { readPilotCache } from './pilot-cache-file.mjs';
import { bootstrap } from './room-bootstrap.mjs';
import { PeopleTrackerSettingsSchema } from '../../dist/locate/people-tracker.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR } from '@wiflow/plugin-pose-tfjs';
import { round, measureRooms, pooledFigures, perHour, delayFigures } from './e2e-replay.mjs';
import { idGate } from './confirm21-gate.mjs';

const [candidatesFile, ...files] = process.argv.slice(2);
const { candidates } = JSON.parse(readFileSync(candidatesFile, 'utf8'));
const caches = files.map((f) => ({ file: f, cache: readPilotCache(f) }));
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
for (const { file, cache } of caches) if (cache.hash !== model.hash) throw new Error(`${file} was made with locator ${cache.hash.slice(0, 12)}, not the shipped ${model.hash.slice(0, 12)}`);
const sweep = process.env.SWEEP === '1';

const started = process.cpuUsage();
const shippedSettings = (cache) => PeopleTrackerSettingsSchema.parse(cache.tracker);
const measure = (gate) => measureRooms(model, caches, shippedSettings, gate ? () => idGate(gate) : undefined);
const KEYS = ['countExact', 'detectedShare', 'onePersonFloorM', 'stillDetectedShare'];
const shipped = measure(null);
const intervals = Object.fromEntries(KEYS.map((k) => [k, bootstrap(shipped.rooms.length, (idx) => pooledFigures(idx.map((i) => shipped.rooms[i]))[k] ?? 0)]));
const installer = (m, key) => perHour(m.phantoms['fan-cat-door'][key] + m.phantoms.drift[key], m.phantoms['fan-cat-door'].seconds + m.phantoms.drift.seconds);
const roomPhantoms = (m) => m.phantoms['fan-cat-door'].perRoom.map((n, i) => n + m.phantoms.drift.perRoom[i]);
const phantomShare = (m) => {
  const a = roomPhantoms(m), b = roomPhantoms(shipped), share = (idx) => idx.reduce((s, i) => s + a[i], 0) / Math.max(1, idx.reduce((s, i) => s + b[i], 0));
  return { share: round(share(a.map((_, i) => i)), 3), bootstrap95: bootstrap(a.length, share) };
};
const describe = (name, gate, m) => {
  const fig = pooledFigures(m.rooms);
  // The intervals carry 3 decimals: the figure is compared at the same precision.
  const guards = Object.fromEntries(KEYS.map((k) => [k, fig[k] === null ? null : k === 'onePersonFloorM' ? round(fig[k], 3) <= intervals[k][1] : round(fig[k], 3) >= intervals[k][0]]));
  const halved = installer(m, 'tracks') <= installer(shipped, 'tracks') / 2;
  return {
    name, gate,
    phantomsPerHour: { installer: round(installer(m, 'tracks'), 1), 'fan-cat-door': round(perHour(m.phantoms['fan-cat-door'].tracks, m.phantoms['fan-cat-door'].seconds), 1), drift: round(perHour(m.phantoms.drift.tracks, m.phantoms.drift.seconds), 1) },
    phantoms: m.phantoms, phantomsOfShipped: phantomShare(m), people: Object.fromEntries(KEYS.map((k) => [k, round(fig[k])])), delay: delayFigures(m.rooms), halved, guards,
    wins: halved && Object.values(guards).every((g) => g !== false),
  };
};
const results = candidates.map((c) => describe(c.name, c.gate, measure(c.gate)));
const base = describe('shipped 2.3.0', null, shipped);
const winners = results.filter((r) => r.wins).sort((a, b) => a.phantomsPerHour.installer - b.phantomsPerHour.installer);
// Within 5 % of the fewest phantoms, the shorter median delay.
const close = winners.filter((r) => r.phantomsPerHour.installer <= 1.05 * (winners[0]?.phantomsPerHour.installer ?? 0)).sort((a, b) => (a.delay.medianS ?? Infinity) - (b.delay.medianS ?? Infinity));
const cpu = process.cpuUsage(started);
console.log(JSON.stringify({
  protocol: 'confirm21-protocol.md', sweep,
  caches: caches.map(({ file, cache }) => ({ file, split: cache.source.split, hash: cache.hash.slice(0, 12), peopleRooms: cache.source.peopleRooms, installerRooms: cache.source.installerRooms, installerSeconds: cache.source.installerSeconds, cacheCpuSeconds: cache.source.cpuSeconds })),
  shipped: { ...base, bootstrap95: intervals, rooms: shipped.rooms.length },
  candidates: results, winner: sweep ? null : close[0]?.name ?? null, replayCpuSeconds: round((cpu.user + cpu.system) / 1e6, 1),
}, null, 1));
