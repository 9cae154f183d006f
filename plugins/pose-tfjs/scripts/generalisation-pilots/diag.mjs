const PILOT_DIR = process.env.PILOT_DIR ?? '/tmp/wiflow-pilots';
const D = new URL('../../dist', import.meta.url).pathname;
const { loadDataset } = await import(`${D}/training/dataset.js`);
const data = loadDataset(process.argv[2] ?? `${PILOT_DIR}/data/val`).data;
const T = 8, L = 3, per = 9 * 30, F = L * per * 2;
const envs = data.environments.length;
if (process.argv[3]) { const { readFileSync } = await import('node:fs'); const b = readFileSync(process.argv[3]); const refs = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  for (let i = 0; i < data.count; i++) for (let t = 0; t < T; t++) for (let f = 0; f < F; f++) data.csi[(i * T + t) * F + f] -= refs[i * F + f]; }
const sums = new Float64Array(envs * F), counts = new Float64Array(envs);
for (let i = 0; i < data.count; i++) { const e = data.environmentIndex[i]; counts[e] += T; for (let t = 0; t < T; t++) { const b = (i * T + t) * F; for (let f = 0; f < F; f++) sums[e * F + f] += data.csi[b + f]; } }
function segDist(px, py, ax, ay, bx, by) { const dx = bx - ax, dy = by - ay; const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy))); return Math.hypot(px - ax - t * dx, py - ay - t * dy); }
function excess(px, py, ax, ay, bx, by) { return Math.hypot(px - ax, py - ay) + Math.hypot(px - bx, py - by) - Math.hypot(ax - bx, ay - by); }
const rows = [];
for (let i = 0; i < data.count; i++) {
  const e = data.environmentIndex[i]; const env = data.environments[e]; const truth = data.truths[i];
  for (let l = 0; l < L; l++) {
    let bgA = 0, bgP = 0, motA = 0, motP = 0;
    for (let k = 0; k < per; k++) for (const c of [0, 1]) {
      const f = l * per * 2 + 2 * k + c; let m = 0;
      for (let t = 0; t < T; t++) m += data.csi[(i * T + t) * F + f]; m /= T;
      const d = process.argv[3] ? m : m - sums[e * F + f] / counts[e];
      let v = 0; for (let t = 0; t < T; t++) v += (data.csi[(i * T + t) * F + f] - m) ** 2;
      if (c === 0) { bgA += d * d; motA += v / T; } else { bgP += d * d; motP += v / T; }
    }
    const link = env.links[l];
    const dmin = truth.length ? Math.min(...truth.map((p) => segDist(p.position.x, p.position.y, link.txPosition[0], link.txPosition[1], link.rxPosition[0], link.rxPosition[1]))) : 9;
    const ex = truth.length ? Math.min(...truth.map((p) => excess(p.position.x, p.position.y, link.txPosition[0], link.txPosition[1], link.rxPosition[0], link.rxPosition[1]))) : 9;
    rows.push({ e, n: truth.length, dmin, ex, bgA: Math.sqrt(bgA / per), bgP: Math.sqrt(bgP / per), motA: Math.sqrt(motA / per), motP: Math.sqrt(motP / per) });
  }
}
function spearman(xs, ys) { const rank = (a) => { const idx = a.map((v, i) => [v, i]).sort((p, q) => p[0] - q[0]); const r = new Array(a.length); idx.forEach(([, i], j) => (r[i] = j)); return r; }; const rx = rank(xs), ry = rank(ys); const n = xs.length; const mx = (n - 1) / 2; let sxy = 0, sxx = 0; for (let i = 0; i < n; i++) { sxy += (rx[i] - mx) * (ry[i] - mx); sxx += (rx[i] - mx) ** 2; } return sxy / sxx; }
// Within-room correlation (rank) averaged over rooms, and pooled, for 1-person samples.
for (const key of ['bgA', 'bgP', 'motA', 'motP']) {
  const one = rows.filter((r) => r.n === 1);
  const pooled = spearman(one.map((r) => r.ex), one.map((r) => r[key]));
  const pooledD = spearman(one.map((r) => r.dmin), one.map((r) => r[key]));
  const byRoom = [...new Set(one.map((r) => r.e))].map((e) => { const rr = one.filter((r) => r.e === e); return spearman(rr.map((r) => r.ex), rr.map((r) => r[key])); }).filter(Number.isFinite);
  console.log(key, 'pooled rho(excess)', pooled.toFixed(3), 'rho(dist)', pooledD.toFixed(3), 'mean within-room rho', (byRoom.reduce((a, b) => a + b, 0) / byRoom.length).toFixed(3), 'rooms', byRoom.length);
}
const zero = rows.filter((r) => r.n === 0), some = rows.filter((r) => r.n > 0);
for (const key of ["bgA","bgP","motA","motP"]) console.log(key, 'empty mean', (zero.reduce((a, r) => a + r[key], 0) / zero.length).toFixed(4), 'occupied mean', (some.reduce((a, r) => a + r[key], 0) / some.length).toFixed(4));
