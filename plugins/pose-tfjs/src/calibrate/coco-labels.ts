import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PoseErrors } from '../errors.js';

/**
 * COCO keypoint labels of a recording, with a timestamp per image: `images[].timestamp`
 * (ms since epoch, the wall-clock time of the camera frame). Annotations are COCO's
 * `keypoints` ([x, y, v] × 17 in the environment's virtual-camera pixels, v = 0 not
 * labelled). A wiflow extension `keypoints_3d` ([x, y, z] × 17, metres, room frame) is used
 * when present (a motion-capture or simulated stand-in for the room).
 */
export const CocoLabelsSchema = z.object({
  images: z.array(z.object({ id: z.number().int(), timestamp: z.number(), width: z.number().optional(), height: z.number().optional(), file_name: z.string().optional() })).min(1),
  annotations: z.array(z.object({
    image_id: z.number().int(),
    category_id: z.number().int().default(1),
    keypoints: z.array(z.number()).length(51),
    num_keypoints: z.number().int().optional(),
    keypoints_3d: z.array(z.number()).length(51).optional(),
  })),
  categories: z.array(z.object({ id: z.number().int(), name: z.string(), keypoints: z.array(z.string()).optional() })).default([{ id: 1, name: 'person' }]),
});

/** Labels parsed and grouped per camera frame. */
export interface LabelledInstant {
  time: number;
  persons: { keypoints2d: [number, number, number][]; keypoints3d: number[][] | null }[];
}

/** Read a COCO keypoint file; instants sorted by time. */
export function readCocoLabels(file: string): LabelledInstant[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw PoseErrors.labelsInvalid(`cannot read ${file}: ${(error as Error).message}`);
  }
  const parsed = CocoLabelsSchema.safeParse(raw);
  if (!parsed.success) throw PoseErrors.labelsInvalid(`${file}: ${parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const byImage = new Map<number, LabelledInstant>();
  for (const image of parsed.data.images) byImage.set(image.id, { time: image.timestamp, persons: [] });
  for (const a of parsed.data.annotations) {
    const instant = byImage.get(a.image_id);
    if (!instant) throw PoseErrors.labelsInvalid(`${file}: annotation for unknown image ${a.image_id}`);
    const k2: [number, number, number][] = [];
    for (let j = 0; j < 17; j++) k2.push([a.keypoints[3 * j], a.keypoints[3 * j + 1], a.keypoints[3 * j + 2]]);
    const k3 = a.keypoints_3d ? Array.from({ length: 17 }, (_, j) => a.keypoints_3d!.slice(3 * j, 3 * j + 3)) : null;
    instant.persons.push({ keypoints2d: k2, keypoints3d: k3 });
  }
  return [...byImage.values()].sort((a, b) => a.time - b.time);
}
