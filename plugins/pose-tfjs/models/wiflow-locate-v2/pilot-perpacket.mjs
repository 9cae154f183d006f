// Issue 21 per-packet breathing pilot, VALIDATION rooms only (FINDINGS.md, "Breathing per packet at the
// position"; a pilot, nothing ships).
//
// QUESTION. "Breathing at the peak" found no breathing in the locator's per-estimate energies (AUC 0.32):
// one energy per 8 packets at ~4 Hz is too coarse for a chest's millimetres. Does the PER-PACKET complex
// change (each packet aligned to the empty-room reference exactly as the locator's imager does it: the
// `StaticChainGain` of the shipped settings where it answers, else `referenceChange` with the reference's
// gain model; minus the reference; rotated by the link's calibration, `calibrate` of calibrated-link.ts),
// back-projected to a track's confirmed position with the locator's own steering (the matched filter of
// imager.ts: e^{+j2π f_k L / c} over every antenna pair and subcarrier, L the path tx → (x, y, h) → rx from
// `calibratedLink`'s element positions and frequencies, h the shipped `heightsM`), carry breathing at
// 20 Hz for still people and not for the phantoms of a fan, a cat, a door and drift?
//
// MEASURE (primary, declared and committed before any result was read): per confirmed track, the 20 s of
// packets before its confirmation (the tracker replayed over the untracked estimates exactly as
// pilot-breathing.mjs's POSITION mode, `positionWindowsOf`), each link's back-projected complex series
// s_l(t) at the confirmed position; per link its window mean removed and the (Re, Im) plane projected on
// its principal direction (a chest's phase modulation of a static reflection moves s_l along one
// direction); the links as channels of the sensing's own estimator `breathingSpectrumPeak`
// (@wiflow/plugin-sensing, imported; 6–27 bpm); score = its quality (in-band peak over median).
// AUC of still people (a true person within 1 m for most of the window, standing, sitting or lying in
// ≥ 80 % of it; pilot-breathing-windows.mjs's `groupOf`) against ALL phantoms (drift, near the fan, the
// cat, the door, and farther than 1 m from all three). BAR: AUC ≥ 0.8 says per-packet breathing at the
// position is worth building into the tracker's confirmation; below, it is a negative result.
// Secondary readings (declared alongside, cannot change the answer): the same quality set to 0 where the
// estimator flags the band's edge or a comb; the unwrapped phase of s_l as the channels; each kind of
// phantom alone; the window's dynamic power at the position in noise units (var of s_l over the
// reference's noise power × values per packet); white noise's quality for the same shape.
// POST HOC (added after the first run's results were read, to explain them; they cannot change the
// answer): the locator's own per-estimate explained energy at the position over the same window (the
// window mean of pilot-breathing.mjs's links sum) as a baseline for the dynamic power, and the share of
// the window in which the person is still (`stillShare`), to read the quality of windows still throughout.
//
// ROOMS (validation, "seen": used by the distract and breathing pilots; no fresh seed is used): people:
// the first PEOPLE rooms of the recipe's `val` split planned with 60 s sessions (`validationSessions`
// with PEOPLE_SECONDS=60, as pilot-breathing.mjs's people cache); installer: the first INSTALLER `val`
// rooms emptied for 60 s under `fan-cat-door` and `drift` (`emptiedScenario`, as pilot-distract-cache.mjs).
// The caches hold no packets, so the rooms are simulated again here; every run's windows are appended to
// <out>.jsonl as they come (a partial run still scores), the summary goes to <out>.json.
//
// Run from the repository root after a build, under nice:
//   nice node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-perpacket.mjs /tmp/perpacket-run [people=8] [installer=8]
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-perpacket.mjs --summarize /tmp/perpacket-run
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import * as sim from '@wiflow/plugin-sim';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR, simulateReference, environmentFromScenario } from '@wiflow/plugin-pose-tfjs';
import { emptiedScenario } from '@wiflow/plugin-evaluation';
import { breathingSpectrumPeak } from '@wiflow/plugin-sensing';
import { calibratedLink, calibrate, referenceChange } from '../../dist/locate/calibrated-link.js';
import { StaticChainGain } from '../../dist/locate/static-chain-gain.js';
import { SPEED_OF_LIGHT } from '../../dist/locate/calibration.js';
import { validationSessions } from './pilot-sessions.mjs';
import { locatorEstimates } from './pilot-locate-run.mjs';
import { positionWindowsOf, groupOf, auc, quantile, isStill, isPhantom, STILL } from './pilot-breathing-windows.mjs';

