// Pilot of issue 21: does a forward model (body scattering at several heights + shadowing of the
// room's static paths) score the true position above the matched filter's peak, on the
// validation rooms where the point-scatterer matched filter errs most? Run from plugins/pose-tfjs
// after a build: node models/wiflow-locate-v2/pilot-forward-model.mjs [sessions] [seconds]
import * as sim from '@wiflow/plugin-sim';
import { loadLocatorModel, simulateReference, calibrateLink, arrayElements, alignPacket } from '../../dist/index.js';
import { environmentFromScenario } from '../../dist/sim/environment-from-scenario.js';
import { DatasetRecipeSchema } from '../../dist/sim/recipe.js';

const C = 299792458, DF = 312500;
const maxSessions = Number(process.argv[2] ?? 24), seconds = Number(process.argv[3] ?? 6);
const split = process.argv[4] ?? 'val';
const HEIGHTS = (process.env.HEIGHTS ?? '0.3,0.9,1.5').split(',').map(Number);
const LOG = process.env.SCORE === 'log';
const SHADOW_M = Number(process.env.SHADOW_M ?? 0.35);
const model = loadLocatorModel();
const recipe = DatasetRecipeSchema.parse(model.spec.training.dataset);
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const sessions = plan.sessions.filter((s) => s.split === split && s.scenario.people.length === 1).slice(0, maxSessions);

const segDist2 = (px, py, ax, ay, bx, by) => { const dx = bx - ax, dy = by - ay; const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy || 1))); return Math.hypot(px - ax - t * dx, py - ay - t * dy); };
function gramSchmidt(vs, n) {
  const out = [];
  for (const v of vs) {
    const r = Float64Array.from(v.re), i = Float64Array.from(v.im);
    for (const q of out) { let dr = 0, di = 0; for (let j = 0; j < n; j++) { dr += q.re[j] * r[j] + q.im[j] * i[j]; di += q.re[j] * i[j] - q.im[j] * r[j]; } for (let j = 0; j < n; j++) { r[j] -= dr * q.re[j] - di * q.im[j]; i[j] -= dr * q.im[j] + di * q.re[j]; } }
    let nn = 0; for (let j = 0; j < n; j++) nn += r[j] * r[j] + i[j] * i[j]; nn = Math.sqrt(nn);
    if (nn < 1e-3 * Math.sqrt(n) * (v.scale ?? 1)) continue;
    for (let j = 0; j < n; j++) { r[j] /= nn; i[j] /= nn; } out.push({ re: r, im: i });
  }
  return out;
}
const explained = (basis, x, n) => { let e = 0; for (const q of basis) { let dr = 0, di = 0; for (let j = 0; j < n; j++) { dr += q.re[j] * x.re[j] + q.im[j] * x.im[j]; di += q.re[j] * x.im[j] - q.im[j] * x.re[j]; } e += dr * dr + di * di; } return e; };

