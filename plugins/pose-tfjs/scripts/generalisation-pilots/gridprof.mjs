// Learned, geometry-equivariant localisation head on delay-profile features (pilot).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const PILOT_DIR = process.env.PILOT_DIR ?? '/tmp/wiflow-pilots';
const tf = createRequire(import.meta.url)('@tensorflow/tfjs');
const { setupBackend } = await import('../../dist/backend/backend.js');
await setupBackend({ prefer: 'wasm' });
const N = 16, G = N * N, L = 3, FL = 8, FC = 3, SIGMA = 0.5, epochs = Number(process.argv[2] ?? 10);
function prepare(split) {
  const { BINS, STEP, LO, samples } = JSON.parse(readFileSync(`${PILOT_DIR}/${process.env.PROF ?? 'prof'}/${split}.json`, 'utf8'));
  const at = (p, d) => { const x = Math.max(0, Math.min(BINS - 1.001, (d - LO) / STEP)); const i = Math.floor(x), f = x - i; return p[i] * (1 - f) + p[i + 1] * f; };
  const n = samples.length, x = new Float32Array(n * L * G * FL), cellF = new Float32Array(n * G * FC), target = new Float32Array(n * G), weight = new Float32Array(n);
  samples.forEach((s, i) => {
    const W = s.room.width, D = s.room.depth;
    s.links.forEach((l, j) => { let mx = -Infinity, mean = 0; for (const v of l.profile) { mx = Math.max(mx, v); mean += v / l.profile.length; }
      for (let c = 0; c < G; c++) { const cx = ((c % N) + 0.5) / N * W, cy = (Math.floor(c / N) + 0.5) / N * D;
        const d = Math.hypot(cx - l.tx[0], cy - l.tx[1], 1 - l.tx[2]) + Math.hypot(cx - l.rx[0], cy - l.rx[1], 1 - l.rx[2]);
        const dx = l.rx[0] - l.tx[0], dy = l.rx[1] - l.tx[1]; const t = Math.max(0, Math.min(1, ((cx - l.tx[0]) * dx + (cy - l.tx[1]) * dy) / (dx * dx + dy * dy)));
        const o = ((i * L + j) * G + c) * FL;
        x.set([(at(l.profile, d) - mean) / 3, (at(l.profile, d - 0.6) - mean) / 3, (at(l.profile, d + 0.6) - mean) / 3, (d - l.los) / 3, l.los / 5, Math.hypot(cx - l.tx[0] - t * dx, cy - l.tx[1] - t * dy) / 2, (mx - mean) / 3, mean / 5], o); } });
    for (let c = 0; c < G; c++) { const fx = ((c % N) + 0.5) / N, fy = (Math.floor(c / N) + 0.5) / N; cellF.set([fx - 0.5, fy - 0.5, Math.hypot((fx - 0.5) * W, (fy - 0.5) * D) / 3], (i * G + c) * FC); }
    if (s.truth.length) { weight[i] = 1; let sum = 0;
      for (let c = 0; c < G; c++) { const cx = ((c % N) + 0.5) / N * W, cy = (Math.floor(c / N) + 0.5) / N * D; let v = 0; for (const [px, py] of s.truth) v += Math.exp(-((cx - px) ** 2 + (cy - py) ** 2) / (2 * SIGMA * SIGMA)); target[i * G + c] = v; sum += v; }
      for (let c = 0; c < G; c++) target[i * G + c] /= sum || 1; }
  });
  return { samples, x, cellF, target, weight, n };
}
const train = prepare('train'), val = prepare('val');
console.log('samples', train.n, val.n);
const init = (k) => tf.initializers.glorotUniform({ seed: 31 + k });
const V = { w1: tf.variable(init(1).apply([FL, 32])), b1: tf.variable(tf.zeros([32])), w2: tf.variable(init(2).apply([32, 32])), b2: tf.variable(tf.zeros([32])), w3: tf.variable(init(3).apply([32, 1])),
  p1: tf.variable(init(4).apply([FC, 16])), q1: tf.variable(tf.zeros([16])), p2: tf.variable(init(5).apply([16, 1])) };
const forward = (x, cf) => tf.tidy(() => {
  let h = tf.relu(tf.add(tf.matMul(x.reshape([-1, FL]), V.w1), V.b1)); h = tf.relu(tf.add(tf.matMul(h, V.w2), V.b2));
  const perLink = tf.matMul(h, V.w3).reshape([-1, L, G]).sum(1);
  const prior = tf.matMul(tf.relu(tf.add(tf.matMul(cf.reshape([-1, FC]), V.p1), V.q1)), V.p2).reshape([-1, G]);
  return tf.add(perLink, prior);
});
const slice = (d, idx) => { const B = idx.length, x = new Float32Array(B * L * G * FL), cf = new Float32Array(B * G * FC), y = new Float32Array(B * G), w = new Float32Array(B);
  idx.forEach((i, j) => { x.set(d.x.subarray(i * L * G * FL, (i + 1) * L * G * FL), j * L * G * FL); cf.set(d.cellF.subarray(i * G * FC, (i + 1) * G * FC), j * G * FC); y.set(d.target.subarray(i * G, (i + 1) * G), j * G); w[j] = d.weight[i]; });
  return { x: tf.tensor4d(x, [B, L, G, FL]), cf: tf.tensor3d(cf, [B, G, FC]), y: tf.tensor2d(y, [B, G]), w: tf.tensor1d(w) }; };
