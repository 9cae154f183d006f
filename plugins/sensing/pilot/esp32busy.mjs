// Pilot (not shipped): an ESP32 link started while a person moves, so it never saw the room quiet (the limit the
// floor's design states: docs/sensing.md, "at slower packet rates"). Each ESPectre movement file is sensed alone
// through the product (`senseCapture`, shipped models), at the captures' rate and thinned as the evaluation's slower
// links; printed per rate: seconds whose link motion reads >= 0.5, and per second of the file, how many files read
// moving there. The shipped models were fitted on these chips: in-sample figures (the held-out ones are `npm run eval:real`'s).
// Usage (repository root, after a build): node plugins/sensing/pilot/esp32busy.mjs [root]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { senseCapture, defaultRealRoot } from '../dist/index.js';

const root = process.argv[2] ?? defaultRealRoot();
const dir = join(root, 'presence-esp32');
const movement = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')).filter((e) => e.label === 'movement');
for (const thin of [1, 2, 5, 10, 20]) {
  let moving = 0, total = 0;
  const bySecond = [];
  for (const e of movement) {
    const { links } = await senseCapture(join(dir, e.file), { thin });
    for (const f of links) {
      total++;
      bySecond[f.second] ??= 0;
      if (f.motion >= 0.5) {
        moving++;
        bySecond[f.second]++;
      }
    }
  }
  console.log(JSON.stringify({ thin, files: movement.length, movingSeconds: `${moving}/${total}`, share: Math.round((1000 * moving) / total) / 1000, filesMovingBySecond: bySecond }));
}
