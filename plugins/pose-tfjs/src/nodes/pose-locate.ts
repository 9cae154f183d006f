import { DataTypes, defineNode, type CsiFrame } from '@wiflow/core';
import { z } from 'zod';
import { PoseErrors } from '../errors.js';
import { PoseLocator } from '../locate/locator.js';
import { loadLocatorModel, SHIPPED_LOCATOR_DIR } from '../locate/locator-model.js';
import { readReference, type EmptyRoomReference } from '../locate/reference.js';
import { simulateReference } from '../locate/simulated.js';
import { resolveLocatorModelFolder } from './model-files.js';
import { EnvironmentGeometrySchema, type EnvironmentGeometry } from '../model/environment.js';
import { environmentFromScenario, type ScenarioGeometry } from '../sim/environment-from-scenario.js';
import { loadSim } from '../sim/pose-dataset.js';

/** Config of `pose.locate`. */
export const PoseLocateConfig = z.object({
  model: z.string().default('').describe('locator model directory (locator.json); empty = the shipped wiflow-locate-v2'),
  environments: z.array(EnvironmentGeometrySchema).default([]).describe('geometry of each environment: room, links with their antenna arrays (txArray, rxArray), virtual camera'),
  references: z.array(z.string()).default([]).describe('empty-room reference files (wiflow-empty-room/1), one per environment: `wiflow locate reference` records them'),
  scenario: z.union([z.string(), z.record(z.string(), z.unknown())]).optional().describe('a simulator scenario (file or object) to take an environment from, with its empty-room reference simulated'),
  densePose: z.enum(['none', 'parts', 'parts+iuv']).default('parts').describe('derived dense pose: none, convention A (parts with UV), or A plus convention B IUV images'),
  presenceThreshold: z.number().min(0).max(1).optional().describe("override the model's presence threshold"),
});

/**
 * `pose.locate`: raw CSI frames of every link of a room in, PoseFrames out. Needs each room's
 * empty-room reference. People are placed by coherent back-projection against it; their
 * skeleton is the training mean pose (the frame's `pipeline` says so).
 */
export const poseLocateNode = defineNode({
  type: 'pose.locate',
  title: 'Pose locate (empty-room reference)',
  category: 'models',
  description: 'Locates people on the floor from raw CSI of every link against an empty-room reference (coherent back-projection over antennas and subcarriers), counts them with a learned head, and places the training mean pose at each: position and count are estimated, posture is not.',
  inputs: { frames: { type: DataTypes.CsiFrame, required: true, description: 'raw CSI frames of every link (not through the signal chain)' } },
  outputs: { poses: { type: DataTypes.PoseFrame } },
  config: PoseLocateConfig,
  capabilities: ['fs.read'],
  async create(ctx) {
    // Paths named by the flow open only where the run's file access allows; the shipped model (no path) is the package's own.
    const model = loadLocatorModel(ctx.config.model ? await resolveLocatorModelFolder(ctx.files, ctx.config.model) : SHIPPED_LOCATOR_DIR);
    const environments: EnvironmentGeometry[] = [...ctx.config.environments];
    const references: EmptyRoomReference[] = [];
    for (const file of ctx.config.references) references.push(readReference(await ctx.files.resolve(file, 'read')));
    if (ctx.config.scenario !== undefined) {
      const sim = (await loadSim()) as Awaited<ReturnType<typeof loadSim>> & { loadScenario?: (file: string) => ScenarioGeometry; validateScenario?: (input: unknown) => ScenarioGeometry };
      const scenario = typeof ctx.config.scenario === 'string'
        ? sim.loadScenario?.(await ctx.files.resolve(ctx.config.scenario, 'read'))
        : sim.validateScenario?.(ctx.config.scenario);
      if (!scenario) throw PoseErrors.simulatorMissing('@wiflow/plugin-sim does not export loadScenario');
      environments.push(environmentFromScenario(scenario));
      references.push(simulateReference(sim, scenario as never));
    }
    const locator = new PoseLocator(model, environments, references, { densePose: ctx.config.densePose, presenceThreshold: ctx.config.presenceThreshold, processingMode: ctx.mode === 'stream' ? 'realtime' : 'job' });
    let frames = 0;
    return {
      async receive(_port, value) {
        const frame = locator.push(value as CsiFrame);
        if (!frame) return;
        frames++;
        await ctx.emit('poses', frame);
      },
      stats: () => ({ frames, modelId: model.spec.modelId, modelHash: model.hash.slice(0, 12) }),
    };
  },
});
