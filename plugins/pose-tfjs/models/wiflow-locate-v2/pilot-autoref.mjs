// Pilot (issue 21 item 5, autoref-protocol.md): does the automatic empty-room reference refresh
// remove slow static drift's phantom after a person enters, and is a still person ever absorbed?
// FRESH validation rooms (seed wiflow-autoref-val-1, all `val`), realism v2's drift cut to the slow
// static drift as drawn. Per room: session A (empty 150 s, then one person enters, walks to the
// centre and sits (even rooms) / lies (odd rooms) still until 210 s) and session B (the person
// lies (even) / sits (odd) at the centre from 0 s). Arms on the same frames: off (no refresh),
// LS (judges: locator and sensing), S (judge: sensing only).
// Usage (package built), from the repository root:
//   nice node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-autoref.mjs [--rooms 8] [--seed wiflow-autoref-val-1] [--empty 150] [--total 210] [--only A|B] [--from 0] [--arms off,LS,S] > /tmp/autoref-pilot.json
import os from 'node:os';
import * as sim from '@wiflow/plugin-sim';
import { DEFAULT_SENSING_MODELS, LinkSensor, SensingConfigSchema, combineRoomSecond, sensingConfigHash } from '@wiflow/plugin-sensing';
import { DatasetRecipeSchema, PoseLocator, ReferenceRefresh, ReferenceStaleness, SHIPPED_LOCATOR_DIR, environmentFromScenario, evaluateSamples, loadLocatorModel, readModelSpec, SHIPPED_MODEL_DIR, simulateReference, withRealism } from '@wiflow/plugin-pose-tfjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : fallback; };
const ROOMS = Number(opt('--rooms', '8'));
const SEED = opt('--seed', 'wiflow-autoref-val-1');
const EMPTY = Number(opt('--empty', '150'));
const TOTAL = Number(opt('--total', '210'));
const ONLY = opt('--only', 'AB');
// --from: start at that room of the seed (its index keeps deciding sit or lie), to split a run over two processes.
const FROM = Number(opt('--from', '0'));
const started = process.cpuUsage();
const wallStart = Date.now();
const loadBefore = os.loadavg();
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const threshold = model.spec.presenceThreshold;
const chainGain = model.spec.imaging.staticChainGain ?? null;
const REFRESH = { enabled: true, emptySeconds: 60, maxChangeNoiseFloors: 50, packetsPerSecond: 10 };

const base = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
const recipe = withRealism(base, 'v2', ['drift']);
const shipped = new Set(sim.planDataset({ rooms: base.rooms, secondsPerSession: base.secondsPerSession, sessionsPerRoom: base.sessionsPerRoom, seed: base.seed, ranges: base.ranges }).sessions.map((s) => s.roomSignature));
const fresh = sim.planDataset({ rooms: ROOMS, secondsPerSession: base.secondsPerSession, sessionsPerRoom: 1, seed: SEED, split: { train: 0, val: 1, test: 0 }, ranges: recipe.ranges }).sessions;
const clash = fresh.find((s) => shipped.has(s.roomSignature));
if (clash) throw new Error(`fresh room ${clash.roomId} is a room of the shipped plan`);

/** The session's room with only its static drift, and one person as the session asks. */
function build(session, i, kind) {
  const drawn = sim.validateScenario(session.scenario);
  const { drift, people, ...rest } = drawn;
  const { width: W, depth: D } = drawn.room;
  const rx = drawn.radios.find((r) => r.role === 'rx').position;
  const centre = [Math.round(W * 50) / 100, Math.round(D * 50) / 100];
  const who = { id: 1, height: people[0]?.height ?? 1.72, girth: people[0]?.girth ?? 1 };
  const entry = [rx[0] < W / 2 ? W - 0.3 : 0.3, rx[1] < D / 2 ? D - 0.3 : 0.3].map((v) => Math.round(v * 100) / 100);
  const sits = (kind === 'A') === (i % 2 === 0);
  const rest_ = sits ? { action: 'sit', duration: TOTAL } : { action: 'lie', duration: TOTAL, side: 'back' };
  const person = kind === 'A'
    ? { ...who, script: [{ action: 'absent', duration: EMPTY }, { action: 'enter', at: entry }, { action: 'walk', path: [centre], speed: 0.9 }, rest_] }
    : { ...who, start: { x: centre[0], y: centre[1], yawDeg: 0 }, script: [rest_] };
  return { scenario: sim.validateScenario({ ...rest, drift: { moved: [], replugged: [], staticDrift: drift.staticDrift }, people: [person] }), posture: sits ? 'sit' : 'lie', staticDrift: drift.staticDrift };
}

