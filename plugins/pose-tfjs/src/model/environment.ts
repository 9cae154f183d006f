import { z } from 'zod';

/** A point in the room frame, metres (x, y on the floor, z up). */
export const Point3Schema = z.tuple([z.number().finite(), z.number().finite(), z.number().finite()]);

/**
 * The environment's virtual camera, in the simulator's scenario form (a pinhole at
 * `position` looking at `lookAt`): 2D keypoints and boxes live in its image plane.
 */
export const VirtualCameraSchema = z.object({
  position: Point3Schema,
  lookAt: Point3Schema,
  width: z.number().int().positive().default(640),
  height: z.number().int().positive().default(480),
  horizontalFovDeg: z.number().gt(1).lt(179).default(90),
});

/**
 * A radio's antenna array, as the simulator places it: a horizontal uniform linear array
 * centred on the radio position, elements across the facing direction.
 */
export const AntennaArraySchema = z.object({
  yawDeg: z.number().finite().default(0).describe('direction the array faces, degrees from +x toward +y'),
  antennas: z.number().int().min(1).max(8).default(3),
  spacing: z.number().positive().max(1).optional().describe('element spacing (m), default half a wavelength of the channel'),
});

/** What the pose model must know about an environment: the room, the links in model order, the camera. */
export const EnvironmentGeometrySchema = z.object({
  id: z.string().min(1),
  room: z.object({ width: z.number().positive(), depth: z.number().positive(), height: z.number().positive() }),
  /** Links in the order the model sees them; a window is matched by its tx and rx ids. */
  links: z.array(z.object({
    tx: z.string(),
    rx: z.string(),
    txPosition: Point3Schema,
    rxPosition: Point3Schema,
    /** Antenna arrays (needed by `pose.locate`, which images with each element's position; ignored by `pose.estimate`). */
    txArray: AntennaArraySchema.optional(),
    rxArray: AntennaArraySchema.optional(),
  })).min(1),
  camera: VirtualCameraSchema,
});

/** A virtual camera. */
export type VirtualCamera = z.output<typeof VirtualCameraSchema>;
/** An environment's geometry. */
export type EnvironmentGeometry = z.output<typeof EnvironmentGeometrySchema>;

/** A projected point: pixels (origin top-left, y down), in front of the camera and inside the image or not. */
export interface ProjectedPoint {
  x: number;
  y: number;
  visible: boolean;
  /** Distance along the optical axis (m); ≤ 0 behind the camera. */
  depth: number;
}

/** A camera's pinhole frame (see `cameraFrame`). */
export interface CameraFrame {
  focal: number;
  right: number[];
  down: number[];
  forward: number[];
}

const frames = new WeakMap<VirtualCamera, CameraFrame>();

/** A camera's pinhole frame: focal length (px) and the right, down and forward unit vectors in the room frame. */
export function cameraFrame(camera: VirtualCamera): CameraFrame {
  let frame = frames.get(camera);
  if (frame) return frame;
  const f = [0, 1, 2].map((d) => camera.lookAt[d] - camera.position[d]);
  const fn = Math.hypot(f[0], f[1], f[2]) || 1;
  const forward = f.map((v) => v / fn);
  // right = forward × up, down = forward × right (the simulator's camera convention).
  let right = [forward[1], -forward[0], 0];
  const rn = Math.hypot(right[0], right[1]);
  right = rn < 1e-6 ? [1, 0, 0] : right.map((v) => v / rn);
  const down = [forward[1] * right[2] - forward[2] * right[1], forward[2] * right[0] - forward[0] * right[2], forward[0] * right[1] - forward[1] * right[0]];
  frame = { focal: camera.width / 2 / Math.tan((camera.horizontalFovDeg * Math.PI) / 360), right, down, forward };
  frames.set(camera, frame);
  return frame;
}

/** Project a room-frame point to the camera's image plane. */
export function projectPoint(camera: VirtualCamera, point: readonly number[]): ProjectedPoint {
  const { focal, right, down, forward } = cameraFrame(camera);
  const d = [point[0] - camera.position[0], point[1] - camera.position[1], point[2] - camera.position[2]];
  const depth = d[0] * forward[0] + d[1] * forward[1] + d[2] * forward[2];
  if (depth <= 1e-6) return { x: 0, y: 0, visible: false, depth };
  const x = (focal * (d[0] * right[0] + d[1] * right[1] + d[2] * right[2])) / depth + camera.width / 2;
  const y = (focal * (d[0] * down[0] + d[1] * down[1] + d[2] * down[2])) / depth + camera.height / 2;
  return { x, y, depth, visible: x >= 0 && x < camera.width && y >= 0 && y < camera.height };
}

/** The simulator's default camera of a room: high in the south-west corner, looking at the centre at 0.9 m. */
export function defaultCamera(room: EnvironmentGeometry['room']): VirtualCamera {
  return {
    position: [0.05, 0.05, Math.min(2.4, room.height - 0.05)],
    lookAt: [room.width / 2, room.depth / 2, 0.9],
    width: 640,
    height: 480,
    horizontalFovDeg: 100,
  };
}
