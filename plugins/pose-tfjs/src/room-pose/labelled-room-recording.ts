import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CsiFrame } from '@wiflow/core';
import { openCapture } from '@wiflow/plugin-csi';
import { PoseErrors } from '../errors.js';
import { readCocoLabels, type LabelledInstant } from '../calibrate/coco-labels.js';
import { readReference, type EmptyRoomReference } from '../locate/reference.js';
import { EnvironmentGeometrySchema, type EnvironmentGeometry } from '../model/environment.js';

/** Files of a labelled room recording directory. */
export const RECORDING_FILES = { environment: 'environment.json', reference: 'reference.json', labels: 'labels.json' } as const;

/** A labelled recording of one room, read and checked: geometry, empty-room reference, frames, labels. */
export interface LabelledRoomRecording {
  directory: string;
  environment: EnvironmentGeometry;
  reference: EmptyRoomReference;
  frames: CsiFrame[];
  labels: LabelledInstant[];
  /** Whether every labelled person carries `keypoints_3d`. */
  has3d: boolean;
}

const MARGIN_M = 0.05;

/**
 * The environment's camera must be one a user could have placed in that room: its position
 * inside the room (walls, floor, ceiling, a few centimetres of slack) and looking at a point
 * inside it. A camera elsewhere means the geometry or the camera belongs to another room, and
 * its labels would teach the network the wrong skeletons.
 */
export function checkCameraFitsRoom(environment: EnvironmentGeometry, file: string): void {
  const { width, depth, height } = environment.room;
  const inside = (p: readonly number[]) => p[0] >= -MARGIN_M && p[0] <= width + MARGIN_M && p[1] >= -MARGIN_M && p[1] <= depth + MARGIN_M && p[2] >= -MARGIN_M && p[2] <= height + MARGIN_M;
  const { position, lookAt } = environment.camera;
  const room = `room ${width} × ${depth} × ${height} m`;
  if (!inside(position)) throw PoseErrors.labelsInvalid(`${file}: field camera.position [${position.join(', ')}] is outside the ${room}: the camera does not fit the environment`);
  if (!inside(lookAt)) throw PoseErrors.labelsInvalid(`${file}: field camera.lookAt [${lookAt.join(', ')}] is outside the ${room}: the camera does not fit the environment`);
}

/** Each annotation must hold 17 COCO keypoints: said with the file, the field and the count found (before the schema's shorter message). */
function checkKeypointCounts(file: string): void {
  let raw: { annotations?: { keypoints?: unknown[]; keypoints_3d?: unknown[] }[] };
  try { raw = JSON.parse(readFileSync(file, 'utf8')); } catch (error) { throw PoseErrors.labelsInvalid(`cannot read ${file}: ${(error as Error).message}`); }
  (raw.annotations ?? []).forEach((a, i) => {
    if (Array.isArray(a.keypoints) && a.keypoints.length !== 51) throw PoseErrors.labelsInvalid(`${file}: field annotations[${i}].keypoints has ${a.keypoints.length} numbers (${a.keypoints.length / 3} keypoints); COCO person keypoints are 17 × [x, y, v] = 51`);
    if (Array.isArray(a.keypoints_3d) && a.keypoints_3d.length !== 51) throw PoseErrors.labelsInvalid(`${file}: field annotations[${i}].keypoints_3d has ${a.keypoints_3d.length} numbers; 17 × [x, y, z] = 51 are needed`);
  });
}

/**
 * Read a labelled room recording: `environment.json` (room, links with antenna arrays,
 * camera), `reference.json` (the room's empty-room reference, `wiflow locate record`), a
 * capture `csi.*` any @wiflow/plugin-csi reader takes, `labels.json` (COCO keypoints with
 * `images[].timestamp` in ms, the wall clock of the capture). Refuses, naming file and field,
 * a camera outside the room, a wrong keypoint count, and labels whose times do not overlap the
 * capture's.
 */
export async function readLabelledRoomRecording(directory: string): Promise<LabelledRoomRecording> {
  if (!existsSync(directory)) throw PoseErrors.labelsInvalid(`no recording directory ${directory}`);
  const files = readdirSync(directory);
  const envFile = path.join(directory, RECORDING_FILES.environment);
  if (!files.includes(RECORDING_FILES.environment)) throw PoseErrors.labelsInvalid(`${directory} has no ${RECORDING_FILES.environment} (room, links, camera)`);
  let rawEnvironment: unknown;
  try { rawEnvironment = JSON.parse(readFileSync(envFile, 'utf8')); } catch (error) { throw PoseErrors.labelsInvalid(`cannot read ${envFile}: ${(error as Error).message}`); }
  const parsed = EnvironmentGeometrySchema.safeParse(rawEnvironment);
  if (!parsed.success) throw PoseErrors.labelsInvalid(`${envFile}: ${parsed.error.issues.slice(0, 4).map((i) => `field ${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const environment = parsed.data;
  checkCameraFitsRoom(environment, envFile);
  const reference = readReference(path.join(directory, RECORDING_FILES.reference));
  if (reference.environmentId !== environment.id) throw PoseErrors.labelsInvalid(`${path.join(directory, RECORDING_FILES.reference)}: field environmentId is ${reference.environmentId}, ${RECORDING_FILES.environment} is ${environment.id}`);
  const capture = files.find((f) => f.startsWith('csi.'));
  if (!capture) throw PoseErrors.labelsInvalid(`${directory} has no csi.* capture`);
  const labelsFile = path.join(directory, RECORDING_FILES.labels);
  if (!files.includes(RECORDING_FILES.labels)) throw PoseErrors.labelsInvalid(`${directory} has no ${RECORDING_FILES.labels}`);
  checkKeypointCounts(labelsFile);
  const labels = readCocoLabels(labelsFile);
  const frames: CsiFrame[] = [];
  for await (const frame of await openCapture(path.join(directory, capture))) frames.push({ ...frame, truth: undefined } as CsiFrame);
  if (frames.length === 0) throw PoseErrors.labelsInvalid(`${path.join(directory, capture)} holds no frames`);
  let first = Infinity, last = -Infinity;
  for (const f of frames) { first = Math.min(first, f.time); last = Math.max(last, f.time); }
  const inside = labels.filter((l) => l.time >= first && l.time <= last).length;
  if (inside === 0) {
    const iso = (t: number) => new Date(t).toISOString();
    throw PoseErrors.labelsInvalid(`${labelsFile}: field images[].timestamp spans ${iso(labels[0].time)} – ${iso(labels.at(-1)!.time)}, the capture ${capture} spans ${iso(first)} – ${iso(last)}: no label falls inside the capture (timestamps are ms since the epoch, the capture's clock)`);
  }
  const has3d = labels.every((l) => l.persons.every((p) => p.keypoints3d !== null));
  return { directory, environment, reference, frames, labels, has3d };
}