const W = 20; // s before confirmation
const BAND = [6, 27]; // bpm: 0.1–0.45 Hz
const MEASURES = ['principal', 'principalGated', 'phase'];

/**
 * Per link, what the imager keeps of every packet: its calibrated change against the empty room
 * (imager.ts `push`: the packet interval rule, the static chain gain where it answers, else the
 * reference's alignment, minus the reference, the link's calibration).
 */
function packetRecorder(environment, reference, settings) {
  const links = new Map(environment.links.map((link) => {
    const cal = calibratedLink(environment, reference, link, 'pilot-perpacket');
    const staticGain = settings.staticChainGain && cal.reference.gain === 'common' && settings.chainGain !== 'per-rx-chain' ? new StaticChainGain(cal.h0, cal.subcarriers, cal.reference.nrx, settings.staticChainGain.windowS, settings.staticChainGain.minDeviation) : null;
    return [cal.key, { cal, staticGain, lastKeptMs: -Infinity, packets: [] }];
  }));
  const interval = settings.minPacketIntervalS;
  return {
    links,
    push(frame) {
      const link = links.get(`${frame.link.tx}->${frame.link.rx}`);
      if (!link) return;
      if (interval !== undefined && frame.time - link.lastKeptMs < interval * 1000 && frame.time >= link.lastKeptMs) return;
      link.lastKeptMs = frame.time;
      const held = link.staticGain?.align(frame.csi, frame.time);
      let change;
      if (held) { for (let j = 0; j < link.cal.n; j++) { held.re[j] -= link.cal.h0.re[j]; held.im[j] -= link.cal.h0.im[j]; } change = held; }
      else change = referenceChange(link.cal, frame.csi, settings.chainGain === 'per-rx-chain' ? 'per-rx-chain' : link.cal.reference.gain);
      link.packets.push({ t: frame.time / 1000, ...calibrate(link.cal, change) });
    },
  };
}

/** The link's conjugate steering at (x, y, h) as the imager's matched filter uses it: e^{+j2π f_k L / c}. */
function steeringAt(cal, x, y, h) {
  const re = new Float64Array(cal.n), im = new Float64Array(cal.n);
  for (let t = 0; t < cal.txE.length; t++) {
    const dt = Math.hypot(x - cal.txE[t][0], y - cal.txE[t][1], h - cal.txE[t][2]);
    for (let r = 0; r < cal.rxE.length; r++) {
      const L = dt + Math.hypot(x - cal.rxE[r][0], y - cal.rxE[r][1], h - cal.rxE[r][2]);
      for (let k = 0; k < cal.nsc; k++) {
        const a = (2 * Math.PI * cal.fk[k] * L) / SPEED_OF_LIGHT;
        const j = (t * cal.rxE.length + r) * cal.nsc + k;
        re[j] = Math.cos(a); im[j] = Math.sin(a);
      }
    }
  }
  return { re, im };
}

/** Each link's back-projected complex series over (t0, t1] at (x, y), heights' matched-filter outputs added. */
function backProjected(recorder, heights, x, y, t0, t1) {
  return [...recorder.links.values()].map((link) => {
    const steer = heights.map((h) => steeringAt(link.cal, x, y, h));
    const win = link.packets.filter((p) => p.t > t0 && p.t <= t1);
    const re = new Float64Array(win.length), im = new Float64Array(win.length);
    win.forEach((p, i) => {
      for (const a of steer) for (let j = 0; j < link.cal.n; j++) { re[i] += p.re[j] * a.re[j] - p.im[j] * a.im[j]; im[i] += p.re[j] * a.im[j] + p.im[j] * a.re[j]; }
    });
    return { re, im, t: win.map((p) => p.t), noise: link.cal.reference.noisePower * link.cal.n * heights.length };
  });
}

