// Pilot (not shipped; issue 22, branch fallnoise; protocol: fallnoise-protocol.md next to this file): which of the
// capture chain's impairments buries the realism table's simulated fall. The table's fall capture (Intel 5300 1 × 3,
// 20 packets/s, the sensing room's 4 m link, `fallScenario({ type: 'forward', lieDurationS: 6 })`, 12 s) is captured
// with the intel5300-ht20 profile's impairments switched on one group at a time and all but one group, beside the
// same capture with nobody moving (the person standing still at the fall's spot; nobody in the room). Each is read
// as `fallStatistics` reads it (1-s windows every 0.25 s, mean over streams of std / mean of the amplitude).
// Quantisation is also split pilot-side (no product change): the clean frames scaled per packet to RMS 20 (the AGC
// scaling alone) and scaled by one constant then rounded to int8 (the rounding alone).
// The real Intel 5300 files (evaluation only, read in place) are read the same way, plus how much each packet's
// total CSI power moves within a second (what the card's AGC lets through).
// Run from the repository root after a build:
//   node plugins/sim/pilot/fall_noise.mjs [--propagation '<json>'|--c2] [--seeds 1,2,3,4,5] [--json] [--no-real]
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Simulator, validateScenario, applyProfile, fallScenario, fallStatistics, bandShapeMotion, HARDWARE_PROFILES } from '@wiflow/plugin-sim';
import { median, medianRateHz, readLabelled, streamsOf } from './real-captures.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const C2 = { reverberation: { decayNs: 22, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' } };
const propagation = process.argv.includes('--c2') ? C2 : JSON.parse(arg('--propagation', '{}'));
const seeds = arg('--seeds', '1,2,3,4,5').split(',').map(Number);
const asJson = process.argv.includes('--json');
const SECONDS = 12;
const RATE = 20;
const TARGET_RMS = 20; // the Intel 5300 quantiser's target (radio/impairments.ts)
const realDir = join(process.cwd(), '..', 'shared', 'data', 'real', 'activities-intel5300');

// The profile's impairments, grouped by what they do; OFF switches every group off.
const PROFILE = HARDWARE_PROFILES['intel5300-ht20'].impairments;
const GROUPS = {
  noise: { on: { snrDb: PROFILE.snrDb }, off: { snrDb: null } },
  'AGC jitter': { on: { agcJitterDb: PROFILE.agcJitterDb }, off: { agcJitterDb: 0 } },
  quantisation: { on: { quantisation: 'device' }, off: { quantisation: 'none' } },
  'AGC steps': { on: { agcStepChance: PROFILE.agcStepChance, agcStepDb: PROFILE.agcStepDb }, off: { agcStepChance: 0 } },
  ripple: { on: { rippleDb: PROFILE.rippleDb }, off: { rippleDb: 0 } },
  glitches: { on: { glitchChance: PROFILE.glitchChance }, off: { glitchChance: 0 } },
  'packet timing': { on: { packetLoss: PROFILE.packetLoss, lossBurstPackets: PROFILE.lossBurstPackets, timingJitterUs: PROFILE.timingJitterUs }, off: { packetLoss: 0, lossBurstPackets: undefined, timingJitterUs: 0 } },
  'phase only': { on: { timingOffsetNs: PROFILE.timingOffsetNs, timingOffsetMeanNs: PROFILE.timingOffsetMeanNs, randomPhase: true, chainPhase: true, csd: PROFILE.csd }, off: { timingOffsetNs: 0, timingOffsetMeanNs: 0, randomPhase: false, chainPhase: false, csd: false } },
};
const NAMES = Object.keys(GROUPS);
// The real still files' median packet-power motion (0.030, std / mean) as a log-normal gain σ: 0.030 / (ln 10 / 20).
const REAL_JITTER_DB = 0.26;
const impairmentsWith = (onGroups, extra = {}) => {
  const out = { ...PROFILE, ...extra };
  for (const g of NAMES) Object.assign(out, onGroups.includes(g) ? { ...GROUPS[g].on, ...extra } : GROUPS[g].off);
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k];
  return out;
};
const CONFIGS = [
  ['none', []],
  ...NAMES.map((g) => [`${g} alone`, [g]]),
  ...NAMES.map((g) => [`all but ${g}`, NAMES.filter((x) => x !== g)]),
  ['all (the table)', NAMES],
  // What-ifs added after the first split (not in the protocol's rule): the AGC jitter at the level the real still files
  // bound (packet-power motion 0.030 ≈ 0.26 dB), with the product's AGC and, below, the once-a-second AGC.
  [`what-if: all, AGC jitter ${REAL_JITTER_DB} dB`, NAMES, { agcJitterDb: REAL_JITTER_DB }],
  [`what-if: all but quantisation, AGC jitter ${REAL_JITTER_DB} dB`, NAMES.filter((x) => x !== 'quantisation'), { agcJitterDb: REAL_JITTER_DB }],
];

