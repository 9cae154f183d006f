// Pilot (not shipped; round 3 of the reverberant body, issue 22): the realism table's fluctuation measures on the
// real Intel 5300 activity captures (evaluation only, nothing copied): per activity, medians over the first N files
// of `dopplerStatistics` (median and 90 % frequency), the fluctuation power (var / mean², mean over streams) and
// `stillSceneStatistics`' autocorrelations at 1 packet and 1 s. Absent folder: one line, nothing else.
// Run from the repository root after a build: node plugins/sim/pilot/real_spectra.mjs
import { existsSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCapture } from '@wiflow/plugin-csi';
import { dopplerStatistics, stillSceneStatistics, bandShapeMotion } from '@wiflow/plugin-sim';
const dir = join(process.cwd(), '..', 'shared', 'data', 'real', 'activities-intel5300');
if (!existsSync(dir)) {
  console.log(`real captures not found at ${dir}: nothing to measure`);
  process.exit(0);
}
const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'));
const median = (v) => { const s = v.filter(Number.isFinite).sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
function fluct(frames){const n=frames[0].csi.re.length;let sum=0;for(let i=0;i<n;i++){const a=frames.map(f=>Math.hypot(f.csi.re[i],f.csi.im[i]));const m=a.reduce((x,y)=>x+y,0)/a.length;const v=a.reduce((x,y)=>x+(y-m)**2,0)/a.length;sum+=m>0?v/m/m:0}return sum/n}
for (const [label, n, maxS] of [['walking', 12, 0], [['lying','sitting'], 6, 120], ['fall', 12, 0], ['sit down', 12, 0], ['running', 12, 0]]) {
  const ls = Array.isArray(label) ? label : [label];
  const out = [];
  for (const e of labels.filter((l) => ls.includes(l.label)).slice(0, n)) {
    let f; try { f = await readCapture(join(dir, e.file)); } catch { continue; }
    if (maxS) f = f.filter((x) => x.timestamp - f[0].timestamp <= maxS * 1e6);
    if (f.length < 40) continue;
    out.push({ ...dopplerStatistics(f), fl: fluct(f), ...stillSceneStatistics(f) });
  }
  console.log(ls.join('+'), out.length, 'median Hz', median(out.map(o=>o.medianHz)), 'p90', median(out.map(o=>o.p90Hz)), 'fluct', median(out.map(o=>o.fl)).toFixed(4), 'ac1', median(out.map(o=>o.autocorrelationLag1)).toFixed(3), 'ac1s', median(out.map(o=>o.autocorrelation1s)).toFixed(3));
}
