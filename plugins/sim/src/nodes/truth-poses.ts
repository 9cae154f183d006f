import { createHash } from 'node:crypto';
import { defineNode, type GroundTruthFrame, type PoseFrame } from '@wiflow/core';
import { z } from 'zod';
import { groundTruthPersons } from '../camera/virtual-camera.js';
import { scenarioCamera } from '../engine/simulator.js';
import { resolveScenario } from '../scenario/load.js';

/** Model id that marks pose frames made from the simulator's ground truth (no model involved). */
export const GROUND_TRUTH_MODEL_ID = 'sim-ground-truth';

/** Config of `sim.truth-poses`. */
export const TruthPosesConfig = z.object({
  scenario: z.union([z.string(), z.record(z.string(), z.unknown())]).describe('The scenario the truth comes from (for its virtual camera)'),
  rateHz: z.number().positive().max(1000).default(10).describe('Pose frames per second at most (truth arrives at the packet rate)'),
});

/**
 * Turns the simulator's ground truth into pose frames — a perfect detector — so trackers and
 * analytics can be run and scored without a model's errors. The frames say what they are:
 * model id `sim-ground-truth`, provenance `simulated`, pipeline "simulator ground truth";
 * track ids are left to the tracker.
 */
export const truthPosesNode = defineNode({
  type: 'sim.truth-poses',
  title: 'Ground-truth poses',
  category: 'models',
  description: 'Pose frames from the simulator\'s ground truth (labelled as such, not a model): for testing trackers and analytics.',
  inputs: { truth: { type: 'json', required: true, description: 'GroundTruthFrame from sim.source' } },
  outputs: { poses: { type: 'PoseFrame' } },
  config: TruthPosesConfig,
  capabilities: ['fs.read'],
  async create(ctx) {
    // Its scenario may be a file: opened only where the run's file access allows.
    const scenario = resolveScenario(typeof ctx.config.scenario === 'string' ? await ctx.files.resolve(ctx.config.scenario, 'read') : ctx.config.scenario);
    const camera = scenarioCamera(scenario);
    const hash = createHash('sha256').update(JSON.stringify(scenario)).digest('hex');
    const minGapMs = 1000 / ctx.config.rateHz;
    let last = -Infinity;
    let frameId = 0;
    return {
      receive(_port, value) {
        const truth = value as GroundTruthFrame;
        if (truth.time - last < minGapMs - 1e-6) return;
        last = truth.time;
        const started = performance.now();
        const persons = groundTruthPersons(camera, truth).map((p) => ({ ...p, trackId: null }));
        const frame: PoseFrame = {
          timestamp: truth.time,
          frameId: ++frameId,
          environmentId: truth.environmentId,
          processingTimeMs: performance.now() - started,
          persons,
          metadata: {
            modelId: GROUND_TRUTH_MODEL_ID,
            modelHash: hash,
            modelVersion: 'scenario',
            processingMode: 'ground-truth',
            provenance: 'simulated',
            csiQuality: null,
            linkCount: 0,
            pipeline: 'simulator ground truth (no model): keypoints projected through the scenario camera',
          },
          truth,
        };
        ctx.emit('poses', frame);
      },
    };
  },
});
