// Pilot (not shipped): real Intel 5300 captures against simulated ones of the same radio (1 × 3, 30 groups,
// 20 MHz at 5.32 GHz, 20 packets/s) for the same activities: walking, sitting down, lying still and falls.
// Every capture gets the same measures:
//   motion      per-second motion score (mean over streams of std / mean in 1-s windows: the realism table's),
//               its peak and its median second;
//   ampStep     per-packet amplitude change per subcarrier, |A_t − A_{t−1}| / mean A, mean over streams:
//               raw, after normalising each packet by its mean amplitude (what AGC forces on a pipeline), and
//               after normalising each receive chain of each packet by its own mean (ampStepChainNorm: shape only);
//   rssiStep    per-packet change of each receive chain's RSSI (dB; the power before AGC), mean over chains and packets;
//   smoothShare the share of the per-chain shape change (packet to packet) that is smooth across the band;
//   phaseStep   per-packet change of the phase difference between receive chains (rx0·conj rx1, rx1·conj rx2),
//               mean over subcarriers, radians;
//   doppler     energy of the chain product rx0·conj rx1 (normalised by its mean magnitude) in 2–10 Hz, per
//               1-s window (Hann), mean over subcarriers: peak and median.
// Figures: median over files (real) or over simulated runs. The ratio rows divide fall by walking.
// Real files: the first N per person and label (evaluation only, nothing copied); absent folder: one line, sim only.
// Run from the repository root after a build: node plugins/sim/pilot/real_vs_sim.mjs [filesPerPerson=2 | all] [--json]
// What-ifs: WIFLOW_SIM_PROPAGATION='{"bodyBounces":true}' and WIFLOW_SIM_IMPAIRMENTS='{"snrDb":30}' are merged into the
// simulated scenarios' propagation and impairments.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Simulator, validateScenario, applyProfile, fallScenario, emptyRoomScenario, stillPersonScenario } from '@wiflow/plugin-sim';
import { readCapture } from '@wiflow/plugin-csi';

const perPerson = process.argv[2] === 'all' ? Infinity : Number(process.argv[2] ?? 2);
const asJson = process.argv.includes('--json');
const realDir = join(process.cwd(), '..', 'shared', 'data', 'real', 'activities-intel5300');

