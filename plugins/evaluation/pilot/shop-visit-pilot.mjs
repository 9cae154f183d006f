// Shop-visit pilot (issue 21, branch shopvisit): why tracker.track's held-evidence gate
// (upstream_min_evidence 0.5, window 10 s; opt-in, off by default) loses shop visitors.
// Runs eval-e2e's flow (sim.source → pose.locate → tracker.track → retail.analytics) over fresh
// VALIDATION shops (validation-shops.mjs; never the test shop) with two tracker branches fed by the
// same pose.locate frames, gate off and gate on (and `extra` options on top of the gate, if given),
// and keeps per estimate pose.locate's persons (id, position, evidence), each branch's persons (id,
// status) and the simulator's truth. Writes the record as JSON; shop-visit-report.mjs reads it.
// Run from the repository root after a build:
//   nice node plugins/evaluation/pilot/shop-visit-pilot.mjs <out.json> [seconds=150] [seeds=7201,7202,7203,7204] ['{"extra":"options"}']
// CANDIDATE=1 (shop-visit-protocol.md): branches gate off, gate on, and gate on with retail's
// count_held_seconds (candidate A); the first two with it off. Candidate A did not win and is not
// shipped: CANDIDATE=1 runs only on commit 05f862b, where retail.analytics has the option. Candidate B
// (round 2, the `extra` branch with '{"upstream_evidence_refound_m":3}') needs commit 7fc5fa1, likewise. ROOMS=<fresh seed>: instead of shops,
// `seeds` many fresh validation rooms (pilot-sessions.mjs) emptied, each under fan-cat-door and drift.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { createTestRuntime } from '@wiflow/core/testing';
import posePlugin from '@wiflow/plugin-pose-tfjs';
import retailPlugin from '@wiflow/plugin-retail';
import simPlugin from '@wiflow/plugin-sim';
import trackerPlugin from '@wiflow/plugin-tracker';
import { endToEndFlow } from '@wiflow/plugin-evaluation';
import { validationShop, VALIDATION_SHOP_SEEDS } from './validation-shops.mjs';

const [out, secondsArg, seedsArg, extraArg] = process.argv.slice(2);
if (!out) throw new Error('usage: shop-visit-pilot.mjs <out.json> [seconds] [seeds] [extra options JSON]');
const seconds = Number(secondsArg ?? 150);
const seeds = process.env.ROOMS ? [process.env.ROOMS] : seedsArg ? seedsArg.split(',').map(Number) : VALIDATION_SHOP_SEEDS;
const GATE_ON = { upstream_min_evidence: 0.5, upstream_evidence_window_s: 10 };
const HELD_OFF = { count_held_seconds: false };
const branches = process.env.CANDIDATE === '1'
  ? { off: { tracker: {}, retail: HELD_OFF }, on: { tracker: GATE_ON, retail: HELD_OFF }, candidate: { tracker: GATE_ON, retail: { count_held_seconds: true } } }
  : { off: { tracker: {}, retail: {} }, on: { tracker: GATE_ON, retail: {} }, ...(extraArg ? { extra: { tracker: { ...GATE_ON, ...JSON.parse(extraArg) }, retail: {} } } : {}) };

const r2 = (v) => Math.round(v * 100) / 100;
const persons = (frame, withEvidence) => frame.persons.map((p) => [p.trackId ?? null, r2(p.position.x), r2(p.position.y), withEvidence ? (p.evidence === undefined || p.evidence === null ? null : r2(p.evidence)) : p.trackStatus ?? null]);

