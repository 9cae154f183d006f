import { describe, expect, it } from 'vitest';
import { createVirtualCamera, groundTruthPersons, keypointBoundingBox, loadScenario, projectKeypoints, projectPoint, Simulator } from '../index.js';
import { testScenario } from '../test-support/scenarios.js';

describe('virtual camera', () => {
  const cam = createVirtualCamera({ position: { x: 0, y: 0, z: 2 }, lookAt: { x: 4, y: 0, z: 2 }, width: 640, height: 480, horizontalFovDeg: 90 });

  it('projects like a pinhole: the optical axis to the centre, right of the axis to the right, up to the top', () => {
    expect(projectPoint(cam, { x: 3, y: 0, z: 2 })).toMatchObject({ x: 320, y: 240, depth: 3 });
    // 90° horizontal field of view: a point at 45° lands on the image edge.
    expect(projectPoint(cam, { x: 2, y: -2, z: 2 }).x).toBeCloseTo(640, 9);
    expect(projectPoint(cam, { x: 2, y: 0, z: 3 }).y).toBeLessThan(240);
    expect(projectPoint(cam, { x: -1, y: 0, z: 2 }).depth).toBeLessThan(0);
  });

  it('marks keypoints behind the camera or outside the image as not visible; the box holds the rest', () => {
    const kps = Array.from({ length: 17 }, (_, i) => [3, -0.5 + i * 0.06, 1 + i * 0.05]);
    kps[3] = [-1, 0, 1];
    const projected = projectKeypoints(cam, kps);
    expect(projected[0].name).toBe('nose');
    expect(projected[3]).toMatchObject({ visible: false, confidence: 0 });
    expect(projected.filter((k) => k.visible)).toHaveLength(16);
    const box = keypointBoundingBox(cam, projected);
    for (const k of projected.filter((q) => q.visible)) {
      expect(k.x).toBeGreaterThanOrEqual(box.x);
      expect(k.x).toBeLessThanOrEqual(box.x + box.width);
      expect(k.y).toBeGreaterThanOrEqual(box.y);
      expect(k.y).toBeLessThanOrEqual(box.y + box.height);
    }
  });

  it('turns ground truth into core Person records in the environment camera', () => {
    const sim = new Simulator(testScenario({ people: [{ id: 9, height: 1.8, start: { x: 3, y: 2 }, script: [{ action: 'stand', duration: 5 }] }] }));
    const persons = groundTruthPersons(sim.camera, sim.next().truth);
    expect(persons).toHaveLength(1);
    const p = persons[0];
    expect(p.trackId).toBe(9);
    expect(p.keypoints).toHaveLength(17);
    expect(p.keypoints.every((k) => k.visible)).toBe(true);
    // Upright person: the nose is above (smaller v than) the ankles in the image.
    expect(p.keypoints[0].y).toBeLessThan(p.keypoints[15].y);
    expect(p.boundingBox.height).toBeGreaterThan(p.boundingBox.width);
    expect(p.keypoints3d[0].name).toBe('nose');
  });

  it('the example scenarios see their people', () => {
    const sim = new Simulator(loadScenario(new URL('../../../../examples/scenarios/home-two-people-fall.yaml', import.meta.url).pathname));
    const persons = groundTruthPersons(sim.camera, sim.next().truth);
    expect(persons.length).toBe(2);
    for (const p of persons) expect(p.keypoints.filter((k) => k.visible).length).toBeGreaterThan(12);
  });
});
