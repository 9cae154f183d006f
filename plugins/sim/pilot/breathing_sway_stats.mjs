// Figures of docs/simulator.md, "Breathing and sway": per seed, one hour of breathing at 15 bpm (breath-period CV
// with sighs, sighs, mean rate) and the fastest keypoint of a person sitting still for 60 s (breathing and sway,
// 100 Hz, from the end of sitting down to the start of getting up). Usage: node plugins/sim/pilot/breathing_sway_stats.mjs
import { BreathingPattern, forwardKinematics, PersonSchema, PersonTimeline } from '../dist/index.js';

for (let seed = 1; seed <= 8; seed++) {
  const b = new BreathingPattern(15, 0.005, undefined, `s${seed}`);
  const breaths = b.breathsBetween(0, 3600);
  const d = breaths.map((x) => x.duration);
  const mean = d.reduce((s, x) => s + x, 0) / d.length;
  const cv = Math.sqrt(d.reduce((s, x) => s + (x - mean) ** 2, 0) / d.length) / mean;
  const p = new PersonTimeline(PersonSchema.parse({ id: 2, start: { x: 2, y: 2, yawDeg: 0 }, script: [{ action: 'sit', duration: 60 }, { action: 'walk', path: [[3, 2]], speed: 1 }] }), seed);
  let previous = forwardKinematics(p.dim, p.sample(1.7).pose).keypoints;
  let fastest = 0;
  for (let t = 1.71; t < 61.5; t += 0.01) {
    const now = forwardKinematics(p.dim, p.sample(t).pose).keypoints;
    for (let k = 0; k < now.length; k++) fastest = Math.max(fastest, Math.hypot(now[k].x - previous[k].x, now[k].y - previous[k].y, now[k].z - previous[k].z) * 100);
    previous = now;
  }
  console.log(`seed ${seed}: breath-period CV ${cv.toFixed(3)}, ${breaths.filter((x) => x.sigh).length} sighs, mean rate ${b.rateBetween(0, 3600).toFixed(2)} bpm; fastest keypoint sitting still ${(100 * fastest).toFixed(1)} cm/s`);
}