/** The (Re, Im) series of one link, window mean removed, projected on its principal direction. */
function principal({ re, im }) {
  const n = re.length;
  let mr = 0, mi = 0;
  for (let i = 0; i < n; i++) { mr += re[i]; mi += im[i]; }
  mr /= n; mi /= n;
  let a = 0, b = 0, c = 0;
  for (let i = 0; i < n; i++) { const u = re[i] - mr, v = im[i] - mi; a += u * u; b += u * v; c += v * v; }
  const angle = 0.5 * Math.atan2(2 * b, a - c);
  const cu = Math.cos(angle), cv = Math.sin(angle);
  return { series: Float64Array.from({ length: n }, (_, i) => (re[i] - mr) * cu + (im[i] - mi) * cv), variance: (a + c) / n };
}

/** The unwrapped phase of one link's series. */
function phase({ re, im }) {
  const out = new Float64Array(re.length);
  let last = 0;
  for (let i = 0; i < re.length; i++) {
    let p = Math.atan2(im[i], re[i]);
    if (i > 0) { while (p - last > Math.PI) p -= 2 * Math.PI; while (p - last < -Math.PI) p += 2 * Math.PI; }
    out[i] = p; last = p;
  }
  return out;
}

/** The measures of one window: the links' back-projected series through the sensing's estimator. */
function measure(series) {
  const length = Math.min(...series.map((s) => s.re.length));
  if (length < 8) return null;
  const tail = series.map((s) => ({ re: s.re.subarray(s.re.length - length), im: s.im.subarray(s.im.length - length), t: s.t.slice(s.t.length - length), noise: s.noise }));
  const rate = (length - 1) / (tail[0].t.at(-1) - tail[0].t[0]);
  const pcs = tail.map(principal);
  const p = breathingSpectrumPeak(pcs.map((x) => x.series), length, rate, BAND[0], BAND[1]);
  const ph = breathingSpectrumPeak(tail.map(phase), length, rate, BAND[0], BAND[1]);
  const dynamic = pcs.reduce((s, x, i) => s + x.variance / tail[i].noise, 0);
  return { links: series.length, packets: length, rate, principal: p?.quality ?? 0, principalGated: p && !p.edge && !p.comb ? p.quality : 0, bpm: p?.bpm ?? null, edge: p?.edge ?? null, comb: p?.comb ?? null, phase: ph?.quality ?? 0, dynamic };
}

/** Every window of one simulated run: the locator's estimates, the packets kept, the tracker replayed. */
function runWindows(model, kind, id, scenario, seconds) {
  const environment = environmentFromScenario(scenario);
  const reference = simulateReference(sim, scenario);
  const recorder = packetRecorder(environment, reference, model.spec.imaging);
  const estimates = locatorEstimates(model, scenario, seconds, { environment, reference, onFrame: (f) => recorder.push(f) });
  const run = { kind, id, cache: { tracker: model.spec.tracker, maxPersons: model.spec.imaging.maxPersons }, estimates };
  const rows = [];
  for (const w of positionWindowsOf(run, W)) {
    const inWindow = w.samples.filter((s) => s.t > w.t - W);
    const group = groupOf(kind, inWindow);
    if (w.t - w.start < W) { rows.push({ run: `${kind} ${id}`, track: w.id, group, short: true }); continue; }
    const m = measure(backProjected(recorder, model.spec.imaging.heightsM, w.x, w.y, w.t - W, w.t));
    const explained = inWindow.reduce((sum, x) => sum + x.links.reduce((a, v) => a + v, 0), 0) / inWindow.length;
    const stillShare = inWindow.filter((x) => STILL.has(x.person?.activity)).length / inWindow.length;
    rows.push({ run: `${kind} ${id}`, track: w.id, group, x: w.x, y: w.y, t: w.t, short: !m, ...m, explained, stillShare });
  }
  return rows;
}