/** One shop: the flow with one tracker and retail branch per setting, all fed the same pose.locate frames. */
async function runShop(scenario) {
  const flow = endToEndFlow(scenario, seconds, scenario.zones, undefined, {});
  const zones = flow.nodes.find((n) => n.id === 'retail').data.config.zones;
  flow.nodes = flow.nodes.filter((n) => n.id === 'sim' || n.id === 'estimate');
  flow.edges = flow.edges.filter((e) => e.source === 'sim');
  const node = (id, nodeType, config) => flow.nodes.push({ id, type: 'wiflow', position: { x: 0, y: 0 }, data: { nodeType, config } });
  const edge = (source, sourceHandle, target, targetHandle) => flow.edges.push({ id: `${source}.${sourceHandle}-${target}.${targetHandle}`, source, sourceHandle, target, targetHandle });
  node('located', 'io.output', { name: 'located', collect: 'all' });
  edge('estimate', 'poses', 'located', 'value');
  for (const [name, options] of Object.entries(branches)) {
    node(`track-${name}`, 'tracker.track', options.tracker);
    node(`retail-${name}`, 'retail.analytics', { zones, ...options.retail });
    node(`poses-${name}`, 'io.output', { name: `poses_${name}`, collect: 'all' });
    node(`metrics-${name}`, 'io.output', { name: `retail_${name}`, collect: 'last' });
    edge('estimate', 'poses', `track-${name}`, 'poses');
    edge(`track-${name}`, 'poses', `poses-${name}`, 'value');
    edge(`track-${name}`, 'poses', `retail-${name}`, 'poses');
    edge(`retail-${name}`, 'metrics', `metrics-${name}`, 'value');
  }
  const runtime = await createTestRuntime({ plugins: [simPlugin, posePlugin, trackerPlugin, retailPlugin] });
  try {
    const job = await runtime.runJob(flow, { timeoutMs: 3_600_000 }).catch((e) => { throw new Error(`${e.message}: ${JSON.stringify(e.details ?? e.problems ?? e.cause ?? null)}`); });
    const result = await job.done;
    if (result.status !== 'completed') throw new Error(`${scenario.name}: ${result.error ?? result.status}`);
    const located = result.outputs.located;
    const start = located[0]?.timestamp ?? 0;
    const byTime = (frames) => new Map(frames.map((f) => [f.timestamp, f]));
    const tracked = Object.fromEntries(Object.keys(branches).map((b) => [b, byTime(result.outputs[`poses_${b}`])]));
    return {
      seed: scenario.seed,
      environmentId: scenario.environmentId,
      people: scenario.people,
      retail: Object.fromEntries(Object.keys(branches).map((b) => [b, result.outputs[`retail_${b}`]?.metrics.traffic.total_visitors ?? 0])),
      // Per estimate: t (s from the first), truth [id, x, y], located [upstream id, x, y, evidence], per branch [track id, x, y, status].
      estimates: located.map((f) => ({
        t: r2((f.timestamp - start) / 1000),
        truth: (f.truth?.persons ?? []).map((p) => [p.id, r2(p.position.x), r2(p.position.y)]),
        located: persons(f, true),
        ...Object.fromEntries(Object.keys(branches).map((b) => [b, tracked[b].has(f.timestamp) ? persons(tracked[b].get(f.timestamp), false) : null])),
      })),
    };
  } finally {
    await runtime.stop();
  }
}

const started = Date.now();
const cpu = process.cpuUsage();
const loadStart = os.loadavg()[0];
const shops = [];
if (process.env.ROOMS) {
  const { validationSessions } = await import('../../pose-tfjs/models/wiflow-locate-v2/pilot-sessions.mjs');
  const { emptiedScenario } = await import('@wiflow/plugin-evaluation');
  for (const session of validationSessions(Number(seedsArg ?? 3), { FRESH: process.env.ROOMS })) {
    for (const condition of ['fan-cat-door', 'drift']) {
      process.stderr.write(`room ${session.sessionId} emptied, ${condition} (${seconds} s)\n`);
      shops.push({ room: session.sessionId, condition, ...(await runShop(emptiedScenario(session.scenario, condition, seconds))) });
    }
  }
} else {
  for (const seed of seeds) {
    process.stderr.write(`shop ${seed} (${seconds} s)\n`);
    shops.push(await runShop(validationShop(seed)));
  }
}
const used = process.cpuUsage(cpu);
writeFileSync(out, JSON.stringify({
  split: 'val', seeds, seconds, branches,
  cpuSeconds: r2((used.user + used.system) / 1e6), wallSeconds: r2((Date.now() - started) / 1000),
  load: { start: r2(loadStart), end: r2(os.loadavg()[0]) },
  shops,
}));
process.stderr.write(`wrote ${out}\n`);
