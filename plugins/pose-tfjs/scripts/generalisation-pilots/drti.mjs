// Delay-domain RTI diagnostic: align each packet to an empty-room reference (complex gain and
// timing slope), take the change ΔH, and score floor cells by the power of ΔH at each cell's
// excess path delay, per link; sum the links. Does this place one person in unseen rooms?
import { align } from './align.mjs';
const PILOT_DIR = process.env.PILOT_DIR ?? '/tmp/wiflow-pilots';
const sim = await import('@wiflow/plugin-sim');
const C = 299792458, DF = 312500;
const plan = sim.planDataset({ rooms: 700, secondsPerSession: 6, sessionsPerRoom: 1, seed: 'wiflow-pose-v2', ranges: { receivers: [3, 3], rateHz: 20, ...(process.env.BW ? { bandwidthMHz: Number(process.env.BW) } : {}) } });
const sessions = plan.sessions.filter((s) => s.split === (process.env.SPLIT ?? 'val') && s.scenario.people.length === 1).slice(0, Number(process.argv[2] ?? 30));
const BINS = 300, STEP = 0.1; // path-length bins of 0.1 m, 0..30 m (relative to the reference's LOS peak)
function profile(H, idx, n, offsetM) { // power per path-length bin (path length = bin × STEP), streams incoherent
  const P = new Float64Array(BINS); const S = n / idx.length;
  for (let b = 0; b < BINS; b++) { const tau = (b * STEP - offsetM) / C; let p = 0;
    for (let s = 0; s < S; s++) { let re = 0, im = 0; for (let k = 0; k < idx.length; k++) { const ph = 2 * Math.PI * idx[k] * DF * tau; const c = Math.cos(ph), sn = Math.sin(ph); const j = s * idx.length + k; re += H.re[j] * c - H.im[j] * sn; im += H.re[j] * sn + H.im[j] * c; } p += re * re + im * im; }
    P[b] = p; }
  return P;
}
let err = 0, errC = 0, count = 0, rankSum = 0; const BETAS = [0.25, 0.5, 1, 2, 4]; const soft = BETAS.map(() => 0);
const t0 = Date.now();
for (const session of sessions) {
  const scen = session.scenario; const W = scen.room.width, Dp = scen.room.depth;
  const radios = new Map(scen.radios.map((r) => [r.id, r]));
  const empty = new sim.Simulator({ ...scen, people: [] }, (process.env.IMP === 'off' ? { impairments: 'off' } : process.env.IMP ? { impairments: JSON.parse(process.env.IMP) } : {}));
  const refs = new Map();
  for (const tick of empty.run(2)) for (const f of tick.frames) { const key = `${f.link.tx}->${f.link.rx}`; const n = f.csi.re.length;
    let r = refs.get(key); if (!r) { refs.set(key, (r = { sum: { re: new Float64Array(n), im: new Float64Array(n) }, first: { re: Float64Array.from(f.csi.re), im: Float64Array.from(f.csi.im) }, idx: Array.from(f.subcarriers), n: 0 })); }
    const a = align(f.csi, r.first, r.idx, n); for (let j = 0; j < n; j++) { r.sum.re[j] += a.re[j]; r.sum.im[j] += a.im[j]; } r.n++; }
  // LOS calibration: the reference's strongest path-length bin is taken as the LOS length.
  const links = [];
  for (const [key, r] of refs) { const H0 = { re: r.sum.re.map((v) => v / r.n), im: r.sum.im.map((v) => v / r.n) };
    const [txId, rxId] = key.split('->'); const tx = radios.get(txId).position, rx = radios.get(rxId).position; const los = Math.hypot(tx[0] - rx[0], tx[1] - rx[1], tx[2] - rx[2]);
    const P0 = profile(H0, r.idx, H0.re.length, 15); let pk = 0; for (let b = 0; b < BINS; b++) if (P0[b] > P0[pk]) pk = b; // measured path length pk×STEP − 15 ↔ los
    links.push({ key, H0, idx: r.idx, tx, rx, los, shift: pk * STEP - 15 - los, acc: new Float64Array(BINS), hist: [] }); }
  const cells = []; for (let x = 0.15; x < W; x += 0.3) for (let y = 0.15; y < Dp; y += 0.3) cells.push([x, y]);
  const occupied = new sim.Simulator(scen, (process.env.IMP === 'off' ? { impairments: 'off' } : process.env.IMP ? { impairments: JSON.parse(process.env.IMP) } : {}));
  for (const tick of occupied.run(6)) {
    for (const f of tick.frames) { const L = links.find((l) => l.key === `${f.link.tx}->${f.link.rx}`); const n = f.csi.re.length;
      const a = align(f.csi, L.H0, L.idx, n); for (let j = 0; j < n; j++) { a.re[j] -= L.H0.re[j]; a.im[j] -= L.H0.im[j]; }
      const P = profile(a, L.idx, n, -L.shift); let tot = 0; for (const v of P) tot += v; L.hist.push(P.map((v) => v / tot)); if (L.hist.length > 16) L.hist.shift(); }
    if (tick.index % 5 !== 0 || tick.index < 16 || tick.truth.persons.length !== 1) continue;
    const p = tick.truth.persons[0].position;
    let best = -Infinity, bx = 0, by = 0; const scores = [];
    for (const [x, y] of cells) { let s = 0; for (const L of links) { const d = Math.hypot(x - L.tx[0], y - L.tx[1], 1.0 - L.tx[2]) + Math.hypot(x - L.rx[0], y - L.rx[1], 1.0 - L.rx[2]); const b = Math.min(BINS - 1, Math.max(0, Math.round(d / STEP)));
        let v = 0; for (const P of L.hist) v += P[b]; s += Math.log(v + 1e-9); } scores.push(s); if (s > best) { best = s; bx = x; by = y; } }
    const truthScore = scores[cells.findIndex(([x, y]) => Math.abs(x - p.x) <= 0.15 && Math.abs(y - p.y) <= 0.15)] ?? -Infinity;
    BETAS.forEach((beta, bi) => { let sw = 0, sx = 0, sy = 0; scores.forEach((sc, ci) => { const w = Math.exp(beta * (sc - best)); sw += w; sx += w * cells[ci][0]; sy += w * cells[ci][1]; }); soft[bi] += Math.hypot(sx / sw - p.x, sy / sw - p.y); });
    rankSum += scores.filter((s) => s > truthScore).length / scores.length;
    err += Math.hypot(bx - p.x, by - p.y); errC += Math.hypot(W / 2 - p.x, Dp / 2 - p.y); count++;
  }
  console.log(`${session.sessionId}: instants ${count}, delay-RTI floor error ${(err / count).toFixed(2)} m, room centre ${(errC / count).toFixed(2)} m, truth cell rank ${(rankSum / count).toFixed(2)} (0 best, 0.5 chance), soft ${BETAS.map((b, i) => `β${b}:${(soft[i] / count).toFixed(2)}`).join(' ')} ${((Date.now() - t0) / 1000).toFixed(0)}s`);
}
