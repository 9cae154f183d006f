// drift2-protocol.md: the grid's outputs (drift2-grid.sh OUTDIR) summarised as drift2-grid-val.json,
// with the selection rule applied. Usage: node models/wiflow-locate-v2/drift2-summary.mjs OUTDIR [CANDIDATES] > models/wiflow-locate-v2/drift2-grid-val.json
import { existsSync, readFileSync } from 'node:fs';

const [out, list = 'S Dd B'] = process.argv.slice(2);
const names = { S: 'shipped 2.2.0', Dd: 'Dd: gain per receive chain held over 30 s, dead band 0.2', B: 'B: live noise floor' };
const round = (v) => (v == null ? null : +v.toFixed(3));
const candidates = {};
for (const c of list.split(' ')) {
  const entry = {};
  for (const realism of ['v2', 'none']) {
    const file = `${out}/${c}-${realism}.json`;
    if (!existsSync(file)) continue;
    const r = JSON.parse(readFileSync(file, 'utf8'));
    const [wall, user, sys] = readFileSync(`${out}/${c}-${realism}.cpu`, 'utf8').trim().split(' ').map(Number);
    entry[realism] = {
      modelHash: r.modelHash, rooms: r.rooms, samples: r.samples,
      countExact: Object.fromEntries(Object.entries(r.model).map(([k, v]) => [k, round(v.countAccuracy)])),
      floorErrorM: Object.fromEntries(Object.entries(r.model).filter(([, v]) => v.floorErrorM != null).map(([k, v]) => [k, round(v.floorErrorM)])),
      cpuSeconds: +(user + sys).toFixed(1), wallSeconds: wall,
      uptime: readFileSync(`${out}/${c}-${realism}.uptime`, 'utf8').trim().split('\n'),
    };
  }
  candidates[c] = { name: names[c] ?? c, ...entry };
}
// The rule (drift2-protocol.md): guard on realism none, then the highest v2 count exact, ship bar against S.
const S = candidates.S;
const rule = {};
for (const [c, e] of Object.entries(candidates)) {
  if (c === 'S' || !e.none || !e.v2) continue;
  const guard = e.none.countExact.all >= S.none.countExact.all - 0.01 && e.none.floorErrorM.all <= S.none.floorErrorM.all + 0.03;
  rule[c] = { guard, v2CountGain: round(e.v2.countExact.all - S.v2.countExact.all), v2FloorGainM: round(S.v2.floorErrorM.all - e.v2.floorErrorM.all), noneCountChange: round(e.none.countExact.all - S.none.countExact.all), noneFloorChangeM: round(e.none.floorErrorM.all - S.none.floorErrorM.all) };
}
const passing = Object.entries(rule).filter(([, r]) => r.guard).sort((a, b) => b[1].v2CountGain - a[1].v2CountGain || b[1].v2FloorGainM - a[1].v2FloorGainM);
const winner = passing[0]?.[0] ?? null;
const w = winner ? rule[winner] : null;
const clearsBar = w ? w.v2CountGain >= 0.02 || (w.v2FloorGainM >= 0.05 && w.v2CountGain >= -0.005) : false;
console.log(JSON.stringify({ protocol: 'drift2-protocol.md', split: 'val', commands: { v2: 'npx wiflow locate eval --split val --realism v2 --json --model <dir>', none: 'npx wiflow locate eval --split val --json --model <dir>' }, candidates, rule, winner, clearsShipBar: clearsBar }, null, 1));