const mean = (v) => v.reduce((a, b) => a + b, 0) / (v.length || 1);
const median = (v) => {
  const s = v.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

/** Frames (1 × 3 × 30 only) as amplitude and complex arrays [packet][rx][sc]. */
function tensor(frames) {
  const ok = frames.filter((f) => f.ntx === 1 && f.nrx === 3 && f.nsc === 30);
  return ok.map((f) => ({ t: f.timestamp / 1e6, re: f.csi.re, im: f.csi.im, rssi: f.rssi ?? null }));
}

function measures(packets) {
  const n = packets.length;
  const S = 90;
  const rate = 20;
  const amp = packets.map((p) => Float64Array.from({ length: S }, (_, i) => Math.hypot(p.re[i], p.im[i])));
  const streamMean = Float64Array.from({ length: S }, (_, i) => mean(amp.map((a) => a[i])));
  const spread = (w) => {
    const m = mean(w);
    return m > 0 ? Math.sqrt(mean(w.map((x) => (x - m) ** 2))) / m : 0;
  };
  const packetMean = amp.map((a) => mean(a));
  // Motion per second, 4 windows a second (capture-stats' fallStatistics); the same on amplitudes divided by
  // their packet's mean (motionNorm: what is left once the packet's total gain is taken out); and the spread of
  // that total itself (gain: the packet's mean amplitude, std / mean in the second).
  // motionChain: each receive chain of each packet divided by its own mean, as plugin-sensing's link sensor does.
  const chainMean = amp.map((a) => [0, 1, 2].map((c) => mean(a.subarray(c * 30, c * 30 + 30))));
  const motion = [];
  const motionNorm = [];
  const motionChain = [];
  const gain = [];
  for (let s = 0; s + rate <= n; s += rate / 4) {
    let sum = 0;
    let sumNorm = 0;
    let sumChain = 0;
    for (let i = 0; i < S; i++) {
      sum += spread(amp.slice(s, s + rate).map((a) => a[i]));
      sumNorm += spread(amp.slice(s, s + rate).map((a, t) => a[i] / packetMean[s + t]));
      sumChain += spread(amp.slice(s, s + rate).map((a, t) => a[i] / chainMean[s + t][Math.floor(i / 30)]));
    }
    motion.push(sum / S);
    motionNorm.push(sumNorm / S);
    motionChain.push(sumChain / S);
    gain.push(spread(packetMean.slice(s, s + rate)));
  }
  const stepRaw = [];
  const stepNorm = [];
  const stepChain = [];
  const phaseStep = [];
  const rssiStep = [];
  for (let t = 1; t < n; t++) {
    let r = 0;
    let q = 0;
    for (let i = 0; i < S; i++) {
      r += Math.abs(amp[t][i] - amp[t - 1][i]) / (streamMean[i] || 1);
      q += Math.abs(amp[t][i] / packetMean[t] - amp[t - 1][i] / packetMean[t - 1]);
    }
    let c = 0;
    for (let i = 0; i < S; i++) c += Math.abs(amp[t][i] / chainMean[t][Math.floor(i / 30)] - amp[t - 1][i] / chainMean[t - 1][Math.floor(i / 30)]);
    stepChain.push(c / S);
    stepRaw.push(r / S);
    const ra = packets[t].rssi;
    const rb = packets[t - 1].rssi;
    if (ra && rb && ra.length === rb.length) rssiStep.push(mean(ra.map((v, c) => Math.abs(v - rb[c]))));
    stepNorm.push(q / S);
    let ph = 0;
    for (const [a, b] of [[0, 1], [1, 2]]) {
      for (let k = 0; k < 30; k++) {
        const d = (p) => Math.atan2(p.im[a * 30 + k] * p.re[b * 30 + k] - p.re[a * 30 + k] * p.im[b * 30 + k], p.re[a * 30 + k] * p.re[b * 30 + k] + p.im[a * 30 + k] * p.im[b * 30 + k]);
        let x = d(packets[t]) - d(packets[t - 1]);
        x = Math.atan2(Math.sin(x), Math.cos(x));
        ph += Math.abs(x);
      }
    }
    phaseStep.push(ph / 60);
  }
  // How smooth across the band the per-chain shape change is: the share of its packet-to-packet energy in the
  // lowest 3 DFT bins over the 30 subcarriers (white noise: 3/15 = 0.2).
  let low = 0;
  let all = 0;
  for (let t = 1; t < n; t++) {
    for (let c = 0; c < 3; c++) {
      const d = Array.from({ length: 30 }, (_, k) => amp[t][c * 30 + k] / chainMean[t][c] - amp[t - 1][c * 30 + k] / chainMean[t - 1][c]);
      for (let b = 0; b < 15; b++) {
        let re = 0;
        let im = 0;
        for (let k = 0; k < 30; k++) {
          re += d[k] * Math.cos((2 * Math.PI * b * k) / 30);
          im -= d[k] * Math.sin((2 * Math.PI * b * k) / 30);
        }
        all += re * re + im * im;
        if (b <= 2) low += re * re + im * im;
      }
    }
  }
  // Doppler energy of the chain product in 2–10 Hz, per 1-s window (20 packets: bins of 1 Hz).
  const doppler = [];
  for (let s = 0; s + rate <= n; s += rate / 4) {
    let e = 0;
    for (let k = 0; k < 30; k++) {
      const xr = [];
      const xi = [];
      for (let t = s; t < s + rate; t++) {
        const p = packets[t];
        xr.push(p.re[k] * p.re[30 + k] + p.im[k] * p.im[30 + k]);
        xi.push(p.im[k] * p.re[30 + k] - p.re[k] * p.im[30 + k]);
      }
      const mag = mean(xr.map((v, i) => Math.hypot(v, xi[i]))) || 1;
      const mr = mean(xr);
      const mi = mean(xi);
      for (let f = 2; f <= 10; f++) {
        let re = 0;
        let im = 0;
        for (let i = 0; i < rate; i++) {
          const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (rate - 1));
          const a = ((xr[i] - mr) * w) / mag;
          const b = ((xi[i] - mi) * w) / mag;
          const c = Math.cos((2 * Math.PI * f * i) / rate);
          const d = Math.sin((2 * Math.PI * f * i) / rate);
          re += a * c + b * d;
          im += b * c - a * d;
        }
        e += (re * re + im * im) / rate;
      }
    }
    doppler.push(e / 30);
  }
  const p95 = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s[Math.floor(0.95 * (s.length - 1))];
  };
  // Frequency selectivity of the channel: per packet and chain, std / mean of the amplitude over the 30 subcarriers.
  const selectivity = median(amp.flatMap((a) => [0, 1, 2].map((c) => spread(Array.from(a.subarray(c * 30, c * 30 + 30))))));
  return {
    selectivity,
    smoothShare: low / all,
    motionPeak: Math.max(...motion), motionMedian: median(motion), motionNormPeak: Math.max(...motionNorm), motionNormMedian: median(motionNorm), motionChainPeak: Math.max(...motionChain), motionChainMedian: median(motionChain), gainPeak: Math.max(...gain), gainMedian: median(gain),
    ampStepRaw: median(stepRaw), ampStepRawP95: p95(stepRaw), ampStepNorm: median(stepNorm), ampStepNormP95: p95(stepNorm), ampStepChainNorm: median(stepChain),
    rssiStep: rssiStep.length ? mean(rssiStep) : NaN,
    phaseStep: median(phaseStep), phaseStepP95: p95(phaseStep),
    dopplerPeak: Math.max(...doppler), dopplerMedian: median(doppler),
  };
}

