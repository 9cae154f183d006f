// Pilot (not shipped): the fastest keypoint at every motion transition of the simulator's timelines. Each script
// (one 1.75 m person, sampled at 200 Hz from the timeline itself) is scanned whole; for every change of segment
// (activity or motion) it prints the fastest keypoint speed within ±0.5 s of it, and the worst sample overall.
// A body part above ~8 m/s between 5-ms samples is a snap, not a movement.
// Run from the repository root after a build: node plugins/sim/pilot/transition_speed.mjs
import { PersonTimeline, forwardKinematics } from '@wiflow/plugin-sim';

const RATE = 200;
const person = (script, id = 1) => new PersonTimeline({ id, height: 1.75, girth: 1, breathingRateBpm: 15, breathingDepthM: 0, start: { x: 3, y: 3, yawDeg: 0 }, loop: false, script });

const scripts = {
  'stand → walk → stand': [{ action: 'stand', duration: 2 }, { action: 'walk', path: [[5, 3]], speed: 1 }, { action: 'stand', duration: 2 }],
  'walk with a corner → stand': [{ action: 'walk', path: [[5, 3], [5, 5]], speed: 1.3 }, { action: 'stand', duration: 2 }],
  'walk → turn → walk': [{ action: 'walk', path: [[5, 3]], speed: 1 }, { action: 'turn', yawDeg: 180 }, { action: 'walk', path: [[3, 3]], speed: 0.7 }],
  'walk → walk (other speed)': [{ action: 'walk', path: [[5, 3]], speed: 1 }, { action: 'walk', path: [[5, 5]], speed: 0.5 }],
  'walk → sit → walk': [{ action: 'walk', path: [[5, 3]], speed: 1 }, { action: 'sit', duration: 3 }, { action: 'walk', path: [[3, 3]], speed: 1 }],
  'walk → lie → walk': [{ action: 'walk', path: [[5, 3]], speed: 1 }, { action: 'lie', duration: 3, surfaceHeight: 0, side: 'back' }, { action: 'walk', path: [[3, 3]], speed: 1 }],
  'walk → fall forward → get up': [{ action: 'walk', path: [[5, 3]], speed: 1 }, { action: 'fall', type: 'forward', lieDuration: 3, getUp: true }, { action: 'stand', duration: 2 }],
  'walk → sit-hard': [{ action: 'walk', path: [[5, 3]], speed: 1 }, { action: 'fall-like', kind: 'sit-hard', duration: 3, surfaceHeight: 0.45 }],
  'stand (fidgets) → sit (fidgets) → lie': [{ action: 'stand', duration: 6, fidgetEveryS: 2 }, { action: 'sit', duration: 6, fidgetEveryS: 2 }, { action: 'lie', duration: 6, surfaceHeight: 0.45, side: 'left', fidgetEveryS: 2 }],
  'turn in place': [{ action: 'turn', yawDeg: 170 }, { action: 'turn', yawDeg: -90, duration: 0.3 }, { action: 'stand', duration: 1 }],
  'walk → leave': [{ action: 'walk', path: [[4, 3]], speed: 1 }, { action: 'leave', path: [[5, 3]], speed: 1 }],
};

const speedOf = (a, b) => Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z) * RATE;
let worstAll = 0;
for (const [name, script] of Object.entries(scripts)) {
  for (const id of [1, 2, 3]) {
    const tl = person(script, id);
    const end = Math.min(40, tl.sample(0) && 40);
    let prev = null;
    let prevAct = null;
    const marks = [];
    const speeds = [];
    for (let i = 0; i <= end * RATE; i++) {
      const t = i / RATE;
      const s = tl.sample(t);
      const k = s.pose ? forwardKinematics(tl.dim, s.pose).keypoints : null;
      let v = 0;
      if (k && prev) for (let j = 0; j < 17; j++) v = Math.max(v, speedOf(k[j], prev[j]));
      speeds.push({ t, v, act: s.activity });
      if (prevAct !== null && s.activity !== prevAct) marks.push({ t, from: prevAct, to: s.activity });
      prev = k;
      prevAct = s.activity;
    }
    const worst = speeds.reduce((a, b) => (b.v > a.v ? b : a));
    worstAll = Math.max(worstAll, worst.v);
    const around = marks.map((m) => {
      const near = speeds.filter((s) => Math.abs(s.t - m.t) <= 0.5).reduce((a, b) => Math.max(a, b.v), 0);
      return `${m.from}→${m.to}@${m.t.toFixed(2)}s ${near.toFixed(1)}`;
    });
    console.log(`${name} [id ${id}]: worst ${worst.v.toFixed(1)} m/s at ${worst.t.toFixed(3)} s (${worst.act}); ${around.join(', ')}`);
  }
}
console.log(`fastest keypoint over all scripts: ${worstAll.toFixed(1)} m/s`);
