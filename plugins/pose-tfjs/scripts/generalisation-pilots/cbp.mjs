// Coherent back-projection (pilot 9): align each packet to a per-link empty-room reference, calibrate
// the reference's per-chain phases and timing slope against the known line-of-sight geometry, and
// image the change ΔH coherently over transmit antennas × receive antennas × subcarriers (angle of
// departure, angle of arrival and delay together) at each floor cell; packets and links add
// incoherently. Does this place one person in unseen rooms?
//   SPLIT=val node cbp.mjs 40        (BW=40 for a 40 MHz channel, IMP=off for the clean channel)
const sim = await import('@wiflow/plugin-sim');
const C = 299792458, DF = 312500;
const plan = sim.planDataset({ rooms: 700, secondsPerSession: 6, sessionsPerRoom: 1, seed: 'wiflow-pose-v2', ranges: { receivers: [3, 3], rateHz: 20, ...(process.env.BW ? { bandwidthMHz: Number(process.env.BW) } : {}) } });
const ONE = process.env.ALL ? false : true;
const sessions = plan.sessions.filter((s) => s.split === (process.env.SPLIT ?? 'val') && (!ONE || s.scenario.people.length === 1)).slice(0, Number(process.argv[2] ?? 30));
const TAUMAX = Number(process.env.TAUMAX ?? 20) * 1e-9;
const STEP = Number(process.env.STEP ?? 0.2), HEIGHTS = (process.env.HEIGHTS ?? '0.5,1.1').split(',').map(Number), PACKETS = Number(process.env.PACKETS ?? 8);
const simOpts = process.env.IMP === 'off' ? { impairments: 'off' } : process.env.IMP ? { impairments: JSON.parse(process.env.IMP) } : {};

function align(H, H0, idx, n) { // H e^{-jρk}/c fitted to H0 (timing slope from adjacent-subcarrier ratios, then complex gain)
  let sr = 0, si = 0;
  const nsc = idx.length;
  for (let s = 0; s < n / nsc; s++) for (let k = 0; k + 1 < nsc; k++) { if (idx[k + 1] - idx[k] !== 2 && idx[k + 1] - idx[k] !== 1) continue; const g = idx[k + 1] - idx[k]; const a = s * nsc + k, b = a + 1;
    const r1r = H.re[b] * H0.re[b] + H.im[b] * H0.im[b], r1i = H.im[b] * H0.re[b] - H.re[b] * H0.im[b];
    const r0r = H.re[a] * H0.re[a] + H.im[a] * H0.im[a], r0i = H.im[a] * H0.re[a] - H.re[a] * H0.im[a];
    let pr = r1r * r0r + r1i * r0i, pi = r1i * r0r - r1r * r0i; if (g === 2) { const m = Math.hypot(pr, pi) || 1; const ang = Math.atan2(pi, pr) / 2; pr = m * Math.cos(ang); pi = m * Math.sin(ang); }
    sr += pr; si += pi; }
  let rho = Math.atan2(si, sr);
  if (!process.env.NOML) { // ML refinement: maximise |Σ conj(H0) H e^{jρm}| (golden section around the ratio estimate)
    const zr = new Float64Array(n), zi = new Float64Array(n); for (let j = 0; j < n; j++) { zr[j] = H0.re[j] * H.re[j] + H0.im[j] * H.im[j]; zi[j] = H0.re[j] * H.im[j] - H0.im[j] * H.re[j]; }
    const f = (r) => { const cs = idx.map((m) => Math.cos(r * m)), sn = idx.map((m) => Math.sin(r * m)); let a = 0, b = 0; for (let j = 0; j < n; j++) { const k = j % nsc; a += zr[j] * cs[k] + zi[j] * sn[k]; b += zi[j] * cs[k] - zr[j] * sn[k]; } return a * a + b * b; };
    let lo = rho - 0.03, hi = rho + 0.03; const g = (Math.sqrt(5) - 1) / 2; let x1 = hi - g * (hi - lo), x2 = lo + g * (hi - lo), f1 = f(x1), f2 = f(x2);
    for (let it = 0; it < 30; it++) { if (f1 > f2) { hi = x2; x2 = x1; f2 = f1; x1 = hi - g * (hi - lo); f1 = f(x1); } else { lo = x1; x1 = x2; f1 = f2; x2 = lo + g * (hi - lo); f2 = f(x2); } }
    rho = (lo + hi) / 2; }
  const out = { re: new Float64Array(n), im: new Float64Array(n) };
  for (let j = 0; j < n; j++) { const k = j % nsc; const c = Math.cos(-rho * idx[k]), s = Math.sin(-rho * idx[k]); out.re[j] = H.re[j] * c - H.im[j] * s; out.im[j] = H.re[j] * s + H.im[j] * c; }
  let nr = 0, ni = 0, d = 0; for (let j = 0; j < n; j++) { nr += out.re[j] * H0.re[j] + out.im[j] * H0.im[j]; ni += out.im[j] * H0.re[j] - out.re[j] * H0.im[j]; d += H0.re[j] ** 2 + H0.im[j] ** 2; }
  const gr = nr / d, gi = ni / d, g2 = gr * gr + gi * gi;
  for (let j = 0; j < n; j++) { const r = out.re[j], i = out.im[j]; out.re[j] = (r * gr + i * gi) / g2; out.im[j] = (i * gr - r * gi) / g2; }
  out.rho = rho;
  return out;
}
const antennas = (r, fc) => { const yaw = (r.yawDeg ?? 0) * Math.PI / 180; const sp = r.spacing ?? C / fc / 2; const ax = -Math.sin(yaw), ay = Math.cos(yaw); const out = [];
  for (let i = 0; i < (r.antennas ?? 3); i++) { const o = (i - ((r.antennas ?? 3) - 1) / 2) * sp; out.push([r.position[0] + ax * o, r.position[1] + ay * o, r.position[2]]); } return out; };
