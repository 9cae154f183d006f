import { describe, expect, it } from 'vitest';
import { COCO_INDEX as K, forwardKinematics, PersonSchema, PersonTimeline, SITTING_SWAY, STANDING_SWAY } from '../index.js';

function still(action: 'sit' | 'stand', seconds: number, seed: number | string) {
  return new PersonTimeline(PersonSchema.parse({ id: 2, breathingDepthM: 0, start: { x: 2, y: 2, yawDeg: 0 }, script: [{ action, duration: seconds }, { action: 'walk', path: [[3, 2]], speed: 1 }] }), seed);
}

/** Largest share of the power (mean removed) that any 0.02 Hz-wide band inside 0.05–0.7 Hz holds, by a plain DFT. */
function largestLineShare(x: number[], rate: number): number {
  const m = x.reduce((s, v) => s + v, 0) / x.length;
  const y = x.map((v) => v - m);
  const total = y.reduce((s, v) => s + v * v, 0) * (x.length / 2);
  const df = rate / y.length;
  const power: number[] = [];
  for (let k = 1; k < y.length / 2; k++) {
    let re = 0;
    let im = 0;
    for (let i = 0; i < y.length; i++) {
      re += y[i] * Math.cos((2 * Math.PI * k * i) / y.length);
      im -= y[i] * Math.sin((2 * Math.PI * k * i) / y.length);
    }
    power[k] = re * re + im * im;
  }
  let best = 0;
  const width = Math.round(0.02 / df);
  for (let k = Math.ceil(0.05 / df); k + width <= 0.7 / df; k++) {
    let band = 0;
    for (let j = k; j < k + width; j++) band += power[j];
    best = Math.max(best, band / total);
  }
  return best;
}

describe('postural sway: broadband, a few millimetres', () => {
  it('seated trunk sway has no spectral line: no 0.02 Hz band in 0.05–0.7 Hz holds more than 20 % of its power (the old 0.13 Hz sine held nearly all)', () => {
    const p = still('sit', 400, 5);
    const rate = 5;
    const flex: number[] = [];
    for (let t = 10; t < 390; t += 1 / rate) flex.push(p.sample(t).pose!.trunkFlex + 0.08);
    expect(largestLineShare(flex, rate)).toBeLessThan(0.2);
    const rms = Math.sqrt(flex.reduce((s, v) => s + v * v, 0) / flex.length);
    expect(rms).toBeGreaterThan(0.5 * SITTING_SWAY.trunkFlex);
    expect(rms).toBeLessThan(2 * SITTING_SWAY.trunkFlex);
  });

  it('standing pelvis sway has no spectral line either, and stays within a couple of centimetres', () => {
    const p = still('stand', 400, 6);
    const rate = 5;
    const x: number[] = [];
    for (let t = 10; t < 390; t += 1 / rate) x.push(p.sample(t).pose!.pelvis.x - 2);
    expect(largestLineShare(x, rate)).toBeLessThan(0.2);
    expect(Math.max(...x.map(Math.abs))).toBeLessThan(0.02);
    const rms = Math.sqrt(x.reduce((s, v) => s + v * v, 0) / x.length);
    expect(rms).toBeGreaterThan(0.5 * STANDING_SWAY.x);
  });

  it('keeps keypoints at physical speeds: under 5 cm/s while sitting still, including where the sway fades in and out around the transitions', () => {
    const p = still('sit', 60, 8);
    const rate = 100;
    let previous = forwardKinematics(p.dim, p.sample(1.7).pose!).keypoints;
    let fastest = 0;
    // From the end of sitting down (1.6 s) to the start of getting up (61.6 s).
    for (let t = 1.7 + 1 / rate; t < 61.5; t += 1 / rate) {
      const now = forwardKinematics(p.dim, p.sample(t).pose!).keypoints;
      for (const k of [K.nose, K.leftShoulder, K.rightWrist, K.leftHip]) fastest = Math.max(fastest, Math.hypot(now[k].x - previous[k].x, now[k].y - previous[k].y, now[k].z - previous[k].z) * rate);
      previous = now;
    }
    expect(fastest).toBeLessThan(0.05);
  });

  it('is reproducible: the same seed sways the same, another seed otherwise', () => {
    const flex = (seed: number) => Array.from({ length: 50 }, (_, i) => still('sit', 100, seed).sample(5 + i).pose!.trunkFlex);
    expect(flex(1)).toEqual(flex(1));
    expect(flex(1)).not.toEqual(flex(2));
  });
});
