// Pilot (not shipped): the fall series of every Intel 5300 activity sample, for falls.py.
// Every half second the motion features of the last second, and every fall candidate with its features.
// Run from the repository root after a build: node plugins/sensing/pilot/falls_dump.mjs /tmp/act.json
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultRealRoot, LinkSensor, personOf, SensingConfigSchema, DEFAULT_SENSING_MODELS, sensingConfigHash } from '../dist/index.js';
import { openCapture } from '@wiflow/plugin-csi';

const dir = join(defaultRealRoot(), 'activities-intel5300');
if (!existsSync(dir)) {
  console.log(`real captures not found at ${dir}: nothing to dump`);
  process.exit(0);
}
const config = SensingConfigSchema.parse({});
const out = [];
for (const e of JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'))) {
  if (e.label === 'lying' || e.label === 'sitting') continue;
  const half = [];
  const cands = [];
  const sensors = new Map();
  const reader = await openCapture(join(dir, e.file), { onError: 'stop' });
  for await (const frame of reader) {
    const key = `${frame.link.tx}>${frame.link.rx}`;
    if (!sensors.has(key)) sensors.set(key, new LinkSensor(frame.link, { environmentId: 'pilot', config, models: DEFAULT_SENSING_MODELS, configHash: sensingConfigHash(config, DEFAULT_SENSING_MODELS), onHalfSecond: (s, f) => half.push([s, f.spread, f.step, f.packetStep, f.groupSpread, f.pairSpread]), onFallCandidate: (c) => cands.push({ second: c.second, peak: c.peak, features: c.features }) }));
    sensors.get(key).push(frame);
  }
  for (const s of sensors.values()) s.finish();
  out.push({ file: e.file, label: e.label, person: personOf(e), half, cands });
}
writeFileSync(process.argv[2] ?? 'act.json', JSON.stringify(out));
console.log(`${out.length} samples`);