const dist = (a, b) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);


// Multipath-aware calibration: H0 ≈ e^{jφ_tr} e^{−j2π m Δf τ} Σ_p a_p e^{−j2π f_k L_p,tr/c} with the line of
// sight and the six first-order wall/floor/ceiling images (complex a_p fitted by least squares).
function imagesOf(tx, room) { const W = room.width, D = room.depth, Hh = room.height ?? 2.7;
  return [tx, [-tx[0], tx[1], tx[2]], [2 * W - tx[0], tx[1], tx[2]], [tx[0], -tx[1], tx[2]], [tx[0], 2 * D - tx[1], tx[2]], [tx[0], tx[1], -tx[2]], [tx[0], tx[1], 2 * Hh - tx[2]]]; }
function solveComplex(A, b, m) { // A: m×m complex (re,im arrays), b: m complex; Gaussian elimination
  const M = A.re.map((_, i) => i); const ar = Float64Array.from(A.re), ai = Float64Array.from(A.im), br = Float64Array.from(b.re), bi = Float64Array.from(b.im);
  for (let i = 0; i < m; i++) ar[i * m + i] += 1e-9 * (ar[i * m + i] + 1e-30);
  for (let c = 0; c < m; c++) { let p = c; for (let r = c + 1; r < m; r++) if (Math.hypot(ar[r * m + c], ai[r * m + c]) > Math.hypot(ar[p * m + c], ai[p * m + c])) p = r;
    if (p !== c) { for (let k = 0; k < m; k++) { [ar[c * m + k], ar[p * m + k]] = [ar[p * m + k], ar[c * m + k]]; [ai[c * m + k], ai[p * m + k]] = [ai[p * m + k], ai[c * m + k]]; } [br[c], br[p]] = [br[p], br[c]]; [bi[c], bi[p]] = [bi[p], bi[c]]; }
    const dr = ar[c * m + c], di = ai[c * m + c], dd = dr * dr + di * di;
    for (let r = 0; r < m; r++) { if (r === c) continue; const nr = ar[r * m + c], ni = ai[r * m + c]; const fr = (nr * dr + ni * di) / dd, fi = (ni * dr - nr * di) / dd;
      for (let k = 0; k < m; k++) { ar[r * m + k] -= fr * ar[c * m + k] - fi * ai[c * m + k]; ai[r * m + k] -= fr * ai[c * m + k] + fi * ar[c * m + k]; }
      br[r] -= fr * br[c] - fi * bi[c]; bi[r] -= fr * bi[c] + fi * br[c]; } }
  const xr = new Float64Array(m), xi = new Float64Array(m); for (let c = 0; c < m; c++) { const dr = ar[c * m + c], di = ai[c * m + c], dd = dr * dr + di * di; xr[c] = (br[c] * dr + bi[c] * di) / dd; xi[c] = (bi[c] * dr - br[c] * di) / dd; } return { re: xr, im: xi }; }