/** The realism table's fall input; `scene` 'fall', 'still' (standing at the fall's spot) or 'empty'. */
function input(scene, seed, onGroups, extra) {
  const base = fallScenario({ type: 'forward', lieDurationS: 6 });
  if (scene === 'still') base.people = [{ id: 1, start: { x: 3, y: 3.2, yawDeg: 0 }, script: [{ action: 'stand', duration: SECONDS + 5 }] }];
  if (scene === 'empty') base.people = [];
  const s = { ...applyProfile(base, 'intel5300-ht20', { txAntennas: 1 }), channel: { ...(base.channel ?? {}), centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: RATE, txPowerDbm: 20 } };
  return validateScenario({ ...s, seed, impairments: impairmentsWith(onGroups, extra), propagation: { ...(s.propagation ?? {}), ...propagation } });
}
const capture = (inp) => {
  const frames = [];
  for (const tick of new Simulator(inp, { attachTruth: false }).run(SECONDS)) frames.push(...tick.frames);
  return frames;
};

/** `fallStatistics`' motion series. */
function motionSeries(streams, rate) {
  const n = streams[0]?.length ?? 0;
  const out = [];
  for (let start = 0; start + rate <= n; start += Math.max(1, Math.round(rate / 4))) {
    let sum = 0;
    for (const s of streams) sum += cv(s.subarray(start, start + rate));
    out.push(sum / streams.length);
  }
  return out;
}
function cv(w) {
  let m = 0;
  for (const x of w) m += x;
  m /= w.length;
  let v = 0;
  for (const x of w) v += (x - m) ** 2;
  return m > 0 ? Math.sqrt(v / w.length) / m : 0;
}
/** Each packet's RMS over its whole CSI: one series, read in the same windows (what AGC lets through). */
const powerSeries = (frames, rate) => motionSeries([Float64Array.from(frames, (f) => Math.sqrt(f.csi.re.reduce((a, x, i) => a + x * x + f.csi.im[i] ** 2, 0) / f.csi.re.length))], rate);
const rmsOf = (f) => Math.sqrt(f.csi.re.reduce((a, x, i) => a + x * x + f.csi.im[i] ** 2, 0) / f.csi.re.length);
/** Pilot-side quantisation parts on clean frames: per-packet scaling to RMS 20 (no rounding); one scale per capture, then int8. */
function scaledPerPacket(frames) {
  return frames.map((f) => {
    const k = TARGET_RMS / rmsOf(f);
    return { ...f, csi: { re: f.csi.re.map((x) => x * k), im: f.csi.im.map((x) => x * k) } };
  });
}
function roundedOnly(frames) {
  const k = TARGET_RMS / median(frames.map(rmsOf));
  const q = (x) => Math.min(127, Math.max(-128, Math.round(x * k)));
  return frames.map((f) => ({ ...f, csi: { re: f.csi.re.map(q), im: f.csi.im.map(q) } }));
}
/**
 * What-if AGC (pilot-side, applied to the frames captured with every impairment but quantisation): the gain is set once
 * a second from the previous second's mean power, in whole dB (as the card's AGC field reports it), then int8.
 */
