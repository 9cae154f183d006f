// confirm21-protocol.md, post hoc (written after the fresh grid's outcome; it cannot change it): the ids a
// gate still shows in the emptied rooms of a pilot-distract cache. Per shown phantom id: its room and
// condition, the explained energy it was fed at its first estimate, and its window mean when it was shown.
// Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/confirm21-phantoms.mjs '<gate JSON>' cache.json
import { readPilotCache } from './pilot-cache-file.mjs';
import { PeopleTrackerSettingsSchema } from '../../dist/locate/people-tracker.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR } from '@wiflow/plugin-pose-tfjs';
import { endToEndFrames, round } from './e2e-replay.mjs';
import { idGate } from './confirm21-gate.mjs';

const [gateJson, file] = process.argv.slice(2);
const gate = JSON.parse(gateJson);
const cache = readPilotCache(file);
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const settings = PeopleTrackerSettingsSchema.parse(cache.tracker);
const shown = [];
for (const [room, run] of cache.runs.filter((r) => r.kind !== 'people').entries()) {
  const first = new Map(), seen = new Set();
  for (const f of endToEndFrames(model, run, settings, cache.maxPersons, idGate(gate))) {
    for (const p of f.persons) {
      if (p.trackId == null || p.trackStatus === 'ended') continue;
      if (!first.has(p.trackId)) first.set(p.trackId, { fed: p.explained, at: f.timestamp });
      if (p.trackStatus === 'tentative' || seen.has(p.trackId)) continue;
      seen.add(p.trackId);
      shown.push({ run: `${Math.floor(room / 2) + 1} ${run.kind}`, id: p.trackId, firstFed: round(first.get(p.trackId).fed, 2), shownAfterS: round((f.timestamp - first.get(p.trackId).at) / 1000, 2) });
    }
  }
}
console.log(JSON.stringify({ cache: file, gate, shown }, null, 1));