/** One arm: a locator against its reference, and (with judges) the refresh that replaces it. */
function arm(name, environment, reference, judges) {
  const a = { name, locator: new PoseLocator(model, [environment], [reference], { densePose: 'none', processingMode: 'job' }), refresh: null, staleness: null, refreshes: [], estimates: [] };
  if (judges) {
    a.refresh = new ReferenceRefresh(reference, REFRESH, judges);
    a.staleness = new ReferenceStaleness(reference, {}, chainGain);
  }
  return a;
}

function run(scenario, kind, arms, sensed) {
  const environment = environmentFromScenario(scenario);
  const reference = simulateReference(sim, scenario);
  const list = arms.map(([name, judges, locate]) => ({ ...arm(name, environment, reference, judges), locate }));
  const config = SensingConfigSchema.parse({});
  const configHash = sensingConfigHash(config, DEFAULT_SENSING_MODELS);
  const sensors = new Map();
  const seconds = new Map();
  let start = null, present = false, sensingEmpty = 0, sensingSeconds = 0;
  /** A refresh made a new reference: the arm's locator and detector use it from now on. */
  const swap = (a, next, frame, link) => {
    a.refreshes.push({ at: (frame.time - start) / 1000, link: link ?? a.refresh.state().version, version: a.refresh.state().version, present });
    a.locator.useReference(next);
    a.staleness = new ReferenceStaleness(next, {}, chainGain);
  };
  for (const tick of new sim.Simulator(scenario).run(TOTAL)) {
    start ??= tick.time;
    for (const frame of tick.frames) {
      if (frame.truth) present = frame.truth.persons.length > 0;
      if (sensed) {
        const key = `${frame.link.tx}->${frame.link.rx}`;
        let sensor = sensors.get(key);
        if (!sensor) sensors.set(key, (sensor = new LinkSensor(frame.link, { environmentId: scenario.environmentId, config, models: DEFAULT_SENSING_MODELS, configHash })));
        for (const f of sensor.push(frame)) {
          const got = seconds.get(f.second) ?? [];
          got.push(f);
          seconds.set(f.second, got);
          if (got.length === environment.links.length) {
            const room = combineRoomSecond(got);
            seconds.delete(f.second);
            sensingSeconds++;
            if (room.state === 'empty') sensingEmpty++;
            for (const a of list) { const next = a.refresh?.judge('sensing', room.time, room.state === 'empty'); if (next) swap(a, next, frame, null); }
          }
        }
      }
      for (const a of list) {
        if (a.refresh) {
          a.refresh.push(frame);
          const second = a.staleness.push(frame);
          const next = second && a.refresh.second(second);
          if (next) swap(a, next, frame, second.link);
          if (second) a.longestStretch = Math.max(a.longestStretch ?? 0, ...a.refresh.state().links.map((l) => l.stretchSeconds));
        }
        if (!a.locate) continue;
        const instant = a.locator.locate(frame);
        if (!instant) continue;
        const reported = instant.hypotheses.filter((h) => h.presence > threshold).length;
        const judged = a.refresh?.judge('locator', instant.time, reported === 0);
        if (judged) swap(a, judged, frame, null);
        a.estimates.push({ t: (instant.time - start) / 1000, reported, truth: instant.truth?.persons ?? [], predicted: instant.hypotheses });
      }
    }
  }
  return list.map((a) => {
    const absorbed = a.refreshes.some((r) => r.present);
    if (kind === 'B' || !a.locate) return { arm: a.name, refreshes: a.refreshes, absorbed, longestStretch: a.longestStretch ?? 0, meanReported: a.locate ? mean(a.estimates.map((e) => e.reported)) : null };
    const after = a.estimates.filter((e) => e.truth.length > 0);
    const emptyStretch = a.estimates.filter((e) => e.t >= 60 && e.truth.length === 0);
    const samples = after.map((e) => ({ environment, truth: e.truth, predicted: e.predicted, presenceThreshold: threshold }));
    const scored = samples.length ? evaluateSamples(samples, model.spec.meanPose).model['1'] : null;
    return {
      arm: a.name, refreshes: a.refreshes, absorbed, longestStretch: a.longestStretch ?? null,
      emptyReported: mean(emptyStretch.map((e) => e.reported)),
      afterPhantoms: mean(after.map((e) => Math.max(0, e.reported - e.truth.length))),
      afterCountExact: mean(after.map((e) => (e.reported === e.truth.length ? 1 : 0))),
      afterFloorErrorM: scored?.floorErrorM ?? null,
      afterEstimates: after.length,
      sensingEmptyFraction: sensed ? +(sensingEmpty / Math.max(1, sensingSeconds)).toFixed(3) : null,
    };
  });
}

