// Per labelled instant: per link, the delay profile of the change against the empty-room reference
// (packets aligned to the reference: complex gain and timing slope), averaged over the last 16 packets.
import { writeFileSync, mkdirSync } from 'node:fs';
import { align } from './align.mjs';
const PILOT_DIR = process.env.PILOT_DIR ?? '/tmp/wiflow-pilots';
const sim = await import('@wiflow/plugin-sim');
const C = 299792458, DF = 312500, BINS = 150, STEP = 0.2, LO = -2; // path length LO + b×STEP (m)
const split = process.argv[2], maxSessions = Number(process.argv[3] ?? Infinity);
const rooms = Number(process.env.ROOMS ?? 700);
const plan = sim.planDataset({ rooms, secondsPerSession: 6, sessionsPerRoom: 1, seed: 'wiflow-pose-v2', ranges: { receivers: [3, 3], rateHz: 20, ...(process.env.BW ? { bandwidthMHz: Number(process.env.BW) } : {}) } });
const sessions = plan.sessions.filter((s) => s.split === split).slice(0, maxSessions);
const tables = new Map();
function profile(H, idx, n, lo, bins, step) {
  const key = `${idx.join(',')}|${lo}|${bins}|${step}`; let tab = tables.get(key);
  if (!tab) { tab = { c: new Float64Array(bins * idx.length), s: new Float64Array(bins * idx.length) }; for (let b = 0; b < bins; b++) for (let k = 0; k < idx.length; k++) { const ph = 2 * Math.PI * idx[k] * DF * (lo + b * step) / C; tab.c[b * idx.length + k] = Math.cos(ph); tab.s[b * idx.length + k] = Math.sin(ph); } tables.set(key, tab); }
  const P = new Float64Array(bins); const S = n / idx.length, K = idx.length;
  for (let b = 0; b < bins; b++) { let p = 0; for (let s = 0; s < S; s++) { let re = 0, im = 0; for (let k = 0; k < K; k++) { const c = tab.c[b * K + k], sn = tab.s[b * K + k], j = s * K + k; re += H.re[j] * c - H.im[j] * sn; im += H.re[j] * sn + H.im[j] * c; } p += re * re + im * im; } P[b] = p; }
  return P;
}
const out = [];
const t0 = Date.now();
for (const [si, session] of sessions.entries()) {
  const scen = session.scenario; const radios = new Map(scen.radios.map((r) => [r.id, r]));
  const refs = new Map();
  for (const tick of new sim.Simulator({ ...scen, people: [] }).run(2)) for (const f of tick.frames) { const key = `${f.link.tx}->${f.link.rx}`; const n = f.csi.re.length;
    let r = refs.get(key); if (!r) refs.set(key, (r = { sum: { re: new Float64Array(n), im: new Float64Array(n) }, first: { re: Float64Array.from(f.csi.re), im: Float64Array.from(f.csi.im) }, idx: Array.from(f.subcarriers), n: 0 }));
    const a = align(f.csi, r.first, r.idx, n); for (let j = 0; j < n; j++) { r.sum.re[j] += a.re[j]; r.sum.im[j] += a.im[j]; } r.n++; }
  const links = [];
  for (const [key, r] of refs) { const H0 = { re: r.sum.re.map((v) => v / r.n), im: r.sum.im.map((v) => v / r.n) };
    const [txId, rxId] = key.split('->'); const tx = radios.get(txId).position, rx = radios.get(rxId).position; const los = Math.hypot(tx[0] - rx[0], tx[1] - rx[1], tx[2] - rx[2]);
    const P0 = profile(H0, r.idx, H0.re.length, -15, 300, 0.1); let pk = 0; for (let b = 0; b < 300; b++) if (P0[b] > P0[pk]) pk = b;
    links.push({ key, H0, idx: r.idx, tx, rx, los, shift: -15 + pk * 0.1 - los, hist: [] }); }
  links.sort((a, b) => a.key.localeCompare(b.key));
  for (const tick of new sim.Simulator(scen).run(6)) {
    for (const f of tick.frames) { const L = links.find((l) => l.key === `${f.link.tx}->${f.link.rx}`); const n = f.csi.re.length;
      const a = align(f.csi, L.H0, L.idx, n); for (let j = 0; j < n; j++) { a.re[j] -= L.H0.re[j]; a.im[j] -= L.H0.im[j]; }
      const P = profile(a, L.idx, n, LO + L.shift, BINS, STEP); let tot = 0; for (const v of P) tot += v; L.hist.push(P.map((v) => v / tot)); if (L.hist.length > 16) L.hist.shift(); }
    if (tick.index % 5 !== 0 || tick.index < 16) continue;
    out.push({ session: si, room: scen.room, links: links.map((L) => ({ tx: L.tx, rx: L.rx, los: L.los, profile: Array.from({ length: BINS }, (_, b) => Math.log(L.hist.reduce((s, P) => s + P[b], 0) / L.hist.length + 1e-6)) })), truth: tick.truth.persons.map((p) => [p.position.x, p.position.y]) });
  }
  if (si % 10 === 0) console.log(`${split} ${si + 1}/${sessions.length} ${out.length} samples ${((Date.now() - t0) / 1000).toFixed(0)}s`);
}
const profDir = `${PILOT_DIR}/${process.env.PROF ?? 'prof'}`;
mkdirSync(profDir, { recursive: true });
writeFileSync(`${profDir}/${split}.json`, JSON.stringify({ BINS, STEP, LO, samples: out }));
console.log(`done ${split} ${out.length} samples ${((Date.now() - t0) / 1000).toFixed(0)}s`);
