// c2wideband-protocol.md: 2.3.0 with C2 off and on at 80 MHz (nexmon-1x4-80~clean), beside c2aperture's 3×3 HT40 / HT20
// runs and the recipe's own pair (c2image's (a) and (b)), with paired 95 % bootstrap intervals over rooms and
// c2aperture's three readings. Runs are DIR/<profile>-{off,on}.{json,cpu,uptime} as `readRun` reads them (room-bootstrap.mjs).
// Usage: node models/wiflow-locate-v2/c2wideband-summary.mjs DIR APERTURE_DIR RECIPE_DIR > c2wideband-val.json
import { logRunsAndChanges, pairedChange, readRun, runsWithoutRooms } from './room-bootstrap.mjs';

const [dir, apertureDir, recipeDir] = process.argv.slice(2);
const WIDE = 'nexmon-1x4-80~clean';
const BESIDE = ['intel5300-3x3-ht40~clean', 'intel5300-3x3-ht20~clean'];
const runs = { 'recipe-off': readRun(recipeDir, 'a'), 'recipe-on': readRun(recipeDir, 'b') };
for (const m of ['off', 'on']) runs[`${WIDE}-${m}`] = readRun(dir, `${WIDE}-${m}`);
for (const p of BESIDE) for (const m of ['off', 'on']) runs[`${p}-${m}`] = readRun(apertureDir, `${p}-${m}`);
const on = runs[`${WIDE}-on`], off = runs[`${WIDE}-off`];
const changes = {
  [WIDE]: {
    'on-off': pairedChange(on, off),
    'on-recipeOn': pairedChange(on, runs['recipe-on']),
    'on-recipeOff': pairedChange(on, runs['recipe-off']),
    'off-recipeOff': pairedChange(off, runs['recipe-off']),
  },
  // C2's cost on the profiles beside it (no rule), for the reader to set the 80 MHz cost against.
  recipe: { 'on-off': pairedChange(runs['recipe-on'], runs['recipe-off']) },
  ...Object.fromEntries(BESIDE.map((p) => [p, { 'on-off': pairedChange(runs[`${p}-on`], runs[`${p}-off`]) }])),
};
const c2 = changes[WIDE]['on-off'];
// c2aperture's three readings; null: not measured.
const reading = c2 ? {
  recoversC2: c2.floorIntervalM[1] <= 0.15,
  helpsUnderC2: changes[WIDE]['on-recipeOn'].floorIntervalM[1] < 0,
  backToTodaysFigure: changes[WIDE]['on-recipeOff'].floorIntervalM[1] <= 0.15,
} : null;
logRunsAndChanges(Object.entries(runs), Object.entries(changes).flatMap(([p, c]) => Object.entries(c).map(([k, d]) => [`${p} ${k}`, d])));
console.error(`reading: ${JSON.stringify(reading)}`);
console.log(JSON.stringify({ runs: runsWithoutRooms(runs), changes, reading }, null, 1));
