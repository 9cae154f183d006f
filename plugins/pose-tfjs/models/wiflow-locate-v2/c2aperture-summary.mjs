// c2aperture-protocol.md: 2.3.0 with C2 off and on per hardware profile, summarised per people count, with paired 95 %
// bootstrap intervals over rooms and the protocol's three readings. Runs are DIR/<profile>-{off,on}.{json,cpu,uptime}
// as `readRun` reads them (room-bootstrap.mjs); the recipe's own pair is c2image's (a) and (b) in RECIPE_DIR.
// Usage: node models/wiflow-locate-v2/c2aperture-summary.mjs DIR RECIPE_DIR > c2aperture-val.json
import { logRunsAndChanges, pairedChange, readRun, runsWithoutRooms } from './room-bootstrap.mjs';

const [dir, recipeDir] = process.argv.slice(2);
const PROFILES = ['recipe+4rx', 'recipe+2tx', 'intel5300-1x3-ht40~clean', 'intel5300-1x3-ht40+2tx~clean', 'intel5300-1x3-ht20~clean', 'intel5300-3x3-ht40~clean', 'intel5300-3x3-ht20~clean'];
// Bandwidth alone (the protocol's amendments): each 40 MHz chip profile against the same chip profile at 20 MHz.
const BANDWIDTH = { 'intel5300-1x3-ht40~clean': 'intel5300-1x3-ht20~clean', 'intel5300-3x3-ht40~clean': 'intel5300-3x3-ht20~clean' };
const runs = { 'recipe-off': readRun(recipeDir, 'a'), 'recipe-on': readRun(recipeDir, 'b') };
for (const p of PROFILES) for (const m of ['off', 'on']) runs[`${p}-${m}`] = readRun(dir, `${p}-${m}`);
const changes = {}, reading = {};
for (const p of PROFILES) {
  const on = runs[`${p}-on`];
  const c2 = pairedChange(on, runs[`${p}-off`]), againstRecipeOn = pairedChange(on, runs['recipe-on']), againstRecipeOff = pairedChange(on, runs['recipe-off']);
  const aperture = pairedChange(runs[`${p}-off`], runs['recipe-off']);
  changes[p] = { 'on-off': c2, 'on-recipeOn': againstRecipeOn, 'on-recipeOff': againstRecipeOff, 'off-recipeOff': aperture };
  const narrow = BANDWIDTH[p];
  if (narrow) Object.assign(changes[p], { 'off-20MHzOff': pairedChange(runs[`${p}-off`], runs[`${narrow}-off`]), 'on-20MHzOn': pairedChange(on, runs[`${narrow}-on`]) });
  // The protocol's readings; null: not measured.
  reading[p] = c2 ? {
    recoversC2: c2.floorIntervalM[1] <= 0.15,
    helpsUnderC2: againstRecipeOn.floorIntervalM[1] < 0,
    backToTodaysFigure: againstRecipeOff.floorIntervalM[1] <= 0.15,
  } : null;
}
logRunsAndChanges(Object.entries(runs), Object.entries(changes).flatMap(([p, c]) => Object.entries(c).map(([k, d]) => [`${p} ${k}`, d])));
console.error(`reading: ${JSON.stringify(reading)}`);
console.log(JSON.stringify({ runs: runsWithoutRooms(runs), changes, reading }, null, 1));
