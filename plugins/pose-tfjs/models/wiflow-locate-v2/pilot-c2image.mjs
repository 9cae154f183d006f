// Pilot of branch c2image (issue 21): with the reverberant body (C2) on, how much of a link's change does the
// locator's body forward model explain at the TRUE position and at the image's peak, and how much of C2's extra
// (diffuse) change can any single floor cell explain? Each one-person validation session is simulated twice in
// lockstep, C2 off and on (the diffuse draws have their own random streams, so the two differ by the diffuse
// paths only; checked with `CHECK=1`, which runs C2 with bodyDiffuse false as the "on" side), each through its
// own RoomImager with the shipped imaging; at every estimate the held changes are compared.
// Run from plugins/pose-tfjs after a build:
//   node models/wiflow-locate-v2/pilot-c2image.mjs [sessions] [seconds] > /tmp/c2image-pilot.json
// WHITEN=ρ adds, per side, an imager with `diffuseWhitening` {22 ns, ρ} and records its first peak's error and
// bistatic excess (after the candidates were measured: where whitening moves the peaks).
import * as sim from '@wiflow/plugin-sim';
import { loadLocatorModel, simulateReference, RoomImager } from '../../dist/index.js';
import { environmentFromScenario } from '../../dist/sim/environment-from-scenario.js';
import { DatasetRecipeSchema } from '../../dist/sim/recipe.js';
import { splitSessions } from '../../dist/sim/pose-dataset.js';

const maxSessions = Number(process.argv[2] ?? 8), seconds = Number(process.argv[3] ?? 16);
const C2 = { reverberation: { decayNs: 22, staticTail: false, bodyDiffuse: process.env.CHECK !== '1', bodyDirections: 'segment' } };
const model = loadLocatorModel();
const settings = model.spec.imaging;
const recipe = DatasetRecipeSchema.parse(model.spec.training.dataset);
const sessions = splitSessions(sim, recipe, { split: 'val' }).filter((s) => s.scenario.people.length === 1).slice(0, maxSessions);
const cpu0 = process.cpuUsage(), wall0 = Date.now();

const energy = (packets) => packets.reduce((s, x) => { let e = 0; for (let j = 0; j < x.re.length; j++) e += x.re[j] ** 2 + x.im[j] ** 2; return s + e; }, 0);
const minus = (a, b) => a.map((x, p) => ({ re: x.re.map((v, j) => v - b[p].re[j]), im: x.im.map((v, j) => v - b[p].im[j]) }));
// Per link, the energy each cell's span explains: powerByHeight's rows are scaled to √n (H rows per cell).
const explainedByCell = (imager, changes) => {
  const H = settings.heightsM.length, C = imager.cells.length;
  return imager.powerByHeight(changes).map((rows, l) => {
    const n = changes[l][0].re.length, out = new Float64Array(C);
    for (let c = 0; c < C; c++) for (let h = 0; h < H; h++) out[c] += rows[c * H + h] / n;
    return out;
  });
};
// The imager's first-peak score: Σ_links log(share of the link's image in the cell).
const scores = (byCell) => {
  const C = byCell[0].length, s = new Float64Array(C);
  for (const img of byCell) { const total = img.reduce((a, b) => a + b, 0) || 1; for (let c = 0; c < C; c++) s[c] += Math.log(img[c] / total + 1e-12); }
  return s;
};
const argmax = (a) => a.reduce((b, v, i) => (v > a[b] ? i : b), 0);
// Lag-1 coherence of a link's packets: |Σ x_pᴴ x_{p+1}| / Σ |x_p|² (1: the change repeats packet to packet).
const lagCoherence = (packets) => {
  let cr = 0, ci = 0, e = 0;
  for (let p = 0; p + 1 < packets.length; p++) {
    const x = packets[p], y = packets[p + 1];
    for (let j = 0; j < x.re.length; j++) { cr += x.re[j] * y.re[j] + x.im[j] * y.im[j]; ci += x.re[j] * y.im[j] - x.im[j] * y.re[j]; e += (x.re[j] ** 2 + x.im[j] ** 2 + y.re[j] ** 2 + y.im[j] ** 2) / 2; }
  }
  return e > 0 ? Math.hypot(cr, ci) / e : 0;
};
const pearson = (xs, ys) => {
  const n = xs.length, mx = xs.reduce((a, b) => a + b, 0) / n, my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0, sxx = 0, syy = 0;
  for (let i = 0; i < n; i++) { sxy += (xs[i] - mx) * (ys[i] - my); sxx += (xs[i] - mx) ** 2; syy += (ys[i] - my) ** 2; }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null;
};

