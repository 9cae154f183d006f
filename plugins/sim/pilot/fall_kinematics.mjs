// Pilot (not shipped): the kinematics of the simulator's scripted movements, for comparing a simulated fall with
// walking, sitting down, lying down, dropping into a chair and getting up. For each movement (one 1.75 m person,
// sampled at 200 Hz from the timeline itself) it prints the duration, the head's and the pelvis's drop, the peak
// speed of head and pelvis (3D and downward), the fastest keypoint's peak speed, and the share of the 17 keypoints whose peak speed passes 1 m/s.
// Run from the repository root after a build: node plugins/sim/pilot/fall_kinematics.mjs
import { PersonTimeline, forwardKinematics, ALL_FALL_TYPES } from '@wiflow/plugin-sim';

const RATE = 200;
const person = (script) => new PersonTimeline({ id: 1, height: 1.75, girth: 1, breathingRateBpm: 15, breathingDepthM: 0, start: { x: 3, y: 3, yawDeg: 0 }, loop: false, script });

function measure(timeline, from, to) {
  const rows = [];
  for (let i = 0; i <= Math.round((to - from) * RATE); i++) {
    const t = from + i / RATE;
    const s = timeline.sample(t);
    rows.push(forwardKinematics(timeline.dim, s.pose));
  }
  const head = rows.map((k) => k.headCentre);
  const pelvis = rows.map((k) => k.pelvis);
  const speed = (p, i) => Math.hypot(p[i].x - p[i - 1].x, p[i].y - p[i - 1].y, p[i].z - p[i - 1].z) * RATE;
  const down = (p, i) => (p[i - 1].z - p[i].z) * RATE;
  let headPeak = 0, headDown = 0, pelvisPeak = 0, pelvisDown = 0;
  const kpPeak = new Array(17).fill(0);
  for (let i = 1; i < rows.length; i++) {
    headPeak = Math.max(headPeak, speed(head, i));
    headDown = Math.max(headDown, down(head, i));
    pelvisPeak = Math.max(pelvisPeak, speed(pelvis, i));
    pelvisDown = Math.max(pelvisDown, down(pelvis, i));
    for (let k = 0; k < 17; k++) kpPeak[k] = Math.max(kpPeak[k], speed(rows.map((r) => r.keypoints[k]), i));
  }
  return {
    duration: to - from,
    headDrop: head[0].z - head[head.length - 1].z,
    pelvisDrop: pelvis[0].z - pelvis[pelvis.length - 1].z,
    headPeak, headDown, pelvisPeak, pelvisDown,
    fast: kpPeak.filter((v) => v > 1).length,
    fastest: Math.max(...kpPeak),
  };
}

function eventsWindow(timeline, startType, endType) {
  const ev = timeline.eventsBetween(-1, 200);
  const s = ev.find((e) => e.type === startType);
  const e = ev.find((x) => x.type === endType);
  return [s.t, e.t];
}

const lines = [];
const show = (name, m) => lines.push(`| ${name} | ${m.duration.toFixed(2)} | ${m.headDrop.toFixed(2)} | ${m.pelvisDrop.toFixed(2)} | ${m.headPeak.toFixed(2)} | ${m.headDown.toFixed(2)} | ${m.pelvisPeak.toFixed(2)} | ${m.pelvisDown.toFixed(2)} | ${m.fastest.toFixed(2)} | ${m.fast}/17 |`);
for (const type of ALL_FALL_TYPES) {
  const tl = person([{ action: 'stand', duration: 2 }, { action: 'fall', type, lieDuration: 10, getUp: true }, { action: 'stand', duration: 5 }]);
  const [a, b] = eventsWindow(tl, 'fall_start', 'fall_end');
  show(`fall ${type}`, measure(tl, a, b));
  // Getting up from the floor: from the end of the lie to standing (3.5 s).
  show(`get up after ${type}`, measure(tl, b + 10, b + 13.5));
}
for (const kind of ['sit-hard', 'lie-down', 'into-bed']) {
  const tl = person([{ action: 'stand', duration: 2 }, { action: 'fall-like', kind, duration: 10, surfaceHeight: 0.45 }]);
  const [a, b] = eventsWindow(tl, 'fall_like_start', 'fall_like_end');
  show(`fall-like ${kind}`, measure(tl, a, b));
}
{
  const tl = person([{ action: 'stand', duration: 2 }, { action: 'sit', duration: 5 }]);
  show('sit down', measure(tl, 2, 3.6));
}
for (const speed of [0.7, 1.0, 1.3]) {
  const tl = person([{ action: 'walk', path: [[8, 3]], speed }]);
  show(`walk ${speed} m/s (2 s)`, measure(tl, 1, 3));
}
console.log('| movement | duration s | head drop m | pelvis drop m | head peak m/s | head down m/s | pelvis peak m/s | pelvis down m/s | fastest keypoint m/s | keypoints > 1 m/s |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const l of lines) console.log(l);
