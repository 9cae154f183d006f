import type { FlowData, PoseFrame, Runtime } from '@wiflow/core';
import type { Scenario } from '@wiflow/plugin-sim';
import { EvaluationErrors } from './errors.js';

/**
 * The estimator a user meets by default (npm start's demo, POST /pose/process, the example
 * flows): `pose.locate`, fed raw CSI, with the scenario's empty-room reference simulated.
 * The evaluation runs exactly this node, so a better estimator behind the same node type
 * shows up here as better figures.
 */
export const DEFAULT_ESTIMATOR = 'pose.locate';

/** What one run of the end-to-end flow returns. */
export interface EndToEndRun {
  /** Tracked pose frames, as `tracker.track` emitted them (truth attached by the simulator). */
  frames: PoseFrame[];
  /** The last retail metrics record of `retail.analytics`, when the flow had one. */
  retail: { metrics: { traffic: { total_visitors: number } } } | null;
}

/**
 * The flow a user would draw: `sim.source` (fast, not paced) → the default estimator →
 * `tracker.track` → `retail.analytics`, with the tracked frames and the retail record as job
 * outputs. The estimator's config is what the demo flow gives it: the scenario (its
 * empty-room reference simulated), nothing fitted on the room; `model` is a locator directory
 * in place of the shipped one (its `model` config, as a user sets it).
 */
export function endToEndFlow(scenario: Scenario, durationS: number, zones: Scenario['zones'] = [], model?: string, tracker: Record<string, unknown> = {}): FlowData {
  const node = (id: string, nodeType: string, config: Record<string, unknown>, x: number) => ({ id, type: 'wiflow', position: { x, y: 0 }, data: { nodeType, config } });
  const edge = (source: string, sourceHandle: string, target: string, targetHandle: string) => ({ id: `${source}.${sourceHandle}-${target}.${targetHandle}`, source, sourceHandle, target, targetHandle });
  return {
    nodes: [
      node('sim', 'sim.source', { scenario, realtime: false, loop: false, durationS }, 0),
      node('estimate', DEFAULT_ESTIMATOR, { scenario, densePose: 'none', ...(model ? { model } : {}) }, 260),
      node('track', 'tracker.track', tracker, 520),
      node('retail', 'retail.analytics', { zones: (zones ?? []).map((z) => ({ id: z.id, name: z.name ?? z.id, polygon: z.polygon })) }, 780),
      node('poses', 'io.output', { name: 'poses', collect: 'all' }, 780),
      node('metrics', 'io.output', { name: 'retail', collect: 'last' }, 1040),
    ],
    edges: [
      edge('sim', 'frames', 'estimate', 'frames'),
      edge('estimate', 'poses', 'track', 'poses'),
      edge('track', 'poses', 'poses', 'value'),
      edge('track', 'poses', 'retail', 'poses'),
      edge('retail', 'metrics', 'metrics', 'value'),
    ],
    viewport: { x: 0, y: 0, zoom: 1 },
  };
}

/** Run the end-to-end flow over one scenario as a job of `runtime` (with locator directory `model` and `tracker.track` options `tracker`, if given); a failed job is an error naming the scenario. */
export async function runEndToEnd(runtime: Runtime, scenario: Scenario, durationS: number, zones?: Scenario['zones'], model?: string, tracker?: Record<string, unknown>): Promise<EndToEndRun> {
  const job = await runtime.runJob(endToEndFlow(scenario, durationS, zones, model, tracker), { timeoutMs: 3_600_000, labels: { source: 'wiflow eval-e2e' } });
  const result = await job.done;
  if (result.status !== 'completed') throw EvaluationErrors.runFailed(`${scenario.name} (${scenario.environmentId})`, result.error ?? result.status);
  return { frames: (result.outputs.poses as PoseFrame[] | undefined) ?? [], retail: (result.outputs.retail as EndToEndRun['retail'] | undefined) ?? null };
}