const mean = (v) => (v.length ? +(v.reduce((a, b) => a + b, 0) / v.length).toFixed(3) : null);
const rows = [];
for (const [i, session] of fresh.entries()) {
  if (i < FROM) continue;
  for (const kind of ['A', 'B']) {
    if (!ONLY.includes(kind)) continue;
    const { scenario, posture, staticDrift } = build(session, i, kind);
    const t0 = Date.now();
    // B: the off arm is not needed (nothing to compare before a refresh) and S's locator is not asked.
    // B: S alone is enough to show absorption (LS needs sensing's "empty" for every second too, so it counts no second S does not); --b-locator adds LS.
    const armsA = [['off', null, true], ['LS', ['locator', 'sensing'], true], ['S', ['sensing'], true]].filter(([name]) => opt('--arms', 'off,LS,S').split(',').includes(name));
    const arms = kind === 'A' ? armsA : [...(args.includes('--b-locator') ? [['LS', ['locator', 'sensing'], true]] : []), ['S', ['sensing'], false]];
    const result = run(scenario, kind, arms, true);
    rows.push({ session: session.sessionId, kind, posture, staticDrift, wallSeconds: (Date.now() - t0) / 1000, arms: result });
    process.stderr.write(`${session.sessionId} ${kind} ${posture}: ${result.map((r) => `${r.arm} refreshes ${r.refreshes.length}${r.refreshes.length ? ` (first ${r.refreshes[0].at.toFixed(0)} s)` : ''}${r.absorbed ? ' ABSORBED' : ''} longest ${r.longestStretch} empty ${r.emptyReported ?? r.meanReported} phantoms ${r.afterPhantoms} count ${r.afterCountExact} floor ${r.afterFloorErrorM?.toFixed?.(2)}`).join(' | ')} (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
  }
}
const summary = {};
for (const name of ['off', 'LS', 'S']) {
  const a = rows.filter((r) => r.kind === 'A').map((r) => r.arms.find((x) => x.arm === name)).filter(Boolean);
  const all = rows.map((r) => r.arms.find((x) => x.arm === name)).filter(Boolean);
  summary[name] = {
    absorbedSessions: all.filter((x) => x.absorbed).length, sessions: all.length,
    refreshedSessionsA: a.filter((x) => x.refreshes.length).length,
    emptyReported: mean(a.map((x) => x.emptyReported).filter((v) => v !== null)),
    afterPhantoms: mean(a.map((x) => x.afterPhantoms).filter((v) => v !== null)),
    afterCountExact: mean(a.map((x) => x.afterCountExact).filter((v) => v !== null)),
    afterFloorErrorM: mean(a.map((x) => x.afterFloorErrorM).filter((v) => v !== null)),
  };
}
const cpu = process.cpuUsage(started);
process.stdout.write(JSON.stringify({
  command: `node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-autoref.mjs --rooms ${ROOMS} --seed ${SEED} --empty ${EMPTY} --total ${TOTAL}`,
  split: 'val (fresh)', seed: SEED, rooms: fresh.map((s) => s.sessionId), refresh: REFRESH, locator: { version: model.spec.version, hash: model.hash.slice(0, 12) },
  cpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1), wallSeconds: +((Date.now() - wallStart) / 1000).toFixed(1),
  loadBefore: loadBefore.map((v) => +v.toFixed(2)), loadAfter: os.loadavg().map((v) => +v.toFixed(2)),
  summary, rows,
}, null, 1) + '\n');
