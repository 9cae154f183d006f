import { existsSync } from 'node:fs';
import path from 'node:path';
import { DataTypes, defineNode, type CsiFrame, type ServiceReader } from '@wiflow/core';
import { z } from 'zod';
import { PoseErrors } from '../errors.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR } from '../locate/locator-model.js';
import { REFERENCE_DESK } from '../locate/reference-desk.js';
import { readReference, type EmptyRoomReference } from '../locate/reference.js';
import { linkKey, referenceForEnvironment } from '../locate/reference-check.js';
import { EnvironmentGeometrySchema } from '../model/environment.js';
import { environmentDirectoryName } from './room-model-directory.js';
import { RoomPoseEstimator } from './room-pose-estimator.js';
import { loadRoomPoseModel, ROOM_POSE_JSON } from './room-pose-model.js';

/** Config of `pose.room`. */
export const PoseRoomConfig = z.object({
  environments: z.array(EnvironmentGeometrySchema).min(1).describe('geometry of each environment: room, links with their antenna arrays, camera'),
  references: z.array(z.string()).min(1).describe('empty-room reference files, one per environment (`wiflow locate record`)'),
  roomModels: z.string().default('').describe('directory of room models written by `wiflow calibrate` (one sub-directory per environment id); empty: `<data dir>/room-pose`, where `wiflow calibrate` writes them and the Installer page reads them'),
});

/** `<data dir>/room-pose` of the running host, or null where no pose plugin set up the desk. */
function defaultRoomModelsDir(services: ServiceReader): string | null {
  return services.has(REFERENCE_DESK) ? services.get(REFERENCE_DESK).roomModelsDir : null;
}

/**
 * `pose.room`: the locator's people (position, count, tracks) with the skeletons of each room's
 * own model (`wiflow calibrate`), in the rooms that have one; other rooms get the locator's mean
 * pose and say so in their frames. A model is only ever used in the environment it was trained for;
 * a damaged one, or another room's, stops the flow with the reason rather than being skipped.
 */
export const poseRoomNode = defineNode({
  type: 'pose.room',
  title: 'Pose room (room-trained skeletons)',
  category: 'models',
  description: 'Locates people against each room\'s empty-room reference and, in rooms calibrated with `wiflow calibrate`, estimates their skeletons with that room\'s own model (wiflow-room-pose-v1); uncalibrated rooms get the locator\'s mean pose.',
  inputs: { frames: { type: DataTypes.CsiFrame, required: true, description: 'raw CSI frames of every link' } },
  outputs: { poses: { type: DataTypes.PoseFrame } },
  config: PoseRoomConfig,
  capabilities: ['fs.read'],
  async create(ctx) {
    const locator = loadLocatorModel(SHIPPED_LOCATOR_DIR);
    const references: EmptyRoomReference[] = [];
    for (const [i, file] of ctx.config.references.entries()) {
      let resolved: string;
      try { resolved = await ctx.files.resolve(file, 'read'); } catch (error) { throw PoseErrors.referenceMissing(`references[${i}] (${file})`, (error as Error).message); }
      references.push(readReference(resolved));
    }
    // Without a directory set, the host's own `<data dir>/room-pose` (the reference desk's): the
    // host chose that path, not the flow's author, so it is read without the run's file roots.
    const modelsDir = ctx.config.roomModels ? await ctx.files.resolve(ctx.config.roomModels, 'read') : defaultRoomModelsDir(ctx.services);
    const byLink = new Map<string, RoomPoseEstimator>();
    const calibrated: string[] = [];
    for (const environment of ctx.config.environments) {
      const reference = referenceForEnvironment(environment, references);
      const dir = modelsDir ? path.join(modelsDir, environmentDirectoryName(environment.id)) : null;
      // The constructor refuses a model trained for another environment.
      const model = dir && existsSync(path.join(dir, ROOM_POSE_JSON)) ? loadRoomPoseModel(dir) : null;
      if (model) calibrated.push(environment.id);
      const estimator = new RoomPoseEstimator(locator, environment, reference, model);
      for (const link of environment.links) byLink.set(linkKey(link), estimator);
    }
    let frames = 0;
    return {
      async receive(_port, value) {
        const csi = value as CsiFrame;
        const estimator = byLink.get(linkKey(csi.link));
        if (!estimator) throw PoseErrors.environmentUnknown(`for link ${linkKey(csi.link)} (no environment of pose.room has it)`);
        const instant = estimator.locate(csi);
        if (!instant) return;
        frames++;
        await ctx.emit('poses', estimator.toPoseFrame(instant));
      },
      stats: () => ({ frames, calibratedRooms: calibrated.join(', '), roomModels: modelsDir }),
    };
  },
});