function fitStatic(H0, txA, rxA, room, fk, idx, ph, tau) {
  const ntx = txA.length, nrx = rxA.length, nsc = fk.length, n = ntx * nrx * nsc;
  const P = 7; const Br = new Float64Array(P * n), Bi = new Float64Array(P * n);
  for (let t = 0; t < ntx; t++) { const imgs = imagesOf(txA[t], room); for (let q = 0; q < nrx; q++) for (let p = 0; p < P; p++) { const L = dist(imgs[p], rxA[q]); for (let k = 0; k < nsc; k++) { const j = (t * nrx + q) * nsc + k; const a = -2 * Math.PI * fk[k] * L / C; Br[p * n + j] = Math.cos(a) / L; Bi[p * n + j] = Math.sin(a) / L; } } }
  let a = null;
  const derot = (ph, tau) => { const yr = new Float64Array(n), yi = new Float64Array(n); for (let t = 0; t < ntx; t++) for (let q = 0; q < nrx; q++) for (let k = 0; k < nsc; k++) { const j = (t * nrx + q) * nsc + k; const ang = -ph[t * nrx + q] + 2 * Math.PI * idx[k] * DF * tau; const c = Math.cos(ang), s = Math.sin(ang); yr[j] = H0.re[j] * c - H0.im[j] * s; yi[j] = H0.re[j] * s + H0.im[j] * c; } return { yr, yi }; };
  const solveA = (yr, yi) => { const G = { re: new Float64Array(P * P), im: new Float64Array(P * P) }, b = { re: new Float64Array(P), im: new Float64Array(P) };
    for (let p = 0; p < P; p++) { for (let q = 0; q < P; q++) { let sr = 0, si = 0; for (let j = 0; j < n; j++) { sr += Br[p * n + j] * Br[q * n + j] + Bi[p * n + j] * Bi[q * n + j]; si += Br[p * n + j] * Bi[q * n + j] - Bi[p * n + j] * Br[q * n + j]; } G.re[p * P + q] = sr; G.im[p * P + q] = si; }
      let sr = 0, si = 0; for (let j = 0; j < n; j++) { sr += Br[p * n + j] * yr[j] + Bi[p * n + j] * yi[j]; si += Br[p * n + j] * yi[j] - Bi[p * n + j] * yr[j]; } b.re[p] = sr; b.im[p] = si; }
    return solveComplex(G, b, P); };
  const model = (a) => { const mr = new Float64Array(n), mi = new Float64Array(n); for (let p = 0; p < P; p++) for (let j = 0; j < n; j++) { mr[j] += a.re[p] * Br[p * n + j] - a.im[p] * Bi[p * n + j]; mi[j] += a.re[p] * Bi[p * n + j] + a.im[p] * Br[p * n + j]; } return { mr, mi }; };
  const resid = (ph, tau, m) => { const { yr, yi } = derot(ph, tau); let e = 0; for (let j = 0; j < n; j++) e += (yr[j] - m.mr[j]) ** 2 + (yi[j] - m.mi[j]) ** 2; return e; };
  for (let it = 0; it < 6; it++) {
    const { yr, yi } = derot(ph, tau); a = solveA(yr, yi); const m = model(a);
    // φ per pair: arg Σ_k H0 conj(model · e^{−j2πmΔfτ})
    const cc = ph.map((_, tq) => { let cr = 0, ci = 0; for (let k = 0; k < nsc; k++) { const j = tq * nsc + k; const ang = -2 * Math.PI * idx[k] * DF * tau; const zr = m.mr[j] * Math.cos(ang) - m.mi[j] * Math.sin(ang), zi = m.mr[j] * Math.sin(ang) + m.mi[j] * Math.cos(ang); cr += H0.re[j] * zr + H0.im[j] * zi; ci += H0.im[j] * zr - H0.re[j] * zi; } return [cr, ci]; });
    if (process.env.CHAIN) { // φ_tr = α_t + β_r (a phase per transmit and per receive chain)
      const al = new Float64Array(ntx), be = new Float64Array(nrx);
      for (let it2 = 0; it2 < 10; it2++) {
        for (let t = 0; t < ntx; t++) { let sr = 0, si = 0; for (let q = 0; q < nrx; q++) { const [cr, ci] = cc[t * nrx + q]; const c = Math.cos(-be[q]), s = Math.sin(-be[q]); sr += cr * c - ci * s; si += cr * s + ci * c; } al[t] = Math.atan2(si, sr); }
        for (let q = 0; q < nrx; q++) { let sr = 0, si = 0; for (let t = 0; t < ntx; t++) { const [cr, ci] = cc[t * nrx + q]; const c = Math.cos(-al[t]), s = Math.sin(-al[t]); sr += cr * c - ci * s; si += cr * s + ci * c; } be[q] = Math.atan2(si, sr); } }
      ph = ph.map((_, tq) => al[(tq / nrx) | 0] + be[tq % nrx]);
    } else ph = cc.map(([cr, ci]) => Math.atan2(ci, cr));
    let bt = tau, be = Infinity; for (let d = -6e-9; d <= 6e-9; d += 0.25e-9) { const e = resid(ph, tau + d, m); if (e < be) { be = e; bt = tau + d; } } tau = bt;
  }
  return { ph, tau };
}

