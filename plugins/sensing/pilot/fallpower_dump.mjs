// Pilot (not shipped): each packet's total power and AGC field for every Intel 5300 activity sample that eval:real
// scores (lying/sitting left out, byte copies counted once), for fallpower.py (pilot/fallpower-protocol.md).
// Power: the RMS of the packet's raw CSI values as the card reports them (what LinkSensor's per-packet normalisation
// discards), read as plugins/sim/pilot/fall_noise.mjs reads it. Time: seconds since the file's first packet.
// Writes one JSON array: {file, label, person, t, power, agc}.
// Run from the repository root after a build: node plugins/sensing/pilot/fallpower_dump.mjs /tmp/fallpower-power.json
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultRealRoot, personOf, withoutCopies } from '../dist/index.js';
import { readCapture } from '@wiflow/plugin-csi';

const dir = join(defaultRealRoot(), 'activities-intel5300');
if (!existsSync(dir)) {
  console.log(`real captures not found at ${dir}: nothing to dump`);
  process.exit(0);
}
const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')).filter((e) => e.label !== 'lying' && e.label !== 'sitting');
const { kept } = withoutCopies(dir, labels);
const round = (x, k) => Math.round(x * 10 ** k) / 10 ** k;
const out = [];
for (const e of kept) {
  let frames = [];
  try {
    frames = await readCapture(join(dir, e.file));
  } catch (err) {
    console.log(`${e.file}: ${err.message}`);
  }
  const t0 = frames[0]?.timestamp ?? 0;
  out.push({
    file: e.file,
    label: e.label,
    person: personOf(e),
    t: frames.map((f) => round((f.timestamp - t0) / 1e6, 4)),
    power: frames.map((f) => round(Math.sqrt(f.csi.re.reduce((a, x, i) => a + x * x + f.csi.im[i] ** 2, 0) / f.csi.re.length), 4)),
    agc: frames.map((f) => (Number.isFinite(f.agc) ? f.agc : null)),
  });
}
writeFileSync(process.argv[2] ?? '/tmp/fallpower-power.json', JSON.stringify(out));
console.log(`${out.length} samples, ${out.reduce((n, s) => n + s.t.length, 0)} packets`);