/** White noise through the estimator in the windows' shape (links × packets at the rate). */
function whiteNoise(links, length, rate, draws = 1000) {
  let seed = 12345;
  const uniform = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return (seed + 0.5) / 2147483648; };
  const gauss = () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  return Array.from({ length: draws }, () => breathingSpectrumPeak(Array.from({ length: links }, () => Float64Array.from({ length }, gauss)), length, rate, BAND[0], BAND[1])?.quality ?? 0);
}

/** The distributions per group and the AUCs of still people against the phantoms. */
function summarize(rows) {
  const f2 = (v) => (v === null || v === undefined || Number.isNaN(v) ? '—' : v.toFixed(2));
  const scored = rows.filter((r) => !r.short);
  const groups = [...new Set(rows.map((r) => r.group))].sort();
  const out = { window: W, band: BAND, groups: {}, aucs: {} };
  console.log(`\n20 s of packets up to each track's confirmation, back-projected at its position (quality = in-band peak over median)`);
  console.log('| group | tracks with ≥ 20 s | shorter | principal: quality p10 / p50 / p90 | phase: quality p50 | bpm p50 | at the band edge | dynamic at the position (noise units) p50 |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const g of groups) {
    const x = scored.filter((r) => r.group === g);
    const q = (k, p) => quantile(x.map((r) => r[k]).filter((v) => v !== null), p);
    const shorter = rows.filter((r) => r.group === g && r.short).length;
    out.groups[g] = { tracks: x.length, shorter, principal: [0.1, 0.5, 0.9].map((p) => q('principal', p)), phase: q('phase', 0.5), bpm: q('bpm', 0.5), edge: x.length ? x.filter((r) => r.edge).length / x.length : null, dynamic: q('dynamic', 0.5) };
    console.log(`| ${g} | ${x.length} | ${shorter} | ${f2(q('principal', 0.1))} / ${f2(q('principal', 0.5))} / ${f2(q('principal', 0.9))} | ${f2(q('phase', 0.5))} | ${f2(q('bpm', 0.5))} | ${x.length ? Math.round((100 * x.filter((r) => r.edge).length) / x.length) : '—'} % | ${f2(q('dynamic', 0.5))} |`);
  }
  const still = scored.filter((r) => isStill(r.group));
  const kinds = { 'all phantoms': (g) => isPhantom(g), drift: (g) => g === 'drift', 'near fan': (g) => g === 'near fan', 'near the cat': (g) => g === 'near pet', 'near door': (g) => g === 'near door', 'far from fan, cat, door': (g) => g.startsWith('far from'), 'people moving': (g) => g === 'person moving' };
  console.log(`\n| still people (${still.length}) against | tracks | AUC, principal (primary) | AUC, principal, 0 at edge or comb | AUC, phase | AUC, dynamic power |`);
  console.log('|---|---|---|---|---|---|');
  for (const [name, test] of Object.entries(kinds)) {
    const neg = scored.filter((r) => test(r.group));
    const a = [...MEASURES, 'dynamic'].map((k) => auc(still.map((r) => r[k]), neg.map((r) => r[k])));
    out.aucs[name] = { tracks: neg.length, ...Object.fromEntries([...MEASURES, 'dynamic'].map((k, i) => [k, a[i]])) };
    console.log(`| ${name} | ${neg.length} | ${f2(a[0])} | ${f2(a[1])} | ${f2(a[2])} | ${f2(a[3])} |`);
  }
  console.log(`\npost hoc: | still people against | tracks | AUC, the locator's explained energy (window mean) | AUC, dynamic power at the position |`);
  console.log('|---|---|---|---|');
  for (const [name, test] of Object.entries(kinds)) {
    const neg = scored.filter((r) => test(r.group));
    const a = ['explained', 'dynamic'].map((k) => auc(still.filter((r) => r[k] !== undefined).map((r) => r[k]), neg.filter((r) => r[k] !== undefined).map((r) => r[k])));
    out.aucs[name].explained = a[0];
    console.log(`| ${name} | ${neg.length} | ${f2(a[0])} | ${f2(a[1])} |`);
  }
  const throughout = still.filter((r) => r.stillShare === 1);
  out.stillThroughout = { tracks: throughout.length, principal: [0.1, 0.5, 0.9].map((p) => quantile(throughout.map((r) => r.principal), p)), auc: auc(throughout.map((r) => r.principal), scored.filter((r) => isPhantom(r.group)).map((r) => r.principal)) };
  console.log(`post hoc: still people still throughout the window: ${throughout.length}, principal quality p10 / p50 / p90 ${out.stillThroughout.principal.map(f2).join(' / ')}, AUC against all phantoms ${f2(out.stillThroughout.auc)}`);
  if (scored.length) {
    const noise = whiteNoise(Math.round(quantile(scored.map((r) => r.links ?? 0), 0.5)) || 3, Math.round(quantile(scored.map((r) => r.packets), 0.5)), quantile(scored.map((r) => r.rate), 0.5));
    out.whiteNoise = [0.1, 0.5, 0.9].map((p) => quantile(noise, p));
    console.log(`\nwhite noise, same shape (1,000 draws): quality p10 / p50 / p90 ${out.whiteNoise.map(f2).join(' / ')}`);
  }
  const primary = out.aucs['all phantoms']?.principal ?? null;
  out.verdict = primary === null ? 'no still people or no phantoms scored' : primary >= 0.8 ? `AUC ${primary.toFixed(2)} ≥ 0.8: separates` : `AUC ${primary.toFixed(2)} < 0.8: does not separate`;
  console.log(`\nprimary: ${out.verdict}`);
  return out;
}