const NMS = Number(process.env.NMS ?? 0.8); const stats = [], byK = {};
let err = 0, errC = 0, count = 0, rankSum = 0; const t0 = Date.now();
for (const session of sessions) {
  const scen = session.scenario; const W = scen.room.width, Dp = scen.room.depth; const fc = scen.channel.centerFrequencyHz;
  const radios = new Map(scen.radios.map((r) => [r.id, r]));
  const empty = new sim.Simulator({ ...scen, people: [] }, simOpts);
  const refs = new Map();
  for (const tick of empty.run(2)) for (const f of tick.frames) { const key = `${f.link.tx}->${f.link.rx}`; const n = f.csi.re.length;
    let r = refs.get(key); if (!r) refs.set(key, (r = { sum: { re: new Float64Array(n), im: new Float64Array(n) }, first: { re: Float64Array.from(f.csi.re), im: Float64Array.from(f.csi.im) }, idx: Array.from(f.subcarriers), n: 0, ntx: f.ntx, nrx: f.nrx }));
    const a = align(f.csi, r.first, r.idx, n); for (let j = 0; j < n; j++) { r.sum.re[j] += a.re[j]; r.sum.im[j] += a.im[j]; } r.n++; r.rho = (r.rho ?? 0) + a.rho; }
  const cells = []; for (let x = STEP / 2; x < W; x += STEP) for (let y = STEP / 2; y < Dp; y += STEP) cells.push([x, y]);
  const links = [];
  for (const [key, r] of refs) {
    const H0 = { re: r.sum.re.map((v) => v / r.n), im: r.sum.im.map((v) => v / r.n) };
    if (!process.env.NOZERO) { // timing offsets are zero-mean: give the reference the mean packet's slope (removes the first packet's offset)
      const mr = r.rho / r.n; const nscr = r.idx.length; for (let j = 0; j < H0.re.length; j++) { const a = mr * r.idx[j % nscr]; const c = Math.cos(a), s = Math.sin(a); const x = H0.re[j], y = H0.im[j]; H0.re[j] = x * c - y * s; H0.im[j] = x * s + y * c; } }
    const [txId, rxId] = key.split('->'); const txA = antennas(radios.get(txId), fc), rxA = antennas(radios.get(rxId), fc);
    const nsc = r.idx.length, ntx = txA.length, nrx = rxA.length, n = H0.re.length;
    if (ntx * nrx * nsc !== n) throw new Error(`layout ${ntx}x${nrx}x${nsc} != ${n}`);
    const fk = r.idx.map((m) => fc + m * DF);
    // Calibration: H0 ≈ e^{jφ_tr} e^{−j2π m Δf τ} LOS_tr(k). Search τ, then φ_tr per pair.
    let bestTau = 0, bestS = -1;
    const corr = (tau) => { let S = 0; const ph = []; for (let t = 0; t < ntx; t++) for (let q = 0; q < nrx; q++) { const L = dist(txA[t], rxA[q]); let cr = 0, ci = 0;
      for (let k = 0; k < nsc; k++) { const j = (t * nrx + q) * nsc + k; const a = -2 * Math.PI * fk[k] * L / C + 2 * Math.PI * r.idx[k] * DF * tau; // conj(LOS)·e^{+j2πmΔfτ}: phase +2πfL/c + 2πmΔfτ
        const c = Math.cos(-a), s = Math.sin(-a); cr += H0.re[j] * c - H0.im[j] * s; ci += H0.re[j] * s + H0.im[j] * c; }
      S += Math.hypot(cr, ci); ph.push(Math.atan2(ci, cr)); } return { S, ph }; };
    for (let tau = -TAUMAX; tau <= TAUMAX; tau += 0.5e-9) { const { S } = corr(tau); if (S > bestS) { bestS = S; bestTau = tau; } }
    let { ph } = corr(bestTau); if (process.env.NOCAL) { ph = ph.map(() => 0); bestTau = 0; }
    if (process.env.FIT) ({ ph, tau: bestTau } = fitStatic(H0, txA, rxA, scen.room, fk, r.idx, ph, bestTau));
    if (process.env.DEBUG) console.log(key, "tau ns", (bestTau * 1e9).toFixed(2), "ph", ph.map((v) => v.toFixed(2)).join(" "));
    // calibration factor per entry: e^{−jφ_tr} e^{+j2π m Δf τ}
    const calRe = new Float64Array(n), calIm = new Float64Array(n);
    for (let t = 0; t < ntx; t++) for (let q = 0; q < nrx; q++) for (let k = 0; k < nsc; k++) { const j = (t * nrx + q) * nsc + k; const a = -ph[t * nrx + q] + 2 * Math.PI * r.idx[k] * DF * bestTau; calRe[j] = Math.cos(a); calIm[j] = Math.sin(a); }
    // steering: A(p) = e^{−j2π f_k (|p−tx_t|+|rx_q−p|)/c}; stored conj for the matched filter, per (cell, height)
    const nc = cells.length * HEIGHTS.length; const Ar = new Float32Array(nc * n), Ai = new Float32Array(nc * n);
    let ci = 0; for (const [x, y] of cells) for (const h of HEIGHTS) { const p = [x, y, h];
      for (let t = 0; t < ntx; t++) for (let q = 0; q < nrx; q++) { const L = dist(txA[t], p) + dist(rxA[q], p); for (let k = 0; k < nsc; k++) { const j = (t * nrx + q) * nsc + k; const a = 2 * Math.PI * fk[k] * L / C; Ar[ci * n + j] = Math.cos(a); Ai[ci * n + j] = Math.sin(a); } }
      ci++; }
    links.push({ key, H0, idx: r.idx, n, calRe, calIm, Ar, Ai, nc, hist: [] });
  }
  const occupied = new sim.Simulator(scen, simOpts);
  for (const tick of occupied.run(6)) {
    for (const f of tick.frames) { const L = links.find((l) => l.key === `${f.link.tx}->${f.link.rx}`); const n = L.n;
      const a = align(f.csi, L.H0, L.idx, n); const x = { re: new Float32Array(n), im: new Float32Array(n) };
      for (let j = 0; j < n; j++) { const dr = a.re[j] - L.H0.re[j], di = a.im[j] - L.H0.im[j]; x.re[j] = dr * L.calRe[j] - di * L.calIm[j]; x.im[j] = dr * L.calIm[j] + di * L.calRe[j]; }
      L.hist.push(x); if (L.hist.length > PACKETS) L.hist.shift(); }
    if (tick.index % 5 !== 0 || tick.index < 16 || (ONE && tick.truth.persons.length !== 1)) continue;
    const persons = tick.truth.persons;
    const k = persons.length; const picks = []; const energy = [];
    let hists = links.map((L) => L.hist.map((x) => ({ re: Float32Array.from(x.re), im: Float32Array.from(x.im) })));
    const scoreOf = () => { const scores = new Float64Array(cells.length); links.forEach((L, li) => { const img = new Float64Array(cells.length); const n = L.n;
      for (const x of hists[li]) for (let c = 0; c < L.nc; c++) { let re = 0, im = 0; const o = c * n; for (let j = 0; j < n; j++) { const ar = L.Ar[o + j], ai = L.Ai[o + j]; re += x.re[j] * ar - x.im[j] * ai; im += x.re[j] * ai + x.im[j] * ar; } img[(c / HEIGHTS.length) | 0] += re * re + im * im; }
      let tot = 0; for (const v of img) tot += v; for (let c = 0; c < cells.length; c++) scores[c] += Math.log(img[c] / tot + 1e-12); }); return scores; };
    const en = () => hists.reduce((a, h) => a + h.reduce((b, x) => { let e = 0; for (let j = 0; j < x.re.length; j++) e += x.re[j] ** 2 + x.im[j] ** 2; return b + e; }, 0), 0);
    energy.push(en());
    const CLEAN = !process.env.NOCLEAN;
    let scores = scoreOf();
    for (let pk = 0; pk < 3; pk++) {
      let best = -1; for (let c = 0; c < cells.length; c++) if ((best < 0 || scores[c] > scores[best]) && picks.every((q) => Math.hypot(cells[q][0] - cells[c][0], cells[q][1] - cells[c][1]) > NMS)) best = c;
      picks.push(best); if (!CLEAN) continue;
      // project out the steering vectors of the cells within 0.3 m of the peak (all heights), per link
      const local = []; cells.forEach((c, ci) => { if (Math.hypot(c[0] - cells[best][0], c[1] - cells[best][1]) <= 0.31) for (let h = 0; h < HEIGHTS.length; h++) local.push(ci * HEIGHTS.length + h); });
      links.forEach((L, li) => { const n = L.n; const Q = [];
        for (const c of local) { const vr = new Float64Array(n), vi = new Float64Array(n); for (let j = 0; j < n; j++) { vr[j] = L.Ar[c * n + j]; vi[j] = -L.Ai[c * n + j]; } // conj stored → steering
          for (const q of Q) { let dr = 0, di = 0; for (let j = 0; j < n; j++) { dr += q.re[j] * vr[j] + q.im[j] * vi[j]; di += q.re[j] * vi[j] - q.im[j] * vr[j]; } for (let j = 0; j < n; j++) { vr[j] -= dr * q.re[j] - di * q.im[j]; vi[j] -= dr * q.im[j] + di * q.re[j]; } }
          let nn = 0; for (let j = 0; j < n; j++) nn += vr[j] ** 2 + vi[j] ** 2; nn = Math.sqrt(nn); if (nn < 1e-3 * Math.sqrt(n)) continue; for (let j = 0; j < n; j++) { vr[j] /= nn; vi[j] /= nn; } Q.push({ re: vr, im: vi }); }
        for (const x of hists[li]) for (const q of Q) { let dr = 0, di = 0; for (let j = 0; j < n; j++) { dr += q.re[j] * x.re[j] + q.im[j] * x.im[j]; di += q.re[j] * x.im[j] - q.im[j] * x.re[j]; } for (let j = 0; j < n; j++) { x.re[j] -= dr * q.re[j] - di * q.im[j]; x.im[j] -= dr * q.im[j] + di * q.re[j]; } } });
      energy.push(en()); if (pk < 2) scores = scoreOf();
    }
    stats.push({ k, energy });
    if (k === 0) continue;
    const perms = (arr) => arr.length <= 1 ? [arr] : arr.flatMap((x, i) => perms([...arr.slice(0, i), ...arr.slice(i + 1)]).map((r) => [x, ...r]));
    let bestE = Infinity; for (const perm of perms(picks.slice(0, k).map((_, i) => i))) { let e = 0; persons.forEach((q, i) => { const c = cells[picks[perm[i]]]; e += Math.hypot(c[0] - q.position.x, c[1] - q.position.y); }); bestE = Math.min(bestE, e); }
    err += bestE; for (const q of persons) errC += Math.hypot(W / 2 - q.position.x, Dp / 2 - q.position.y); count += k;
    (byK[k] ??= { e: 0, c: 0, n: 0 }); byK[k].e += bestE; byK[k].n += k; for (const q of persons) byK[k].c += Math.hypot(W / 2 - q.position.x, Dp / 2 - q.position.y);
  }
  console.log(`${session.sessionId}: instants ${count}, coherent BP floor error ${(err / count).toFixed(2)} m, room centre ${(errC / count).toFixed(2)} m, by count ${Object.entries(byK).map(([k, v]) => `${k}: ${(v.e / v.n).toFixed(2)}/${(v.c / v.n).toFixed(2)}`).join(' ')} ${((Date.now() - t0) / 1000).toFixed(0)}s`);
}

if (process.env.STATS) (await import('node:fs')).writeFileSync(process.env.STATS, JSON.stringify(stats));
