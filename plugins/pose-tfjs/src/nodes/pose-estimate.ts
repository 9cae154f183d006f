import { DataTypes, defineNode, errorMessage, type CsiWindow } from '@wiflow/core';
import { z } from 'zod';
import { EnvironmentGeometrySchema } from '../model/environment.js';
import { PoseEstimator, type AssembledSample } from '../model/pose-estimator.js';
import { loadModelCached } from '../model/model-cache.js';
import { environmentFromScenarioFile } from '../sim/environment-from-scenario.js';
import { resolvePoseModelFolder } from './model-files.js';

/** Config of `pose.estimate`. */
export const PoseEstimateConfig = z.object({
  model: z.string().default('').describe('model directory (model.json, weights.bin, wiflow-model.json); empty = the shipped wiflow-pose-v1'),
  environments: z.array(EnvironmentGeometrySchema).default([]).describe('geometry of each environment: room, links in model order, virtual camera'),
  scenario: z.string().default('').describe('a simulator scenario file to take an environment geometry from (instead of `environments`)'),
  maxBatch: z.number().int().min(1).max(1024).default(32).describe('samples per model call; samples arriving together are batched across links and environments'),
  syncToleranceMs: z.number().min(0).default(100).describe('windows of different links whose end times differ by at most this belong to one instant'),
  densePose: z.enum(['none', 'parts', 'parts+iuv']).default('parts').describe('derived dense pose: none, convention A (parts with UV), or A plus convention B IUV images'),
  presenceThreshold: z.number().min(0).max(1).optional().describe("override the model's presence threshold"),
});

/**
 * `pose.estimate`: CSI windows of every link of an environment in, PoseFrames out. Windows
 * that arrive together are batched into one model call.
 */
export const poseEstimateNode = defineNode({
  type: 'pose.estimate',
  title: 'Pose estimate (TF.js)',
  category: 'models',
  description: 'Estimates people (presence, floor position, COCO-17 keypoints in 3D and in the virtual camera image, box, derived dense pose) from one CSI window per link, with the shipped model or a bring-your-own TF.js model.',
  inputs: { windows: { type: DataTypes.CsiWindow, required: true, description: 'one window per link, after the signal chain' } },
  outputs: { poses: { type: DataTypes.PoseFrame } },
  config: PoseEstimateConfig,
  capabilities: ['fs.read'],
  async create(ctx) {
    // Paths named by the flow open only where the run's file access allows; the shipped model (no path) is the package's own.
    const model = await loadModelCached(ctx.config.model ? await resolvePoseModelFolder(ctx.files, ctx.config.model) : undefined);
    const environments = [...ctx.config.environments];
    if (ctx.config.scenario) environments.push(await environmentFromScenarioFile(await ctx.files.resolve(ctx.config.scenario, 'read')));
    const estimator = new PoseEstimator(model, environments, {
      syncToleranceMs: ctx.config.syncToleranceMs,
      densePose: ctx.config.densePose,
      presenceThreshold: ctx.config.presenceThreshold,
      processingMode: ctx.mode === 'stream' ? 'realtime' : 'job',
    });
    let batch: AssembledSample[] = [];
    let scheduled = false;
    let frames = 0;
    let lastError: string | null = null;
    const run = () => {
      scheduled = false;
      const samples = batch;
      batch = [];
      for (const frame of estimator.estimate(samples)) {
        frames++;
        void ctx.emit('poses', frame);
      }
    };
    return {
      receive(_port, value) {
        const sample = estimator.push(value as CsiWindow);
        if (!sample) return;
        batch.push(sample);
        if (batch.length >= ctx.config.maxBatch) return run();
        if (!scheduled) {
          scheduled = true;
          // Windows delivered in the same tick join this batch; errors here cannot reach a message.
          setImmediate(() => {
            if (!scheduled) return;
            try {
              run();
            } catch (error) {
              lastError = errorMessage(error);
              ctx.log({ event: 'pose.estimate.error', data: { error: lastError } });
            }
          });
        }
      },
      flush() {
        if (batch.length) run();
      },
      stats: () => ({ frames, staleWindows: estimator.staleWindows, modelId: model.spec.modelId, modelHash: model.hash.slice(0, 12), lastError }),
    };
  },
});
