// Pilot (not shipped; round 3 of the reverberant body, issue 22): what sets the still person's amplitude
// autocorrelation at 1 s and the breathing depth in the realism table? The table's own scenarios and measures
// (`stillSceneStatistics`, `breathingDepth`, `dopplerStatistics`), each run with the radio's noise and AGC jitter
// as profiled and without them (snrDb 1000, agcJitterDb 0), option off and C2, and breathing at the default 5 mm
// chest excursion and at 2.5 and 10 mm. Run from the repository root after a build:
//   node plugins/sim/pilot/still_breathing_parts.mjs
import { Simulator, validateScenario, applyProfile, stillPersonScenario, stillSceneStatistics, breathingDepth, dopplerStatistics } from '@wiflow/plugin-sim';

const C2 = { reverberation: { decayNs: 22, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' } };
const QUIET = { snrDb: 1000, agcJitterDb: 0 };
const intel = (input) => ({ ...applyProfile(input, 'intel5300-ht20', { txAntennas: 1 }), channel: { ...(input.channel ?? {}), centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: 20, txPowerDbm: 20 } });
function esp32(input) {
  const s = applyProfile(input, 'esp32-ht20');
  return { ...s, channel: { ...(s.channel ?? {}), centerFrequencyHz: 2.437e9, bandwidthMHz: 20, rateHz: 10, txPowerDbm: 20 }, radios: s.radios.map((r) => ({ ...r, esp32Field: 'lltf' })) };
}
function run(input, propagation, impairments, seconds, fromS) {
  const s = validateScenario({ ...input, propagation: { ...(input.propagation ?? {}), ...propagation }, impairments: { ...(input.impairments ?? {}), ...impairments } });
  const out = [];
  for (const tick of new Simulator(s, { attachTruth: false }).run(seconds)) if (tick.t >= fromS) out.push(...tick.frames);
  return out;
}
const f = (v) => v.toFixed(3);
console.log('| capture | option | noise and AGC jitter | chest excursion | autocorrelation 1 packet | 1 s | std / mean | median Hz | breathing depth median | best |');
console.log('|---|---|---|---:|---:|---:|---:|---:|---:|---:|');
for (const [name, prop] of [['off', {}], ['C2', C2]]) {
  for (const [noise, imp] of [['as profiled', {}], ['none', QUIET]]) {
    const still = run(intel(stillPersonScenario({ posture: 'lie', durationS: 120, fidgetEveryS: 60 })), prop, imp, 120, 5);
    const s = stillSceneStatistics(still);
    const d = dopplerStatistics(still);
    console.log(`| still, lying (Intel) | ${name} | ${noise} | 5 mm | ${f(s.autocorrelationLag1)} | ${f(s.autocorrelation1s)} | ${f(s.amplitudeCv)} | ${f(d.medianHz)} | | |`);
    for (const depth of [0.0025, 0.005, 0.01]) {
      const b = breathingDepth(run(esp32(stillPersonScenario({ posture: 'sit', distanceM: 1.5, durationS: 70, breathingRateBpm: 15, breathingDepthM: depth })), prop, imp, 70, 5));
      console.log(`| breathing, seated 1.5 m (ESP32) | ${name} | ${noise} | ${depth * 1000} mm | | | | | ${f(b.medianDepth)} | ${f(b.bestDepth)} |`);
    }
  }
}
