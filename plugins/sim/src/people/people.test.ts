import { describe, expect, it } from 'vitest';
import { ALL_FALL_TYPES, bodyDimensions, COCO_INDEX as K, FALL_TYPES, forwardKinematics, PersonTimeline, PersonSchema, type FallType } from '../index.js';

const dist = (a: { x: number; y: number; z: number }, b: { x: number; y: number; z: number }) => Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z);

function person(script: unknown[], extra: Record<string, unknown> = {}) {
  return new PersonTimeline(PersonSchema.parse({ id: 1, height: 1.75, start: { x: 2, y: 2, yawDeg: 0 }, script, ...extra }));
}

function skeletonAt(p: PersonTimeline, t: number) {
  const s = p.sample(t);
  return { ...s, skeleton: s.pose ? forwardKinematics(p.dim, s.pose) : null };
}

describe('articulated people', () => {
  it('keeps bone lengths constant and feet on or above the floor through every motion', () => {
    const dim = bodyDimensions({ height: 1.75, girth: 1 });
    const p = person([
      { action: 'walk', path: [[4, 3], [1, 3]], speed: 1.3 },
      { action: 'sit', duration: 3 },
      { action: 'lie', duration: 3, surfaceHeight: 0.5 },
      ...FALL_TYPES.map((type) => ({ action: 'fall', type, lieDuration: 2 })),
    ]);
    let minZ = Infinity;
    for (let t = 0; t < 60; t += 0.05) {
      const { skeleton } = skeletonAt(p, t);
      if (!skeleton) continue;
      const k = skeleton.keypoints;
      expect(dist(k[K.leftHip], k[K.leftKnee])).toBeCloseTo(dim.thigh, 6);
      expect(dist(k[K.rightKnee], k[K.rightAnkle])).toBeCloseTo(dim.shank, 6);
      expect(dist(k[K.leftShoulder], k[K.leftElbow])).toBeCloseTo(dim.upperArm, 6);
      expect(dist(k[K.rightElbow], k[K.rightWrist])).toBeCloseTo(dim.forearm, 6);
      for (const q of k) minZ = Math.min(minZ, q.z);
    }
    expect(minZ).toBeGreaterThanOrEqual(-1e-9);
  });

  it('every fall type moves the body continuously into its lying posture: the head drops over a metre at real fall speeds, with no jump when the fall ends', () => {
    for (const type of ALL_FALL_TYPES) {
      const p = person([{ action: 'stand', duration: 2 }, { action: 'fall', type, lieDuration: 3, getUp: false }]);
      const [start, end] = ['fall_start', 'fall_end'].map((kind) => p.eventsBetween(-1, 10).find((e) => e.type === kind)!.t);
      const rate = 200;
      let fastest = 0;
      let headDown = 0;
      let previous = skeletonAt(p, start - 0.2).skeleton!;
      const headBefore = previous.headCentre.z;
      // Through the fall and half a second of lying: a keypoint that moved faster than 8 m/s between two samples
      // 5 ms apart jumped (a sideways fall used to drop its body 0.5 m in one sample as it ended).
      for (let t = start - 0.2 + 1 / rate; t <= end + 0.5; t += 1 / rate) {
        const now = skeletonAt(p, t).skeleton!;
        for (let k = 0; k < 17; k++) fastest = Math.max(fastest, dist(now.keypoints[k], previous.keypoints[k]) * rate);
        headDown = Math.max(headDown, (previous.headCentre.z - now.headCentre.z) * rate);
        previous = now;
      }
      expect(fastest, type).toBeLessThan(8);
      if (type !== 'slump') {
        expect(headBefore - previous.headCentre.z, type).toBeGreaterThan(1);
        expect(headDown, type).toBeGreaterThan(2);
        expect(end - start, type).toBeLessThanOrEqual(1.8);
      }
    }
  });

  it('starts and ends every walk smoothly: no keypoint passes 8 m/s at any change of motion, and the walk still ends where and when it did', () => {
    // Each walk used to start and end by switching between mid-stride and standing in one sample: a foot moved
    // 0.3–0.4 m in 5 ms (60–90 m/s) whatever came next (a stand, sitting, lying, a fall, sitting hard, another walk).
    const follows = [
      { action: 'stand', duration: 2 },
      { action: 'sit', duration: 2 },
      { action: 'lie', duration: 2 },
      { action: 'fall', type: 'forward', lieDuration: 2, getUp: false },
      { action: 'fall-like', kind: 'sit-hard', duration: 2 },
      { action: 'turn', yawDeg: 90 },
      { action: 'walk', path: [[4, 4]], speed: 0.6 },
    ];
    const rate = 200;
    for (const id of [1, 2, 3, 4, 5]) {
      for (const next of follows) {
        const p = person([{ action: 'stand', duration: 1 }, { action: 'walk', path: [[4, 2], [4.2, 3]], speed: 1.3 }, next], { id });
        let fastest = 0;
        let previous = skeletonAt(p, 0).skeleton!;
        for (let i = 1; i <= 6 * rate; i++) {
          const now = skeletonAt(p, i / rate).skeleton!;
          for (let k = 0; k < 17; k++) fastest = Math.max(fastest, dist(now.keypoints[k], previous.keypoints[k]) * rate);
          previous = now;
        }
        expect(fastest, `person ${id}, walk then ${next.action}`).toBeLessThan(8);
      }
    }
    // 2 + 1.02 m at 1.3 m/s: the walk still takes 2.32 s and stops at its last point.
    const p = person([{ action: 'stand', duration: 1 }, { action: 'walk', path: [[4, 2], [4.2, 3]], speed: 1.3 }, { action: 'stand', duration: 2 }]);
    const walkEnd = 1 + (2 + Math.hypot(0.2, 1)) / 1.3;
    expect(skeletonAt(p, walkEnd - 0.01).activity).toBe('walking');
    expect(skeletonAt(p, walkEnd + 0.01).activity).toBe('standing');
    expect(p.sample(walkEnd + 0.01).pose!.pelvis.x).toBeCloseTo(4.2, 2);
    expect(p.sample(walkEnd + 0.01).pose!.pelvis.y).toBeCloseTo(3, 2);
  });

  it('standing has plausible proportions: head near the stature, hips near half of it', () => {
    const { skeleton, activity } = skeletonAt(person([{ action: 'stand', duration: 5 }]), 1);
    expect(activity).toBe('standing');
    const k = skeleton!.keypoints;
    expect(k[K.nose].z).toBeGreaterThan(1.55);
    expect(k[K.nose].z).toBeLessThan(1.75);
    expect(k[K.leftHip].z).toBeGreaterThan(0.85);
    expect(k[K.leftHip].z).toBeLessThan(0.98);
    expect(k[K.leftAnkle].z).toBeLessThan(0.1);
    // Facing +x: the nose is in front of the ears, left is +y.
    expect(k[K.nose].x).toBeGreaterThan(k[K.leftEar].x);
    expect(k[K.leftShoulder].y).toBeGreaterThan(k[K.rightShoulder].y);
  });

  it('walks along the path at the set speed with a gait (legs alternate)', () => {
    const p = person([{ action: 'walk', path: [[5, 2]], speed: 1.0 }]);
    const a = skeletonAt(p, 0.5).skeleton!;
    const b = skeletonAt(p, 2.5).skeleton!;
    // 3 m in 3 s on average; the pace between starting and stopping (0.5 s each) is a little faster.
    expect(p.sample(3).pose!.pelvis.x).toBeCloseTo(5, 1);
    expect((b.pelvis.x - a.pelvis.x) / 2).toBeGreaterThan(1.0);
    expect((b.pelvis.x - a.pelvis.x) / 2).toBeLessThan(1.25);
    expect(skeletonAt(p, 1).activity).toBe('walking');
    let leftAhead = 0;
    let rightAhead = 0;
    for (let t = 0.2; t < 2.8; t += 0.05) {
      const k = skeletonAt(p, t).skeleton!.keypoints;
      if (k[K.leftAnkle].x > k[K.rightAnkle].x + 0.2) leftAhead++;
      if (k[K.rightAnkle].x > k[K.leftAnkle].x + 0.2) rightAhead++;
    }
    expect(leftAhead).toBeGreaterThan(5);
    expect(rightAhead).toBeGreaterThan(5);
    expect(skeletonAt(p, 10).activity).toBe('standing');
  });

  it.each(FALL_TYPES)('a %s fall: hips drop > 0.5 m within 1.5 s, downward speed > 1.2 m/s, labelled, with events', (type: FallType) => {
    const p = person([{ action: 'stand', duration: 2 }, { action: 'fall', type, lieDuration: 5, getUp: false }]);
    const events = p.eventsBetween(-1, 30);
    const start = events.find((e) => e.type === 'fall_start')!;
    const end = events.find((e) => e.type === 'fall_end')!;
    expect(start.detail).toEqual({ fallType: type });
    expect(end.t).toBeGreaterThan(start.t);
    const hip = (t: number) => {
      const k = skeletonAt(p, t).skeleton!.keypoints;
      return (k[K.leftHip].z + k[K.rightHip].z) / 2;
    };
    const before = hip(start.t - 0.05);
    let peakSpeed = 0;
    for (let t = start.t; t < end.t; t += 0.02) peakSpeed = Math.max(peakSpeed, (hip(t) - hip(t + 0.02)) / 0.02);
    expect(before - hip(end.t + 0.01)).toBeGreaterThan(0.3);
    expect(end.t - start.t).toBeLessThanOrEqual(1.6);
    expect(peakSpeed).toBeGreaterThan(type === 'slump' ? 0.6 : 1.2);
    expect(skeletonAt(p, (start.t + end.t) / 2).activity).toBe('falling');
    expect(skeletonAt(p, end.t + 1).activity).toBe('lying');
    expect(hip(end.t + 2)).toBeLessThan(0.3);
    if (type !== 'slump') expect(before - hip(end.t + 0.01)).toBeGreaterThan(0.5);
  });

  it('sits down and gets up again; breathing with its variability off moves the chest at exactly the set rate', () => {
    const p = person([{ action: 'sit', duration: 10 }, { action: 'stand', duration: 2 }], { breathingRateBpm: 12, breathingDepthM: 0.006, breathing: { rateCv: 0, depthCv: 0, sighEveryS: 0, inhaleFraction: 0.5 } });
    expect(skeletonAt(p, 5).activity).toBe('sitting');
    expect(skeletonAt(p, 5).skeleton!.pelvis.z).toBeLessThan(0.65);
    expect(skeletonAt(p, 13).activity).toBe('standing');
    const breath = (t: number) => p.sample(t).pose!.breath;
    // 12 breaths a minute: period 5 s.
    expect(breath(3)).toBeCloseTo(breath(8), 6);
    expect(Math.abs(breath(3) - breath(5.5))).toBeGreaterThan(0.001);
  });

  it('enters and leaves with events; absent people have no pose', () => {
    const p = new PersonTimeline(PersonSchema.parse({ id: 3, script: [{ action: 'absent', duration: 2 }, { action: 'enter', at: [0, 2] }, { action: 'walk', path: [[2, 2]] }, { action: 'leave', path: [[0, 1]] }] }));
    expect(p.sample(1).pose).toBeNull();
    expect(p.sample(1).activity).toBe('absent');
    expect(p.sample(3).activity).toBe('walking');
    const events = p.eventsBetween(-1, 100);
    expect(events.map((e) => e.type)).toEqual(['person_enter', 'person_leave']);
    expect(events[0].t).toBeCloseTo(2, 6);
    expect(p.sample(60).pose).toBeNull();
  });

  it('rejects scripts that cannot run', () => {
    expect(() => new PersonTimeline(PersonSchema.parse({ id: 4, script: [{ action: 'walk', path: [[1, 1]] }] }))).toThrow(/absent/);
    expect(() => person([{ action: 'enter', at: [1, 1] }])).toThrow(/already in the room/);
  });

  it('loops forever in bounded memory', () => {
    const p = person([{ action: 'walk', path: [[3, 2]], speed: 1 }, { action: 'walk', path: [[2, 2]], speed: 1 }], { loop: true });
    for (let t = 0; t < 2000; t += 1) {
      p.sample(t);
      p.prune(t - 10);
    }
    expect(p.sample(2000.5).activity).toBe('walking');
  });
});
