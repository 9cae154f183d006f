import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deriveBodyParts, deriveIuv, DENSE_POSE_PARTS, keypointBox } from '../index.js';
import { standingPerson, tinyEnvironment } from '../testing/synthetic.js';

const environment = tinyEnvironment();
const camera = environment.camera;

function facing(yaw: number) {
  const p = standingPerson(1, 2.2, 1.8);
  // Rotate the skeleton about its floor position (standingPerson faces +x).
  const c = Math.cos(yaw), s = Math.sin(yaw);
  return p.keypoints3d.map(([x, y, z]) => [p.position.x + c * (x - p.position.x) - s * (y - p.position.y), p.position.y + s * (x - p.position.x) + c * (y - p.position.y), z]);
}

describe('derived dense pose', () => {
  it('shows the torso front to a camera the person faces, and the back when turned away', () => {
    const towardCamera = Math.atan2(camera.position[1] - 1.8, camera.position[0] - 2.2);
    const front = deriveBodyParts(camera, facing(towardCamera), 0.9);
    const back = deriveBodyParts(camera, facing(towardCamera + Math.PI), 0.9);
    const ids = (d: typeof front) => d.bodyParts.map((p) => p.partId);
    expect(front.source).toBe('derived');
    expect(ids(front)).toContain(2);
    expect(ids(front)).not.toContain(1);
    expect(ids(back)).toContain(1);
    expect(ids(back)).not.toContain(2);
    for (const part of front.bodyParts) {
      expect(part.partName).toBe(DENSE_POSE_PARTS[part.partId]);
      for (const [u, v] of part.uvCoordinates) {
        expect(u).toBeGreaterThanOrEqual(0); expect(u).toBeLessThanOrEqual(1);
        expect(v).toBeGreaterThanOrEqual(0); expect(v).toBeLessThanOrEqual(1);
      }
    }
  });

  it('renders IUV and confidence PNGs over the person box with valid part indices', () => {
    const k = facing(0);
    const box = keypointBox(camera, k);
    const iuv = deriveIuv(camera, k, 0.8, box, 48);
    const png = Buffer.from(iuv.iuvImage, 'base64');
    expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect(Math.max(iuv.width, iuv.height)).toBe(48);
    // Inflate the IDAT chunk and read the part channel.
    const idatAt = png.indexOf('IDAT');
    const length = png.readUInt32BE(idatAt - 4);
    const raw = inflateSync(png.subarray(idatAt + 4, idatAt + 4 + length));
    const parts = new Set<number>();
    for (let y = 0; y < iuv.height; y++) for (let x = 0; x < iuv.width; x++) parts.add(raw[y * (iuv.width * 3 + 1) + 1 + x * 3]);
    expect([...parts].every((p) => p >= 0 && p <= 24)).toBe(true);
    expect(parts.size).toBeGreaterThan(4);
    const confidence = Buffer.from(iuv.confidenceMap, 'base64');
    expect(confidence.subarray(1, 4).toString('ascii')).toBe('PNG');
  });
});
