// Pilot (not shipped): raw CSI of every Intel 5300 activity sample (lying/sitting left out), for carm.py; with a
// second argument `still`, of the lying and sitting recordings only, for still_breathing.py.
// Writes DIR/index.json ({file, label, person, frames, offset}) and DIR/csi.bin: per frame 181 float32s, the
// seconds since the file's first frame, then the 90 real and the 90 imaginary parts of [rx][subcarrier].
// Run from the repository root after a build: node plugins/sensing/pilot/carm_dump.mjs /tmp/fr [still]
import { closeSync, existsSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { defaultRealRoot, personOf } from '../dist/index.js';
import { openCapture } from '@wiflow/plugin-csi';

const dir = join(defaultRealRoot(), 'activities-intel5300');
if (!existsSync(dir)) {
  console.log(`real captures not found at ${dir}: nothing to dump`);
  process.exit(0);
}
const outDir = process.argv[2] ?? '/tmp/fr';
const still = process.argv[3] === 'still';
const fd = openSync(join(outDir, 'csi.bin'), 'w');
const index = [];
let offset = 0;
for (const e of JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'))) {
  if ((e.label === 'lying' || e.label === 'sitting') !== still) continue;
  let frames = 0;
  let t0 = null;
  const reader = await openCapture(join(dir, e.file), { onError: 'stop' });
  try {
    for await (const f of reader) {
      if (f.ntx !== 1 || f.nrx !== 3 || f.nsc !== 30) continue;
      t0 ??= f.timestamp;
      const row = new Float32Array(1 + 180);
      row[0] = (f.timestamp - t0) / 1e6;
      row.set(f.csi.re, 1);
      row.set(f.csi.im, 91);
      writeSync(fd, Buffer.from(row.buffer));
      frames++;
    }
  } catch (err) {
    console.log(`${e.file}: ${err.message}`);
  }
  index.push({ file: e.file, label: e.label, person: personOf(e), frames, offset });
  offset += frames;
}
closeSync(fd);
writeFileSync(join(outDir, 'index.json'), JSON.stringify(index));
console.log(`${index.length} samples, ${offset} frames`);