function agcPerSecond(frames) {
  let k = TARGET_RMS / rmsOf(frames[0]);
  let sum = 0;
  let count = 0;
  let next = frames[0].timestamp + 1e6;
  return frames.map((f) => {
    if (f.timestamp >= next && count) {
      const db = Math.round(10 * Math.log10(sum / count));
      k = TARGET_RMS / Math.pow(10, db / 20);
      sum = count = 0;
      next += 1e6;
    }
    sum += rmsOf(f) ** 2;
    count++;
    const q = (x) => Math.min(127, Math.max(-128, Math.round(x * k)));
    return { ...f, csi: { re: f.csi.re.map(q), im: f.csi.im.map(q) } };
  });
}

const started = process.cpuUsage();
const wall = Date.now();
const rows = [];
const read = (fall, still, empty) => {
  const fs = motionSeries(streamsOf(fall), RATE);
  const st = fallStatistics(fall);
  const floor = median(motionSeries(streamsOf(still), RATE));
  const emptyFloor = median(motionSeries(streamsOf(empty), RATE));
  const peakAt = fs.indexOf(Math.max(...fs)) / 4;
  return { peak: st.peakMotion, median: median(fs), secondsAboveHalf: st.secondsAboveHalf, peakAt, stillFloor: floor, emptyFloor, peakOverFloor: st.peakMotion / floor, fallPowerPeak: Math.max(...powerSeries(fall, RATE)), stillPower: median(powerSeries(still, RATE)), bandShapePeak: bandShapeMotion(fall).peak, bandShapeStill: bandShapeMotion(still).median };
};
for (const seed of seeds) {
  for (const [name, groups, extra] of CONFIGS) {
    const frames = ['fall', 'still', 'empty'].map((scene) => capture(input(scene, seed, groups, extra)));
    if (name.startsWith('what-if: all but quantisation')) {
      rows.push({ config: `what-if: all, AGC re-set once a second in whole dB, int8, AGC jitter ${REAL_JITTER_DB} dB`, seed, ...read(...frames.map(agcPerSecond)) });
      continue;
    }
    rows.push({ config: name, seed, ...read(...frames) });
    if (name === 'all but quantisation') {
      rows.push({ config: 'what-if: all, AGC held for the capture (one scale), int8', seed, ...read(...frames.map(roundedOnly)) });
      rows.push({ config: 'what-if: all, AGC re-set once a second in whole dB, int8', seed, ...read(...frames.map(agcPerSecond)) });
    }
    if (name === 'none') {
      rows.push({ config: 'quantisation split: per-packet AGC scaling alone', seed, ...read(...frames.map(scaledPerPacket)) });
      rows.push({ config: 'quantisation split: int8 rounding alone', seed, ...read(...frames.map(roundedOnly)) });
    }
  }
}
const simCpuS = (process.cpuUsage(started).user + process.cpuUsage(started).system) / 1e6;
const simWallS = (Date.now() - wall) / 1000;

// Summary per config: medians over seeds (and the range of peak / floor).
const configs = [...new Set(rows.map((r) => r.config))];
const summary = configs.map((c) => {
  const rs = rows.filter((r) => r.config === c);
  const med = (k) => median(rs.map((r) => r[k]));
  return { config: c, peak: med('peak'), median: med('median'), secondsAboveHalf: med('secondsAboveHalf'), stillFloor: med('stillFloor'), emptyFloor: med('emptyFloor'), peakOverFloor: med('peakOverFloor'), peakOverFloorMin: Math.min(...rs.map((r) => r.peakOverFloor)), peakOverFloorMax: Math.max(...rs.map((r) => r.peakOverFloor)), peakAt: med('peakAt'), fallPowerPeak: med('fallPowerPeak'), stillPower: med('stillPower'), bandShapePeak: med('bandShapePeak'), bandShapeStill: med('bandShapeStill') };
});

