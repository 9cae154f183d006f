// Why the refresh did or did not fire (autoref-protocol.md, measured after its pilot; nothing is
// chosen from it): the empty first `--empty` seconds of each A session of pilot-autoref.mjs,
// without the locator. Per link and second: still by the detector's criterion, its change against
// the reference (after the locator's gain per chain), and sense.room's state; the longest run of
// seconds each guard alone, and all three together, would let a stretch count.
// Usage (package built), from the repository root:
//   nice node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-autoref-why.mjs [--rooms 6] [--seed wiflow-autoref-val-1] [--empty 120] > /tmp/autoref-why.json
import os from 'node:os';
import * as sim from '@wiflow/plugin-sim';
import { DEFAULT_SENSING_MODELS, LinkSensor, SensingConfigSchema, combineRoomSecond, sensingConfigHash } from '@wiflow/plugin-sensing';
import { DatasetRecipeSchema, ReferenceStaleness, SHIPPED_LOCATOR_DIR, loadLocatorModel, readModelSpec, SHIPPED_MODEL_DIR, simulateReference, withRealism } from '@wiflow/plugin-pose-tfjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const ROOMS = Number(opt('--rooms', '6')), SEED = opt('--seed', 'wiflow-autoref-val-1'), EMPTY = Number(opt('--empty', '120'));
const started = process.cpuUsage(), wallStart = Date.now(), loadBefore = os.loadavg();
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const base = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
const recipe = withRealism(base, 'v2', ['drift']);
const fresh = sim.planDataset({ rooms: ROOMS, secondsPerSession: base.secondsPerSession, sessionsPerRoom: 1, seed: SEED, split: { train: 0, val: 1, test: 0 }, ranges: recipe.ranges }).sessions;
const CAP = 50;
const longest = (flags) => { let best = 0, run = 0; for (const f of flags) { run = f ? run + 1 : 0; best = Math.max(best, run); } return best; };
const rows = [];
for (const session of fresh) {
  const drawn = sim.validateScenario(session.scenario);
  const { drift, people: _p, ...rest } = drawn;
  const scenario = sim.validateScenario({ ...rest, drift: { moved: [], replugged: [], staticDrift: drift.staticDrift }, people: [] });
  const reference = simulateReference(sim, scenario);
  const staleness = new ReferenceStaleness(reference, {}, model.spec.imaging.staticChainGain ?? null);
  const config = SensingConfigSchema.parse({}), configHash = sensingConfigHash(config, DEFAULT_SENSING_MODELS);
  const sensors = new Map(), pending = new Map(), sensed = [], perLink = new Map();
  let start = null;
  for (const tick of new sim.Simulator(scenario).run(EMPTY)) {
    start ??= tick.time;
    for (const frame of tick.frames) {
      const key = `${frame.link.tx}->${frame.link.rx}`;
      let sensor = sensors.get(key);
      if (!sensor) sensors.set(key, (sensor = new LinkSensor(frame.link, { environmentId: scenario.environmentId, config, models: DEFAULT_SENSING_MODELS, configHash })));
      for (const f of sensor.push(frame)) {
        const got = [...(pending.get(f.second) ?? []), f];
        pending.set(f.second, got);
        if (got.length === scenario.radios.filter((r) => r.role === 'rx').length * scenario.radios.filter((r) => r.role === 'tx').length) { sensed.push({ t: Math.floor((combineRoomSecond(got).time - start) / 1000), state: combineRoomSecond(got).state }); pending.delete(f.second); }
      }
      const second = staleness.push(frame);
      if (second) { const list = perLink.get(second.link) ?? []; list.push({ t: Math.floor((second.time - start) / 1000), still: second.still, change: second.chainAlignedChangeNoiseFloors ?? second.changeNoiseFloors }); perLink.set(second.link, list); }
    }
  }
  const emptyAt = new Map(sensed.map((s) => [s.t, s.state === 'empty']));
  const links = [...perLink].map(([link, seconds]) => {
    const changes = seconds.filter((s) => s.change !== null).map((s) => s.change).sort((a, b) => a - b);
    return {
      link, seconds: seconds.length,
      stillFraction: +(seconds.filter((s) => s.still).length / seconds.length).toFixed(3),
      medianChange: changes.length ? +changes[Math.floor(changes.length / 2)].toFixed(1) : null,
      longestStill: longest(seconds.map((s) => s.still)),
      longestUnderCap: longest(seconds.map((s) => s.change !== null && s.change <= CAP)),
      longestSensingEmpty: longest(seconds.map((s) => emptyAt.get(s.t) === true)),
      longestAllThree: longest(seconds.map((s) => s.still && s.change !== null && s.change <= CAP && emptyAt.get(s.t) === true)),
    };
  });
  const states = { empty: 0, still: 0, moving: 0 };
  for (const s of sensed) states[s.state]++;
  rows.push({ session: session.sessionId, staticDrift: drift.staticDrift, sensingStates: states, links });
  process.stderr.write(`${session.sessionId}: sensing ${JSON.stringify(states)}; ${links.map((l) => `${l.link} still ${l.stillFraction} change ${l.medianChange} runs still/cap/empty/all ${l.longestStill}/${l.longestUnderCap}/${l.longestSensingEmpty}/${l.longestAllThree}`).join('; ')}\n`);
}
const cpu = process.cpuUsage(started);
process.stdout.write(JSON.stringify({ command: `node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-autoref-why.mjs --rooms ${ROOMS} --seed ${SEED} --empty ${EMPTY}`, split: 'val (fresh)', cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1), wallSeconds: +((Date.now() - wallStart) / 1000).toFixed(1), loadBefore: loadBefore.map((v) => +v.toFixed(2)), loadAfter: os.loadavg().map((v) => +v.toFixed(2)), rows }, null, 1) + '\n');