const rows = [];
for (const session of sessions) {
  const env = environmentFromScenario(session.scenario);
  const ref = simulateReference(sim, session.scenario);
  const { width: W, depth: D } = env.room;
  const cells = []; for (let x = 0.1; x < W; x += 0.2) for (let y = 0.1; y < D; y += 0.2) cells.push([x, y]);
  const links = env.links.map((link) => {
    const r = ref.links.find((l) => l.tx === link.tx && l.rx === link.rx);
    const fc = r.centerFrequencyHz, txE = arrayElements(link.txPosition, link.txArray, fc), rxE = arrayElements(link.rxPosition, link.rxArray, fc);
    const h0 = { re: Float64Array.from(r.re), im: Float64Array.from(r.im) }, sc = Int16Array.from(r.subcarriers), nsc = sc.length, n = h0.re.length;
    const cal = calibrateLink(h0, txE, rxE, env.room, sc, fc);
    const calRe = new Float64Array(n), calIm = new Float64Array(n);
    for (let q = 0; q < r.ntx * r.nrx; q++) for (let k = 0; k < nsc; k++) { const a = -cal.phases[q] + 2 * Math.PI * sc[k] * DF * cal.tauS; calRe[q * nsc + k] = Math.cos(a); calIm[q * nsc + k] = Math.sin(a); }
    const fk = Array.from(sc, (m) => fc + m * DF);
    const resp = (lengthOf) => { const re = new Float64Array(n), im = new Float64Array(n); for (let t = 0; t < txE.length; t++) for (let q = 0; q < rxE.length; q++) { const L = lengthOf(txE[t], rxE[q]); for (let k = 0; k < nsc; k++) { const a = -2 * Math.PI * fk[k] * L / C; re[(t * rxE.length + q) * nsc + k] = Math.cos(a); im[(t * rxE.length + q) * nsc + k] = Math.sin(a); } } return { re, im }; };
    const point = (x, y, h) => resp((a, b) => Math.hypot(x - a[0], y - a[1], h - a[2]) + Math.hypot(x - b[0], y - b[1], h - b[2]));
    // Static paths in the floor plane: LOS (and floor/ceiling bounces, same plan) and the four wall images.
    const T = link.txPosition, R = link.rxPosition;
    const images = [[T[0], T[1]], [-T[0], T[1]], [2 * W - T[0], T[1]], [T[0], -T[1]], [T[0], 2 * D - T[1]]];
    const staticPaths = images.map((im3, i) => {
      const tx3 = (a) => (i === 0 ? a : i === 1 ? [-a[0], a[1], a[2]] : i === 2 ? [2 * W - a[0], a[1], a[2]] : i === 3 ? [a[0], -a[1], a[2]] : [a[0], 2 * D - a[1], a[2]]);
      const v = resp((a, b) => { const ai = tx3(a); return Math.hypot(ai[0] - b[0], ai[1] - b[1], ai[2] - b[2]); });
      // Legs in the room: image→rx crosses the wall at a point; legs tx→wallpoint and wallpoint→rx.
      const ix = im3[0], iy = im3[1];
      let wp = [R[0], R[1]];
      if (i > 0) { const t = i <= 2 ? ((i === 1 ? 0 : W) - ix) / (R[0] - ix) : ((i === 3 ? 0 : D) - iy) / (R[1] - iy); wp = [ix + t * (R[0] - ix), iy + t * (R[1] - iy)]; }
      const legs = i === 0 ? [[T[0], T[1], R[0], R[1]]] : [[T[0], T[1], wp[0], wp[1]], [wp[0], wp[1], R[0], R[1]]];
      return { v, legs };
    });
    const mfBasis = cells.map(([x, y]) => gramSchmidt([point(x, y, 0.9)], n));
    const fmBasis = cells.map(([x, y]) => {
      const vs = HEIGHTS.map((h) => point(x, y, h));
      for (const s of staticPaths) if (s.legs.some(([ax, ay, bx, by]) => segDist2(x, y, ax, ay, bx, by) < SHADOW_M)) vs.push(s.v);
      return gramSchmidt(vs, n);
    });
    return { key: `${link.tx}->${link.rx}`, noise: r.noisePower * n * Number(process.env.NOISE_K ?? 1), h0, sc, n, calRe, calIm, hist: [], mfBasis, fmBasis };
  });
  const byKey = new Map(links.map((l) => [l.key, l]));
  let tickNo = 0;
  for (const tick of new sim.Simulator(session.scenario).run(seconds)) {
    for (const f of tick.frames) {
      const l = byKey.get(`${f.link.tx}->${f.link.rx}`);
      const al = alignPacket(f.csi, l.h0, l.sc);
      const re = new Float64Array(l.n), im = new Float64Array(l.n);
      for (let j = 0; j < l.n; j++) { const dr = al.re[j] - l.h0.re[j], di = al.im[j] - l.h0.im[j]; re[j] = dr * l.calRe[j] - di * l.calIm[j]; im[j] = dr * l.calIm[j] + di * l.calRe[j]; }
      l.hist.push({ re, im }); if (l.hist.length > 8) l.hist.shift();
    }
    tickNo++;
    if (tickNo % 5 !== 0 || links.some((l) => l.hist.length < 8) || tick.truth.persons.length !== 1) continue;
    const truth = tick.truth.persons[0].position;
    const score = (which) => { const s = new Float64Array(cells.length); for (const l of links) { let tot = 0; for (const x of l.hist) for (let j = 0; j < l.n; j++) tot += x.re[j] ** 2 + x.im[j] ** 2; const e = cells.map((_, c) => { let e = 0; for (const x of l.hist) e += explained(l[which][c], x, l.n) - (l[which][c].length - 1) * l.noise; return Math.max(e, 1e-12); }); const sum = e.reduce((a, b) => a + b, 0); e.forEach((v, c) => { s[c] += LOG ? Math.log(v / sum) : v / tot; }); } return s; };
    const mf = score('mfBasis'), fm = score('fmBasis');
    const argmax = (s) => s.reduce((b, v, i) => (v > s[b] ? i : b), 0);
    const nearest = cells.reduce((b, c, i) => (Math.hypot(c[0] - truth.x, c[1] - truth.y) < Math.hypot(cells[b][0] - truth.x, cells[b][1] - truth.y) ? i : b), 0);
    const m = argmax(mf), g = argmax(fm);
    rows.push({ session: session.sessionId, mfErr: Math.hypot(cells[m][0] - truth.x, cells[m][1] - truth.y), fmErr: Math.hypot(cells[g][0] - truth.x, cells[g][1] - truth.y), fmTruth: fm[nearest], fmAtMfPeak: fm[m], fmPeak: fm[g], mfTruth: mf[nearest], mfPeak: mf[m] });
  }
}
const bySession = new Map(); for (const r of rows) { if (!bySession.has(r.session)) bySession.set(r.session, []); bySession.get(r.session).push(r); }
const mean = (a) => a.reduce((x, y) => x + y, 0) / (a.length || 1);
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s[Math.floor(s.length / 2)] ?? NaN; };
const sessionsSorted = [...bySession.entries()].sort((a, b) => mean(b[1].map((r) => r.mfErr)) - mean(a[1].map((r) => r.mfErr)));
const worst = sessionsSorted.slice(0, Math.ceil(sessionsSorted.length / 3)).flatMap(([, rs]) => rs);
const summary = (rs) => ({ instants: rs.length, mfMeanM: +mean(rs.map((r) => r.mfErr)).toFixed(3), mfMedianM: +median(rs.map((r) => r.mfErr)).toFixed(3), fmMeanM: +mean(rs.map((r) => r.fmErr)).toFixed(3), fmMedianM: +median(rs.map((r) => r.fmErr)).toFixed(3), truthAboveMfPeak: +mean(rs.map((r) => (r.fmTruth > r.fmAtMfPeak ? 1 : 0))).toFixed(3), truthWithinFmPeak90: +mean(rs.map((r) => (r.fmTruth >= 0.9 * r.fmPeak ? 1 : 0))).toFixed(3), mfTruthOverPeak: +mean(rs.map((r) => r.mfTruth / r.mfPeak)).toFixed(3), fmTruthOverPeak: +mean(rs.map((r) => r.fmTruth / r.fmPeak)).toFixed(3) });
console.log(JSON.stringify({ split, sessions: bySession.size, seconds, heights: HEIGHTS, shadowM: SHADOW_M, all: summary(rows), worstThird: summary(worst) }, null, 1));
