// Pilot of a geometry-equivariant localisation head: per-link embeddings of the CSI change
// (shared weights), per floor cell per link geometric features, a shared MLP → heatmap.
import { readFileSync } from 'node:fs';
const PILOT_DIR = process.env.PILOT_DIR ?? '/tmp/wiflow-pilots';
const D = new URL('../../dist', import.meta.url).pathname;
import { createRequire } from 'node:module';
const tf = createRequire(import.meta.url)('@tensorflow/tfjs');
const { loadDataset } = await import(`${D}/training/dataset.js`);
const { setupBackend } = await import(`${D}/backend/backend.js`);
await setupBackend({ prefer: 'wasm' });
const dir = process.env.DATA ?? `${PILOT_DIR}/big`;
const useRef = process.argv[2] !== 'raw';
const epochs = Number(process.argv[3] ?? 6);
const T = 8, L = 3, per = 270, F = L * per * 2, N = 12, G = N * N, GF = 5, SIGMA = 0.5;
function prepare(split) {
  const data = loadDataset(`${dir}/${split}`).data;
  const b = readFileSync(`${dir}/${split}/references.bin`); const refs = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  // Per link: time-averaged features (minus the empty-room reference) and the per-bin deviation RMS over time.
  const x = new Float32Array(data.count * L * per * 3);
  for (let i = 0; i < data.count; i++) for (let l = 0; l < L; l++) for (let k = 0; k < per * 2; k++) {
    const f = l * per * 2 + k; let m = 0; for (let t = 0; t < T; t++) m += data.csi[(i * T + t) * F + f]; m /= T;
    let v = 0; for (let t = 0; t < T; t++) v += (data.csi[(i * T + t) * F + f] - m) ** 2;
    const o = (i * L + l) * per * 3;
    if (k % 2 === 0) { x[o + (k >> 1)] = m - (useRef ? refs[i * F + f] : 0); x[o + 2 * per + (k >> 1)] = Math.sqrt(v / T); }
    else x[o + per + (k >> 1)] = m - (useRef ? refs[i * F + f] : 0);
  }
  const envGeo = data.environments.map((env) => { // [L, G, GF]
    const g = new Float32Array(L * G * GF);
    env.links.forEach((link, l) => { const [ax, ay] = link.txPosition, [bx, by] = link.rxPosition; const los = Math.hypot(ax - bx, ay - by);
      for (let c = 0; c < G; c++) { const x = ((c % N) + 0.5) / N * env.room.width, y = (Math.floor(c / N) + 0.5) / N * env.room.depth;
        const da = Math.hypot(x - ax, y - ay), db = Math.hypot(x - bx, y - by); const dx = bx - ax, dy = by - ay; const tt = Math.max(0, Math.min(1, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)));
        const o = (l * G + c) * GF; g[o] = da + db - los; g[o + 1] = Math.hypot(x - ax - tt * dx, y - ay - tt * dy); g[o + 2] = da / 5; g[o + 3] = db / 5; g[o + 4] = los / 5; } });
    return g; });
  // Target heatmap: normalised sum of Gaussians at the people (empty: uniform, masked out of the loss).
  const target = new Float32Array(data.count * G); const weight = new Float32Array(data.count);
  for (let i = 0; i < data.count; i++) { const env = data.environments[data.environmentIndex[i]]; const truth = data.truths[i]; if (!truth.length) continue; weight[i] = 1; let s = 0;
    for (let c = 0; c < G; c++) { const x = ((c % N) + 0.5) / N * env.room.width, y = (Math.floor(c / N) + 0.5) / N * env.room.depth; let v = 0; for (const p of truth) v += Math.exp(-((x - p.position.x) ** 2 + (y - p.position.y) ** 2) / (2 * SIGMA * SIGMA)); target[i * G + c] = v; s += v; }
    for (let c = 0; c < G; c++) target[i * G + c] /= s || 1; }
  return { data, x, envGeo, target, weight };
}
const train = prepare('train'), val = prepare('val');
let s = new Float64Array(3), n = 0; for (let i = 0; i < train.x.length; i++) { s[Math.floor((i % (per * 3)) / per)] += train.x[i] ** 2; } const scale = [...s].map((v) => Math.sqrt(v / (train.x.length / 3)));
for (const d of [train, val]) for (let i = 0; i < d.x.length; i++) d.x[i] /= scale[Math.floor((i % (per * 3)) / per)] || 1;
console.log('feature rms', scale);
const init = (k) => tf.initializers.glorotUniform({ seed: 11 + k });
const W = { e1: tf.variable(init(1).apply([per * 3, 64])), b1: tf.variable(tf.zeros([64])), e2: tf.variable(init(2).apply([64, 32])), b2: tf.variable(tf.zeros([32])),
  we: tf.variable(init(3).apply([32, 32])), wg: tf.variable(init(4).apply([GF, 32])), bc: tf.variable(tf.zeros([32])), wo: tf.variable(init(5).apply([32, 1])) };