const rows = [];
const rooms = [];
for (const session of sessions) {
  const off = session.scenario;
  const on = { ...off, propagation: { ...off.propagation, ...C2 } };
  const environment = environmentFromScenario(off);
  const reference = simulateReference(sim, off);
  const imagers = { off: new RoomImager(environment, reference, settings), on: new RoomImager(environment, reference, settings) };
  const whitenedSettings = { ...settings, diffuseWhitening: { decayNs: 22, diffuseToNoise: Number(process.env.WHITEN) } };
  const whitened = process.env.WHITEN ? { off: new RoomImager(environment, reference, whitenedSettings), on: new RoomImager(environment, reference, whitenedSettings) } : null;
  const cells = imagers.off.cells;
  const first = `${environment.links[0].tx}->${environment.links[0].rx}`;
  const runs = { off: new sim.Simulator(off).run(seconds)[Symbol.iterator](), on: new sim.Simulator(on).run(seconds)[Symbol.iterator]() };
  let since = 0;
  const roomRows = [];
  for (;;) {
    const a = runs.off.next(), b = runs.on.next();
    if (a.done || b.done) break;
    let due = false;
    a.value.frames.forEach((frame, i) => {
      const keptOff = imagers.off.push(frame);
      const keptOn = imagers.on.push(b.value.frames[i]);
      whitened?.off.push(frame);
      whitened?.on.push(b.value.frames[i]);
      if (keptOff !== keptOn) throw new Error('the two runs kept different packets');
      if (`${frame.link.tx}->${frame.link.rx}` === first && keptOff && ++since >= model.spec.hopPackets && imagers.off.ready()) { since = 0; due = true; }
    });
    // Only estimates with exactly one person in the room (a scripted person may be out of it).
    if (!due || a.value.truth.persons.length !== 1) continue;
    const truth = a.value.truth.persons[0];
    const heldOn = imagers.on.heldChanges();
    const held = { off: imagers.off.heldChanges().map((l) => l.packets), on: heldOn.map((l) => l.packets) };
    const diffuse = held.on.map((packets, l) => minus(packets, held.off[l]));
    const trueCell = argmax(cells.map(([x, y]) => -Math.hypot(x - truth.position.x, y - truth.position.y)));
    // A cell's bistatic excess path over the line of sight at 0.9 m, averaged over links: where in delay it sits.
    const excess = ([x, y]) => environment.links.reduce((acc, { txPosition: T, rxPosition: R }) => acc + Math.hypot(x - T[0], y - T[1], 0.9 - T[2]) + Math.hypot(x - R[0], y - R[1], 0.9 - R[2]) - Math.hypot(T[0] - R[0], T[1] - R[1], T[2] - R[2]), 0) / environment.links.length;
    const row = { session: session.sessionId, t: a.value.truth.time, activity: truth.activity, truth: [truth.position.x, truth.position.y] };
    for (const side of ['off', 'on']) {
      const byCell = explainedByCell(imagers[side], held[side]);
      const linkEnergy = held[side].map(energy);
      const s = scores(byCell);
      const peak = argmax(s);
      const sum = (c) => byCell.reduce((acc, img) => acc + img[c], 0);
      const total = linkEnergy.reduce((x, y) => x + y, 0);
      // Cells scored above the truth, and the best score more than separationM from the truth against the truth's.
      let above = 0, bestAway = -Infinity;
      for (let c = 0; c < cells.length; c++) {
        if (s[c] > s[trueCell]) above++;
        if (Math.hypot(cells[c][0] - truth.position.x, cells[c][1] - truth.position.y) > settings.separationM) bestAway = Math.max(bestAway, s[c]);
      }
      const bestCell = argmax(cells.map((_, c) => sum(c)));
      row[side] = {
        linkEnergy,
        explainedTrue: sum(trueCell) / total, explainedPeak: sum(peak) / total, explainedBest: sum(bestCell) / total,
        linkExplainedTrue: byCell.map((img, l) => img[trueCell] / linkEnergy[l]),
        linkExplainedPeak: byCell.map((img, l) => img[peak] / linkEnergy[l]),
        error: Math.hypot(cells[peak][0] - truth.position.x, cells[peak][1] - truth.position.y),
        cellsAboveTruth: above / cells.length,
        truthMinusBestAway: s[trueCell] - bestAway,
        lagCoherence: held[side].map(lagCoherence),
        peakExcessM: excess(cells[peak]), trueExcessM: excess(cells[trueCell]),
      };
      if (whitened) {
        const [w] = whitened[side].image().peaks;
        row[side].whitenedError = Math.hypot(w.x - truth.position.x, w.y - truth.position.y);
        row[side].whitenedPeakExcessM = excess([w.x, w.y]);
      }
    }
    const diffuseEnergy = diffuse.map(energy);
    const diffuseByCell = explainedByCell(imagers.on, diffuse);
    const dsum = (c) => diffuseByCell.reduce((acc, img) => acc + img[c], 0);
    const dBest = argmax(cells.map((_, c) => dsum(c)));
    const dTotal = diffuseEnergy.reduce((x, y) => x + y, 0);
    row.diffuse = {
      linkShare: diffuseEnergy.map((e, l) => e / row.on.linkEnergy[l]),
      share: dTotal / row.on.linkEnergy.reduce((x, y) => x + y, 0),
      explainedBest: dTotal > 0 ? dsum(dBest) / dTotal : null,
      linkExplainedBest: diffuseByCell.map((img, l) => (diffuseEnergy[l] > 0 ? Math.max(...img) / diffuseEnergy[l] : null)),
      explainedTrue: dTotal > 0 ? dsum(trueCell) / dTotal : null,
      lagCoherence: diffuse.map(lagCoherence),
      linkEnergy: diffuseEnergy,
      // Diffuse power per value against the link's noise power per value.
      toNoise: diffuseEnergy.map((e, l) => e / (diffuse[l].length * diffuse[l][0].re.length * heldOn[l].noisePower)),
    };
    // The simulator's diffuse amplitude: c·T/(4V) + 1/(16π d_tx²) + 1/(16π d_rx²), d from the link's centres to the body (1 m up).
    const V = environment.room.width * environment.room.depth * (environment.room.height ?? 2.7);
    row.geometry = environment.links.map((link) => {
      const p = [truth.position.x, truth.position.y, 1.0];
      const dt2 = (p[0] - link.txPosition[0]) ** 2 + (p[1] - link.txPosition[1]) ** 2 + (p[2] - link.txPosition[2]) ** 2;
      const dr2 = (p[0] - link.rxPosition[0]) ** 2 + (p[1] - link.rxPosition[1]) ** 2 + (p[2] - link.rxPosition[2]) ** 2;
      return { diffuseGain: (299792458 * 22e-9) / (4 * V) + 1 / (16 * Math.PI * dt2) + 1 / (16 * Math.PI * dr2), specularGain: 1 / (dt2 * dr2) };
    });
    roomRows.push(row);
    rows.push(row);
  }
  // Does a link's change energy follow the body's place? Correlate log energies with log gains over the room's estimates and links.
  const pairs = (pick, gain) => { const xs = [], ys = []; for (const r of roomRows) r.geometry.forEach((g, l) => { const e = pick(r)[l]; if (e > 0) { xs.push(Math.log(g[gain])); ys.push(Math.log(e)); } }); return pearson(xs, ys); };
  rooms.push({
    session: session.sessionId, estimates: roomRows.length,
    diffuseEnergyVsDiffuseGain: pairs((r) => r.diffuse.linkEnergy, 'diffuseGain'),
    onEnergyVsDiffuseGain: pairs((r) => r.on.linkEnergy, 'diffuseGain'),
    offEnergyVsSpecularGain: pairs((r) => r.off.linkEnergy, 'specularGain'),
    onEnergyVsSpecularGain: pairs((r) => r.on.linkEnergy, 'specularGain'),
  });
  process.stderr.write(`${session.sessionId}: ${roomRows.length} estimates\n`);
}

