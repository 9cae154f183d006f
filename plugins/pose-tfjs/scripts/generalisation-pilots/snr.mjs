import { readFileSync } from 'node:fs';
const PILOT_DIR = process.env.PILOT_DIR ?? '/tmp/wiflow-pilots';
const sim = await import('@wiflow/plugin-sim');
const spec = JSON.parse(readFileSync(new URL('../../models/wiflow-pose-v1/wiflow-model.json', import.meta.url), 'utf8'));
const recipe = spec.training.dataset;
const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
const sessions = plan.sessions.filter((s) => s.split === 'val');
const db = (x) => (10 * Math.log10(x)).toFixed(1);
const all = [];
for (const s of sessions.slice(0, 12)) {
  const a = new sim.Simulator(s.scenario), b = new sim.Simulator({ ...s.scenario, people: [] });
  const rows = [];
  for (let l = 0; l < a.links.length; l++) {
    let pd = 0, p0 = 0, pm = 0;
    for (const t of [2, 6, 10, 14]) {
      const h = a.cleanChannel(l, t), h0 = b.cleanChannel(l, t), h2 = a.cleanChannel(l, t + 0.1);
      for (let k = 0; k < h.re.length; k++) { pd += (h.re[k] - h0.re[k]) ** 2 + (h.im[k] - h0.im[k]) ** 2; p0 += h0.re[k] ** 2 + h0.im[k] ** 2; pm += (h.re[k] - h2.re[k]) ** 2 + (h.im[k] - h2.im[k]) ** 2; }
    }
    rows.push(`${db(pd / p0)}/${db(pm / p0)}`); all.push(pd / p0);
  }
  console.log(s.sessionId, 'people', s.scenario.people.length, 'snr', s.scenario.impairments?.snrDb ?? JSON.stringify(s.scenario.radios.map(r=>r.impairments?.snrDb)), 'person/static dB (and 0.1 s motion) per link', rows.join(' '));
}
all.sort((x, y) => x - y); console.log('median person/static', db(all[all.length >> 1]));
