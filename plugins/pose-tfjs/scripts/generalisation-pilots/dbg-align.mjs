const sim = await import('@wiflow/plugin-sim');
const plan = sim.planDataset({ rooms: 700, secondsPerSession: 6, sessionsPerRoom: 1, seed: 'wiflow-pose-v2', ranges: { receivers: [3, 3], rateHz: 20 } });
const session = plan.sessions.filter((s) => s.split === 'val' && s.scenario.people.length === 1)[0];
const code = (await import('node:fs')).readFileSync(new URL('./cbp.mjs', import.meta.url), 'utf8');
const alignSrc = code.slice(code.indexOf('function align'), code.indexOf('const antennas'));
const align = new Function('process', alignSrc + '; return align;')(process);
for (const imp of [{ timingOffsetNs: 0 }, { timingOffsetNs: 40 }]) {
  const opts = { impairments: { snrDb: null, randomPhase: false, chainPhase: false, agcJitterDb: 0, quantisation: 'none', packetLoss: 0, timingJitterUs: 0, ...imp } };
  const ticks = [...new sim.Simulator({ ...session.scenario, people: [] }, opts).run(2)];
  const f0 = ticks[0].frames[0]; const idx = Array.from(f0.subcarriers);
  let rel = 0, c = 0;
  for (const t of ticks.slice(1)) { const f = t.frames[0]; const a = align(f.csi, f0.csi, idx, f.csi.re.length); let e = 0, p = 0; for (let j = 0; j < a.re.length; j++) { e += (a.re[j] - f0.csi.re[j]) ** 2 + (a.im[j] - f0.csi.im[j]) ** 2; p += f0.csi.re[j] ** 2 + f0.csi.im[j] ** 2; } rel += e / p; c++; }
  console.log(JSON.stringify(imp), 'empty residual dB', (10 * Math.log10(rel / c)).toFixed(1), 'idx', idx.join(','));
}
