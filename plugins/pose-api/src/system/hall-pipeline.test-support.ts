// The stale-reference tests' pipeline: a simulated hall → pose.locate (against an empty-room
// reference recorded from the same scenario at installation) → pose.publish, written as the
// server's pipeline flow.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { environmentFromScenario, simulateReference, writeReference } from '@wiflow/plugin-pose-tfjs';
import * as sim from '@wiflow/plugin-sim';

/**
 * Record `scenario`'s empty-room reference (10 s) into `dataDir`, and write a pipeline that runs
 * `scenario` faster than real time through the shipped locator with that reference (and
 * `locateConfig` merged into pose.locate's config). Returns the reference file.
 */
export function writeHallPipeline(dataDir: string, scenario: object, locateConfig: Record<string, unknown> = {}): string {
  const validated = sim.validateScenario(scenario);
  const referenceFile = path.join(dataDir, 'hall-reference.json');
  writeReference(referenceFile, simulateReference(sim as never, validated as never, 10));
  writeFileSync(path.join(dataDir, 'pipeline.json'), JSON.stringify({
    id: 'hall-pipeline',
    name: 'hall',
    data: {
      nodes: [
        // Faster than real time: the tests wait for tens of simulated seconds.
        { id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario, realtime: false, durationS: 3600 } } },
        { id: 'locate', position: { x: 200, y: 0 }, data: { nodeType: 'pose.locate', config: { environments: [environmentFromScenario(validated as never)], references: [referenceFile], densePose: 'none', ...locateConfig } } },
        { id: 'publish', position: { x: 400, y: 0 }, data: { nodeType: 'pose.publish', config: {} } },
      ],
      edges: [
        { id: 'e1', source: 'sim', sourceHandle: 'frames', target: 'locate', targetHandle: 'frames' },
        { id: 'e2', source: 'locate', sourceHandle: 'poses', target: 'publish', targetHandle: 'poses' },
      ],
    },
  }));
  return referenceFile;
}
