import path from 'node:path';
import type { Runtime } from '@wiflow/core';
import { expect } from 'vitest';
import { ROOT } from './server.js';

/**
 * Record `seconds` of the simulated home (examples/scenarios/home-monitored.yaml) into the wiflow
 * recording `capture` with sim.source → csi.record in `runtime`: links laid out as the model's
 * environment, the capture examples/flows/estimate-poses-from-csi.json reads.
 */
export async function recordHomeCapture(runtime: Runtime, capture: string, seconds: number, source: string): Promise<void> {
  const job = await runtime.runJob({
    nodes: [
      { id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario: path.join(ROOT, 'examples/scenarios/home-monitored.yaml'), realtime: false, durationS: seconds } } },
      { id: 'rec', position: { x: 0, y: 0 }, data: { nodeType: 'csi.record', config: { path: capture, source } } },
    ],
    edges: [{ id: 'e', source: 'sim', sourceHandle: 'frames', target: 'rec', targetHandle: 'frames' }],
  });
  expect((await job.done).status).toBe('completed');
}