// The real captures read the same way (evaluation only).
let real = null;
if (existsSync(realDir) && !process.argv.includes('--no-real')) {
  const readSet = async (names, count, maxSeconds) => {
    const out = [];
    for (const { entry: e, frames } of await readLabelled(realDir, names, count, { maxSeconds })) {
      const rate = medianRateHz(frames);
      const series = motionSeries(streamsOf(frames), rate);
      const power = powerSeries(frames, rate);
      const agc = frames.map((f) => f.agc).filter(Number.isFinite);
      out.push({ file: e.file, label: e.label, rate, peak: Math.max(...series), median: median(series), powerPeak: Math.max(...power), powerMedian: median(power), agcValues: [...new Set(agc)].length, agcMin: Math.min(...agc), agcMax: Math.max(...agc) });
    }
    return out;
  };
  const still = await readSet(['lying', 'sitting'], 6, 120);
  const falls = await readSet(['fall'], 12);
  const m = (set, k) => median(set.map((r) => r[k]));
  real = { still: { files: still.length, median: m(still, 'median'), powerMedian: m(still, 'powerMedian'), rows: still }, falls: { files: falls.length, peak: m(falls, 'peak'), median: m(falls, 'median'), powerPeak: m(falls, 'powerPeak'), powerMedian: m(falls, 'powerMedian'), rows: falls } };
} else if (!existsSync(realDir)) {
  console.log(`real captures not found at ${realDir}: simulated captures only`);
}

const result = { propagation, seeds, simWallS, simCpuS, summary, rows, real };
if (asJson) console.log(JSON.stringify(result, null, 1));
else {
  const f = (v, d = 3) => (Number.isFinite(v) ? v.toFixed(d) : '—');
  console.log(`${JSON.stringify(propagation)} seeds ${seeds.join(',')}; ${simWallS.toFixed(1)} s wall, ${simCpuS.toFixed(1)} CPU-s (simulation)`);
  console.log('| impairments | fall peak | fall median window | s above half | peak at s | still floor | empty floor | peak / still floor (range) | packet-power motion: fall peak / still | band-shape motion: fall peak / still median |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---|---|---|');
  for (const s of summary) console.log(`| ${s.config} | ${f(s.peak)} | ${f(s.median)} | ${s.secondsAboveHalf} | ${s.peakAt} | ${f(s.stillFloor)} | ${f(s.emptyFloor)} | ${f(s.peakOverFloor, 2)} (${f(s.peakOverFloorMin, 2)}–${f(s.peakOverFloorMax, 2)}) | ${f(s.fallPowerPeak)} / ${f(s.stillPower)} | ${f(s.bandShapePeak)} / ${f(s.bandShapeStill)} |`);
  console.log('(medians over seeds; packet-power motion: std / mean of each packet\'s total RMS in the same windows)');
  if (real) {
    console.log(`\nreal still (lying, sitting; ${real.still.files} files, ≤ 120 s): median window ${f(real.still.median)}, packet-power motion median ${f(real.still.powerMedian)}`);
    console.log(`real falls (${real.falls.files} files): peak ${f(real.falls.peak)}, median window ${f(real.falls.median)}, packet-power motion peak ${f(real.falls.powerPeak)}, median ${f(real.falls.powerMedian)}`);
    for (const r of [...real.still.rows, ...real.falls.rows]) console.log(`  ${r.label} ${r.file}: rate ${r.rate}, peak ${f(r.peak)}, median ${f(r.median)}, power peak ${f(r.powerPeak)} median ${f(r.powerMedian)}, AGC values ${r.agcValues} (${r.agcMin}–${r.agcMax})`);
  }
}