/** The realism table's simulated Intel 5300 setup. */
function intel(input) {
  const s = { ...applyProfile(input, 'intel5300-ht20', { txAntennas: 1 }), channel: { ...(input.channel ?? {}), centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 20, txPowerDbm: 20 } };
  if (process.env.WIFLOW_SIM_PROPAGATION) s.propagation = { ...(s.propagation ?? {}), ...JSON.parse(process.env.WIFLOW_SIM_PROPAGATION) };
  if (process.env.WIFLOW_SIM_IMPAIRMENTS) s.impairments = { ...(s.impairments ?? {}), ...JSON.parse(process.env.WIFLOW_SIM_IMPAIRMENTS) };
  return s;
}
function simulate(input, seconds, fromS = 0, toS = seconds) {
  const sim = new Simulator(validateScenario(input), { attachTruth: false });
  const out = [];
  for (const tick of sim.run(seconds)) if (tick.t >= fromS && tick.t < toS) out.push(...tick.frames);
  return out;
}
const walking = (seed, speed) => ({ ...emptyRoomScenario({ durationS: 15, seed }), people: [{ id: 1, start: { x: 1.5, y: 1 }, loop: true, script: [{ action: 'walk', path: [[4.5, 4]], speed }, { action: 'walk', path: [[1.5, 1]], speed }] }] });
const sitDown = (seed, y) => ({ ...emptyRoomScenario({ durationS: 12, seed }), people: [{ id: 1, start: { x: 3, y, yawDeg: -90 }, script: [{ action: 'stand', duration: 4 }, { action: 'sit', duration: 10 }] }] });

const SIM = {
  walking: [[1, 1.1], [2, 0.8], [3, 1.3]].map(([seed, v]) => () => simulate(intel(walking(seed, v)), 15)),
  'sit down': [[1, 3.2], [2, 4], [3, 1.8]].map(([seed, y]) => () => simulate(intel(sitDown(seed, y)), 12)),
  lying: [1, 2].map((seed) => () => simulate(intel(stillPersonScenario({ posture: 'lie', durationS: 60, seed })), 60, 5)),
  // A fall sample cut like the real ones: from 2 s before the fall's start (the walk ends about 4.3 s in) to 8 s after.
  fall: ['forward', 'backward', 'sideways', 'trip', 'knees'].map((type) => () => simulate(intel(fallScenario({ type, lieDurationS: 8 })), 14, 2)),
};

const rows = {};
if (existsSync(realDir)) {
  const labels = JSON.parse(readFileSync(join(realDir, 'labels.json'), 'utf8'));
  for (const label of Object.keys(SIM)) {
    const count = new Map();
    const values = [];
    for (const e of labels.filter((l) => l.label === label)) {
      const c = count.get(e.person) ?? 0;
      if (c >= perPerson) continue;
      count.set(e.person, c + 1);
      // A file cut short keeps the frames before the cut (onError: 'stop').
      let packets = tensor(await readCapture(join(realDir, e.file), { onError: 'stop' }));
      if (label === 'lying') packets = packets.slice(0, 20 * 60);
      if (packets.length < 40) continue;
      values.push(measures(packets));
    }
    rows[label] = { real: values };
  }
} else {
  console.log(`real captures not found at ${realDir}: simulated column only`);
}
for (const [label, runs] of Object.entries(SIM)) {
  rows[label] = { ...(rows[label] ?? {}), sim: runs.map((run) => measures(tensor(run()))) };
}

const keys = Object.keys(rows.walking.sim[0]);
const summary = {};
for (const [label, r] of Object.entries(rows)) {
  summary[label] = {};
  for (const k of keys) summary[label][k] = { real: r.real ? median(r.real.map((v) => v[k])) : null, realFiles: r.real?.length ?? 0, sim: median(r.sim.map((v) => v[k])), simRuns: r.sim.length };
}
if (asJson) {
  console.log(JSON.stringify(summary, null, 1));
} else {
  const f = (v) => (v === null || !Number.isFinite(v) ? '—' : v < 0.01 ? v.toExponential(2) : v.toFixed(3));
  console.log(`| activity | measure | real (files) | simulated (runs) | real / sim |`);
  console.log(`|---|---|---:|---:|---:|`);
  for (const [label, s] of Object.entries(summary)) {
    for (const k of keys) console.log(`| ${label} | ${k} | ${f(s[k].real)} (${s[k].realFiles}) | ${f(s[k].sim)} (${s[k].simRuns}) | ${s[k].real === null ? '—' : (s[k].real / s[k].sim).toFixed(2)} |`);
  }
  console.log(`\n| measure | real fall / walking | simulated fall / walking |`);
  console.log(`|---|---:|---:|`);
  for (const k of keys) console.log(`| ${k} | ${f(summary.fall[k].real / summary.walking[k].real)} | ${f(summary.fall[k].sim / summary.walking[k].sim)} |`);
}
