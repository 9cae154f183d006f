// Pilot (not shipped): every event the velocity-profile fall detector judges on the Intel 5300 activity samples
// (lying/sitting left out, byte copies counted once as eval:real does), for falls_multiclass.py.
// Writes one JSON array: {file, label, person, events: [{second, strength, features}]}, features as PROFILE_FEATURES.
// Run from the repository root after a build: node plugins/sensing/pilot/profile_events_dump.mjs /tmp/events.json
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultRealRoot, personOf, senseCapture, withoutCopies, DEFAULT_SENSING_MODELS, PROFILE_FEATURES } from '../dist/index.js';

const dir = join(defaultRealRoot(), 'activities-intel5300');
if (!existsSync(dir)) {
  console.log(`real captures not found at ${dir}: nothing to dump`);
  process.exit(0);
}
// A model that reads every group and never fires, so each judged event is reported with all its features.
const models = {
  ...DEFAULT_SENSING_MODELS,
  profileFall: { features: PROFILE_FEATURES, mean: PROFILE_FEATURES.map(() => 0), scale: PROFILE_FEATURES.map(() => 1), weights: PROFILE_FEATURES.map(() => 0), bias: 0, threshold: 1.01 },
};
const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')).filter((e) => e.label !== 'lying' && e.label !== 'sitting');
const { kept } = withoutCopies(dir, labels);
const out = [];
for (const e of kept) {
  const events = [];
  await senseCapture(join(dir, e.file), { models, onProfileEvent: (ev) => events.push({ second: ev.second, strength: ev.strength, features: Array.from(ev.features) }) });
  out.push({ file: e.file, label: e.label, person: personOf(e), events });
}
writeFileSync(process.argv[2] ?? '/tmp/events.json', JSON.stringify({ features: PROFILE_FEATURES, samples: out }));
console.log(`${out.length} samples, ${out.reduce((n, s) => n + s.events.length, 0)} events`);
