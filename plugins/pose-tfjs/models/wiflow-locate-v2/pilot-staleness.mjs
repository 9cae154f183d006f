// Measurement (issue 21 item 5, staleness-protocol.md): how often the stale-reference detector
// says fine, replugged or stale for still, empty validation rooms with and without each part of
// realism v2's drift, with the shipped locator's gain per receive chain and without it (today's
// detector). VALIDATION sessions 5–12 (plan order), drift only, people removed, 25 s each.
// Usage (package built), in plugins/pose-tfjs:
//   nice node models/wiflow-locate-v2/pilot-staleness.mjs [--from 4] [--sessions 8] [--seconds 25] > /tmp/stale2-pilot.json
import os from 'node:os';
import * as sim from '@wiflow/plugin-sim';
import { loadLocatorModel, ReferenceStaleness, SHIPPED_LOCATOR_DIR, simulateReference, withRealism } from '../../dist/index.js';
import { DatasetRecipeSchema } from '../../dist/sim/recipe.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const FROM = Number(opt('--from', '4'));
const SESSIONS = Number(opt('--sessions', '8'));
const SECONDS = Number(opt('--seconds', '25'));
const started = process.cpuUsage();
const wallStart = Date.now();
const loadBefore = os.loadavg();
const locator = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const chainGain = locator.spec.imaging.staticChainGain;
const recipe = withRealism(DatasetRecipeSchema.parse(locator.spec.training.dataset ?? {}), 'v2', ['drift']);
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const sessions = plan.sessions.filter((s) => s.split === 'val').slice(FROM, FROM + SESSIONS);

// As pilot-drift.mjs cuts the drift (null: the session drew nothing of that part).
const VARIANTS = {
  none: () => undefined,
  all: (d) => d,
  replug: (d, s) => ({ moved: [], replugged: [s.radios.find((r) => r.role === 'rx').id] }),
  moved: (d) => (d.moved.length ? { moved: d.moved, replugged: [] } : null),
  static: (d) => (d.staticDrift ? { moved: [], replugged: [], staticDrift: d.staticDrift } : null),
};

const rows = [];
for (const session of sessions) {
  const drawn = sim.validateScenario(session.scenario);
  for (const [name, cut] of Object.entries(VARIANTS)) {
    const drift = cut(drawn.drift, drawn);
    if (drift === null) { rows.push({ session: session.sessionId, variant: name, skipped: 'not drawn' }); continue; }
    const { drift: _old, ...rest } = drawn;
    const scenario = sim.validateScenario({ ...(drift ? { ...rest, drift } : rest), people: [] });
    const reference = simulateReference(sim, scenario);
    const today = new ReferenceStaleness(reference);
    const now = new ReferenceStaleness(reference, {}, chainGain);
    for (const tick of new sim.Simulator(scenario).run(SECONDS)) for (const f of tick.frames) { today.push(f); now.push(f); }
    const before = today.status();
    const links = now.status().map((l, i) => ({ link: l.link, today: before[i].status, verdict: l.verdict, change: l.changeNoiseFloors, chainAligned: l.chainAlignedChangeNoiseFloors }));
    rows.push({ session: session.sessionId, variant: name, replugged: drift?.replugged ?? [], links });
    process.stderr.write(`${session.sessionId} ${name}: ${links.map((l) => `${l.link} ${l.today}→${l.verdict} (${l.change?.toFixed(1)} → ${l.chainAligned?.toFixed(1)})`).join('; ')}\n`);
  }
}
const cpu = process.cpuUsage(started);
process.stdout.write(JSON.stringify({
  command: `node models/wiflow-locate-v2/pilot-staleness.mjs --from ${FROM} --sessions ${SESSIONS} --seconds ${SECONDS}`,
  split: 'val', sessions: sessions.map((s) => s.sessionId), seconds: SECONDS, chainGain,
  cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1), wallSeconds: +((Date.now() - wallStart) / 1000).toFixed(1),
  loadBefore: loadBefore.map((v) => +v.toFixed(2)), loadAfter: os.loadavg().map((v) => +v.toFixed(2)),
  rows,
}, null, 1) + '\n');