function forward(x, geo, training) { // x [B, L, per*3], geo [B, L, G, GF] → logits [B, G]
  return tf.tidy(() => {
    let e = tf.relu(tf.add(tf.matMul(x.reshape([-1, per * 3]), W.e1), W.b1));
    if (training) e = tf.dropout(e, 0.2);
    e = tf.relu(tf.add(tf.matMul(e, W.e2), W.b2));
    const pe = tf.matMul(e, W.we).reshape([-1, L, 1, 32]);
    const pg = tf.matMul(geo.reshape([-1, GF]), W.wg).reshape([-1, L, G, 32]);
    const h = tf.relu(tf.add(tf.add(pe, pg), W.bc));
    return tf.matMul(h.reshape([-1, 32]), W.wo).reshape([-1, L, G]).sum(1);
  });
}
function batch(d, idx) {
  const B = idx.length, x = new Float32Array(B * L * per * 3), geo = new Float32Array(B * L * G * GF), y = new Float32Array(B * G), w = new Float32Array(B);
  idx.forEach((i, j) => { x.set(d.x.subarray(i * L * per * 3, (i + 1) * L * per * 3), j * L * per * 3); geo.set(d.envGeo[d.data.environmentIndex[i]], j * L * G * GF); y.set(d.target.subarray(i * G, (i + 1) * G), j * G); w[j] = d.weight[i]; });
  return { x: tf.tensor3d(x, [B, L, per * 3]), geo: tf.tensor4d(geo, [B, L, G, GF]), y: tf.tensor2d(y, [B, G]), w: tf.tensor1d(w) };
}
function evaluate(d) {
  let err = 0, errC = 0, people = 0;
  for (let s0 = 0; s0 < d.data.count; s0 += 256) {
    const idx = Array.from({ length: Math.min(256, d.data.count - s0) }, (_, j) => s0 + j); const bt = batch(d, idx);
    const p = tf.tidy(() => tf.softmax(forward(bt.x, bt.geo, false))).dataSync(); tf.dispose(Object.values(bt));
    idx.forEach((i, j) => { const env = d.data.environments[d.data.environmentIndex[i]], truth = d.data.truths[i]; if (!truth.length) return;
      // Peaks: greedy, suppress cells within 1 m of a chosen one; k = true count (as the eval matches the k most confident slots).
      const heat = Array.from(p.subarray(j * G, (j + 1) * G)); const peaks = [];
      for (let k = 0; k < truth.length; k++) { let best = -1; for (let c = 0; c < G; c++) if (heat[c] > -1 && (best < 0 || heat[c] > heat[best])) best = c; if (best < 0) break;
        const bx = ((best % N) + 0.5) / N * env.room.width, by = (Math.floor(best / N) + 0.5) / N * env.room.depth; peaks.push([bx, by]);
        for (let c = 0; c < G; c++) { const x = ((c % N) + 0.5) / N * env.room.width, y = (Math.floor(c / N) + 0.5) / N * env.room.depth; if (Math.hypot(x - bx, y - by) < 1) heat[c] = -2; } }
      while (peaks.length < truth.length) peaks.push([env.room.width / 2, env.room.depth / 2]);
      // Greedy matching by distance (good enough for a pilot; the eval uses the exact one).
      const left = truth.map((t) => [t.position.x, t.position.y]);
      for (const pk of peaks) { let bi = 0; left.forEach((t, ti) => { if (Math.hypot(t[0] - pk[0], t[1] - pk[1]) < Math.hypot(left[bi][0] - pk[0], left[bi][1] - pk[1])) bi = ti; }); err += Math.hypot(left[bi][0] - pk[0], left[bi][1] - pk[1]); left.splice(bi, 1); }
      for (const t of truth) errC += Math.hypot(t.position.x - env.room.width / 2, t.position.y - env.room.depth / 2); people += truth.length; });
  }
  return { floor: err / people, centre: errC / people };
}
const opt = tf.train.adam(0.002); const vars = Object.values(W);
let seed = 7; const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
const t0 = Date.now();
console.log('before', evaluate(val));
for (let epoch = 0; epoch < epochs; epoch++) {
  const order = Array.from({ length: train.data.count }, (_, i) => i); for (let i = order.length - 1; i > 0; i--) { const j = Math.floor(rnd() * (i + 1)); [order[i], order[j]] = [order[j], order[i]]; }
  let ls = 0, nb = 0;
  for (let b = 0; b < order.length; b += 64) { const bt = batch(train, order.slice(b, b + 64));
    const cost = opt.minimize(() => { const logits = forward(bt.x, bt.geo, true); const ce = tf.neg(tf.sum(tf.mul(bt.y, tf.logSoftmax(logits)), 1)); return tf.div(tf.sum(tf.mul(ce, bt.w)), tf.add(tf.sum(bt.w), 1e-6)); }, true, vars);
    ls += cost.dataSync()[0]; nb++; cost.dispose(); tf.dispose(Object.values(bt)); }
  console.log(`epoch ${epoch + 1} loss ${(ls / nb).toFixed(3)} train ${JSON.stringify(evaluate({ ...train, data: { ...train.data, count: 2000 } }))} val ${JSON.stringify(evaluate(val))} ${((Date.now() - t0) / 1000).toFixed(0)}s`);
}