const mean = (xs) => { const v = xs.filter((x) => x !== null && Number.isFinite(x)); return v.length ? v.reduce((a, b) => a + b, 0) / v.length : null; };
const median = (xs) => { const v = xs.filter((x) => x !== null && Number.isFinite(x)).sort((a, b) => a - b); return v.length ? v[Math.floor(v.length / 2)] : null; };
const side = (name) => ({
  explainedTrue: mean(rows.map((r) => r[name].explainedTrue)), explainedPeak: mean(rows.map((r) => r[name].explainedPeak)), explainedBest: mean(rows.map((r) => r[name].explainedBest)),
  linkExplainedTrue: mean(rows.flatMap((r) => r[name].linkExplainedTrue)), linkExplainedPeak: mean(rows.flatMap((r) => r[name].linkExplainedPeak)),
  errorMean: mean(rows.map((r) => r[name].error)), errorMedian: median(rows.map((r) => r[name].error)),
  cellsAboveTruthMedian: median(rows.map((r) => r[name].cellsAboveTruth)),
  truthAboveAway: mean(rows.map((r) => (r[name].truthMinusBestAway > 0 ? 1 : 0))),
  lagCoherence: mean(rows.flatMap((r) => r[name].lagCoherence)),
  peakExcessM: mean(rows.map((r) => r[name].peakExcessM)), trueExcessM: mean(rows.map((r) => r[name].trueExcessM)),
  whitenedErrorMean: mean(rows.map((r) => r[name].whitenedError ?? null)), whitenedPeakExcessM: mean(rows.map((r) => r[name].whitenedPeakExcessM ?? null)),
});
const cpu = process.cpuUsage(cpu0);
const summary = {
  sessions: sessions.map((s) => s.sessionId), estimates: rows.length, seconds, check: process.env.CHECK === '1', whiten: process.env.WHITEN ? Number(process.env.WHITEN) : null,
  off: side('off'), on: side('on'),
  diffuse: {
    share: mean(rows.map((r) => r.diffuse.share)), shareMedian: median(rows.map((r) => r.diffuse.share)),
    explainedBest: mean(rows.map((r) => r.diffuse.explainedBest)), linkExplainedBest: mean(rows.flatMap((r) => r.diffuse.linkExplainedBest)),
    explainedTrue: mean(rows.map((r) => r.diffuse.explainedTrue)), toNoiseMedian: median(rows.flatMap((r) => r.diffuse.toNoise)),
    toNoiseQuartiles: [0.25, 0.75].map((q) => { const v = rows.flatMap((r) => r.diffuse.toNoise).sort((a, b) => a - b); return v[Math.floor(q * v.length)]; }),
    lagCoherence: mean(rows.flatMap((r) => r.diffuse.lagCoherence)),
  },
  byActivity: Object.fromEntries([...new Set(rows.map((r) => r.activity))].map((a) => { const own = rows.filter((r) => r.activity === a); return [a, { estimates: own.length, diffuseShare: mean(own.map((r) => r.diffuse.share)), errorOff: mean(own.map((r) => r.off.error)), errorOn: mean(own.map((r) => r.on.error)), explainedTrueOn: mean(own.map((r) => r.on.explainedTrue)), lagCoherenceOff: mean(own.flatMap((r) => r.off.lagCoherence)), lagCoherenceDiffuse: mean(own.flatMap((r) => r.diffuse.lagCoherence)) }]; })),
  rooms,
  energyVsPosition: {
    diffuseEnergyVsDiffuseGain: mean(rooms.map((r) => r.diffuseEnergyVsDiffuseGain)), onEnergyVsDiffuseGain: mean(rooms.map((r) => r.onEnergyVsDiffuseGain)),
    offEnergyVsSpecularGain: mean(rooms.map((r) => r.offEnergyVsSpecularGain)), onEnergyVsSpecularGain: mean(rooms.map((r) => r.onEnergyVsSpecularGain)),
  },
  wallS: (Date.now() - wall0) / 1000, cpuS: (cpu.user + cpu.system) / 1e6,
};
console.log(JSON.stringify(summary, null, 1));
