import { abortableSleep, DataTypes, defineNode } from '@wiflow/core';
import { z } from 'zod';
import { Simulator } from '../engine/simulator.js';
import { resolveScenario } from '../scenario/load.js';
import { randomScenario } from '../scenario/randomise.js';
import type { Scenario } from '../scenario/schema.js';
import { validateScenario } from '../scenario/load.js';
import { applyProfile, HARDWARE_PROFILE_NAMES } from '../radio/profiles.js';

/** Config of `sim.source`. */
export const SimSourceConfig = z.object({
  scenario: z
    .union([z.string().min(1), z.record(z.string(), z.unknown())])
    .optional()
    .describe('scenario file path (JSON or YAML) or an inline scenario object; omit to draw a random room from randomSeed'),
  randomSeed: z.number().int().default(1).describe('seed of the random scenario when no scenario is given'),
  environmentId: z.string().min(1).optional().describe('override the scenario environment id'),
  realtime: z.boolean().default(true).describe('pace frames at the scenario rate (false: as fast as possible)'),
  durationS: z.number().positive().optional().describe('seconds to simulate; default the scenario durationS, else 60'),
  loop: z.boolean().default(false).describe('start the scenario again after each duration, forever (a new noise seed per pass; the room and radios stay the same)'),
  redrawHardware: z.boolean().default(false).describe('loop only: also re-draw the installation on each pass (clutter phases, radio chain phases and hardware), as if the radios were replaced; a recorded empty-room reference then goes stale after the first pass'),
  attachTruth: z.boolean().default(true).describe('attach ground truth to every frame (frame.truth)'),
  impairments: z.enum(['scenario', 'off']).default('scenario').describe("'off' emits the clean channel"),
  profile: z.enum(HARDWARE_PROFILE_NAMES as [string, ...string[]]).optional().describe('replace the radios by a hardware profile (chip, grid, antennas, patterns, impairments)'),
  realism: z.enum(['none', 'v2']).optional().describe("random rooms only: 'v2' adds distractors, drift and radio realism"),
  phase: z.enum(['recording', 'reference']).optional().describe("'reference': the scenario's empty-room reference capture (the room as installed, nobody in it)"),
});

/** Load the scenario a node config names. */
export function scenarioFromConfig(config: z.output<typeof SimSourceConfig>): Scenario {
  let base = config.scenario === undefined ? randomScenario({ seed: config.randomSeed, durationS: config.durationS ?? 60, ...(config.realism ? { ranges: { realism: config.realism } } : {}) }) : resolveScenario(config.scenario);
  if (config.profile) base = validateScenario(applyProfile(base, config.profile), `profile ${config.profile}`);
  return config.environmentId ? { ...base, environmentId: config.environmentId } : base;
}

/**
 * `sim.source`: runs a scenario and emits every link's CsiFrame on `frames` (provenance
 * 'simulated', format 'sim', ground truth in `frame.truth`) and one GroundTruthFrame per
 * instant on `truth`. Real-time mode stamps frames with the wall clock and paces them;
 * fast mode runs as fast as downstream queues accept.
 */
export const simSourceNode = defineNode({
  type: 'sim.source',
  title: 'CSI simulator',
  category: 'sources',
  description: 'Physically simulated WiFi CSI from a scenario (room, materials, radios, people, scripted activities) with ground truth.',
  inputs: {},
  outputs: {
    frames: { type: DataTypes.CsiFrame, description: 'CsiFrame of every link, ground truth attached as frame.truth' },
    // 'json' like plugin-csi's replay and record truth ports, so the two connect.
    truth: { type: DataTypes.Json, description: 'GroundTruthFrame (keypoints, positions, activities, events) once per instant' },
  },
  config: SimSourceConfig,
  capabilities: ['fs.read'],
  source: true,
  async create(ctx) {
    // A scenario file named by the flow is opened only where the run's file access allows (confined in the flow service).
    const config = typeof ctx.config.scenario === 'string' ? { ...ctx.config, scenario: await ctx.files.resolve(ctx.config.scenario, 'read') } : ctx.config;
    const scenario = scenarioFromConfig(config);
    const durationS = config.durationS ?? scenario.durationS ?? 60;
    let ticks = 0;
    let frames = 0;
    let pass = 0;
    let links = 0;
    return {
      async run() {
        const signal = ctx.signal;
        const wallStart = Date.now();
        const startTimeMs = config.realtime ? wallStart : undefined;
        do {
          const sim = new Simulator(scenario, {
            seed: scenario.seed + pass,
            // One installation per source: the noise changes each pass, the room and radios do not (the empty-room reference stays valid).
            hardwareSeed: config.redrawHardware ? scenario.seed + pass : scenario.seed,
            attachTruth: config.attachTruth,
            impairments: config.impairments === 'off' ? 'off' : undefined,
            startTimeMs: startTimeMs !== undefined ? startTimeMs + pass * durationS * 1000 : undefined,
            timestampOffsetUs: pass * durationS * 1e6,
            phase: config.phase,
          });
          links = sim.links.length;
          const origin = wallStart + pass * durationS * 1000;
          for (const tick of sim.run(durationS)) {
            if (signal.aborted) return;
            if (config.realtime) {
              const due = origin + tick.t * 1000 - Date.now();
              if (due > 1) await abortableSleep(due, signal);
            } else if (tick.index % 64 === 0) {
              await new Promise<void>((resolve) => setImmediate(resolve));
            }
            if (signal.aborted) return;
            for (const frame of tick.frames) {
              await ctx.emit('frames', frame);
              frames++;
            }
            await ctx.emit('truth', tick.truth);
            ticks++;
            if (ctx.mode === 'job' && tick.index % 100 === 0) ctx.progress(config.loop ? 0 : tick.t / durationS, `simulated ${tick.t.toFixed(1)} s`);
          }
          pass++;
        } while (config.loop && !signal.aborted);
      },
      stats: () => ({ environment: scenario.environmentId, links, ticks, frames, pass }),
    };
  },
});