function evaluate(d) {
  const r = { one: [0, 0, 0, 0], all: [0, 0, 0] }; // one: soft, argmax, centre, n; all: peaks err, centre err, persons
  for (let s0 = 0; s0 < d.n; s0 += 256) { const idx = Array.from({ length: Math.min(256, d.n - s0) }, (_, j) => s0 + j); const b = slice(d, idx);
    const p = tf.tidy(() => tf.softmax(forward(b.x, b.cf))).dataSync(); tf.dispose(Object.values(b));
    idx.forEach((i, j) => { const s = d.samples[i]; if (!s.truth.length) return; const W = s.room.width, D = s.room.depth; const cell = (c) => [((c % N) + 0.5) / N * W, (Math.floor(c / N) + 0.5) / N * D];
      const heat = Array.from(p.subarray(j * G, (j + 1) * G));
      if (s.truth.length === 1) { let sx = 0, sy = 0, best = 0; heat.forEach((v, c) => { const [cx, cy] = cell(c); sx += v * cx; sy += v * cy; if (v > heat[best]) best = c; }); const [t] = s.truth; const [bx, by] = cell(best);
        r.one[0] += Math.hypot(sx - t[0], sy - t[1]); r.one[1] += Math.hypot(bx - t[0], by - t[1]); r.one[2] += Math.hypot(W / 2 - t[0], D / 2 - t[1]); r.one[3]++; }
      const peaks = []; const h = heat.slice();
      for (let k = 0; k < s.truth.length; k++) { let best = 0; h.forEach((v, c) => { if (v > h[best]) best = c; }); const [bx, by] = cell(best); peaks.push([bx, by]); h.forEach((_, c) => { const [cx, cy] = cell(c); if (Math.hypot(cx - bx, cy - by) < 1) h[c] = -1; }); }
      // Exact matching over permutations (≤ 3 people), as the eval does.
      const perms = (a) => a.length <= 1 ? [a] : a.flatMap((v, i) => perms([...a.slice(0, i), ...a.slice(i + 1)]).map((q) => [v, ...q]));
      let bestSum = Infinity; for (const q of perms([...s.truth.keys()])) { let e = 0; q.forEach((ti, pi) => { e += Math.hypot(s.truth[ti][0] - peaks[pi][0], s.truth[ti][1] - peaks[pi][1]); }); bestSum = Math.min(bestSum, e); }
      r.all[0] += bestSum; for (const t of s.truth) r.all[1] += Math.hypot(W / 2 - t[0], D / 2 - t[1]); r.all[2] += s.truth.length; }); }
  return `one person (${r.one[3]}): soft ${(r.one[0] / r.one[3]).toFixed(2)} m, argmax ${(r.one[1] / r.one[3]).toFixed(2)} m, centre ${(r.one[2] / r.one[3]).toFixed(2)} m | all people (${r.all[2]}): peaks ${(r.all[0] / r.all[2]).toFixed(2)} m, centre ${(r.all[1] / r.all[2]).toFixed(2)} m`;
}
const opt = tf.train.adam(0.003); const vars = Object.values(V); let seed = 3; const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647); const t0 = Date.now();
for (let e = 0; e < epochs; e++) {
  const order = Array.from({ length: train.n }, (_, i) => i); for (let i = order.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [order[i], order[j]] = [order[j], order[i]]; }
  let ls = 0, nb = 0;
  for (let b0 = 0; b0 < order.length; b0 += 64) { const b = slice(train, order.slice(b0, b0 + 64));
    const cost = opt.minimize(() => { const ce = tf.neg(tf.sum(tf.mul(b.y, tf.logSoftmax(forward(b.x, b.cf))), 1)); return tf.div(tf.sum(tf.mul(ce, b.w)), tf.add(tf.sum(b.w), 1e-6)); }, true, vars);
    ls += cost.dataSync()[0]; nb++; cost.dispose(); tf.dispose(Object.values(b)); }
  console.log(`epoch ${e + 1} loss ${(ls / nb).toFixed(3)} | val ${evaluate(val)} | ${((Date.now() - t0) / 1000).toFixed(0)}s`);
}
console.log('train (first 1500):', evaluate({ ...train, n: Math.min(1500, train.n) }));