const args = process.argv.slice(2);
if (args[0] === '--summarize') {
  const rows = readFileSync(`${args[1]}.jsonl`, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  writeFileSync(`${args[1]}.json`, `${JSON.stringify(summarize(rows), null, 1)}\n`);
} else {
  const [out, peopleArg, installerArg] = args;
  const peopleRooms = Number(peopleArg ?? 8), installerRooms = Number(installerArg ?? 8), seconds = 60;
  const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
  const people = validationSessions(peopleRooms, { PEOPLE_SECONDS: String(seconds) });
  const installer = validationSessions(installerRooms, {});
  writeFileSync(`${out}.jsonl`, '');
  const started = process.cpuUsage();
  const all = [];
  for (let i = 0; i < Math.max(peopleRooms, installerRooms); i++) {
    const runs = [];
    if (i < peopleRooms) runs.push(['people', people[i].sessionId, people[i].scenario]);
    if (i < installerRooms) for (const condition of ['fan-cat-door', 'drift']) runs.push([condition, installer[i].sessionId, emptiedScenario(installer[i].scenario, condition, seconds)]);
    for (const [kind, id, scenario] of runs) {
      process.stderr.write(`room ${i + 1}: ${id} ${kind}\n`);
      const rows = runWindows(model, kind, id, scenario, seconds);
      for (const r of rows) appendFileSync(`${out}.jsonl`, `${JSON.stringify(r)}\n`);
      all.push(...rows);
    }
  }
  const cpu = process.cpuUsage(started);
  const summary = summarize(all);
  summary.cpuSeconds = Math.round((cpu.user + cpu.system) / 1e5) / 10;
  summary.rooms = { people: peopleRooms, installer: installerRooms, seconds, split: 'val (PEOPLE_SECONDS=60 for people)' };
  console.log(`\n${summary.cpuSeconds} CPU-s`);
  writeFileSync(`${out}.json`, `${JSON.stringify(summary, null, 1)}\n`);
}
