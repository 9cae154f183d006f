import { COCO_KEYPOINTS, type Person, type PoseFrame } from '@wiflow/core';

const METADATA: PoseFrame['metadata'] = {
  modelId: 'wiflow-pose-synthetic',
  modelHash: '0'.repeat(64),
  modelVersion: '0.0.0',
  processingMode: 'benchmark',
  provenance: 'simulated',
  csiQuality: 0.9,
  linkCount: 3,
  pipeline: 'synthetic',
};

/** A deterministic person for load tests (all 17 keypoints, 3D keypoints, box, position). */
function syntheticPerson(index: number, frameId: number): Person {
  const x = (frameId % 500) / 100 + index;
  return {
    id: index,
    trackId: 1 + index + Math.floor(frameId / 3000) * 10,
    confidence: 0.5 + ((frameId * 7 + index * 13) % 50) / 100,
    keypoints: COCO_KEYPOINTS.map((name, k) => ({ name, x: 100 + k * 3 + x, y: 200 + k * 2, confidence: 0.8, visible: true })),
    boundingBox: { x: 90 + x, y: 150, width: 60, height: 120 },
    keypoints3d: COCO_KEYPOINTS.map((name, k) => ({ name, x, y: index, z: 1.7 - k / 10, confidence: 0.7 })),
    position: { x, y: index },
    velocity: { x: 0.1, y: 0 },
    trackStatus: 'active',
    activity: (['standing', 'walking', 'sitting'] as const)[frameId % 3],
  };
}

/** Frame `frameId` of a synthetic stream: 10 fps from `start`, `personsPerFrame` persons. */
export function syntheticFrame(frameId: number, start: number, environmentId: string, personsPerFrame: number): PoseFrame {
  const persons: Person[] = [];
  for (let i = 0; i < personsPerFrame; i++) persons.push(syntheticPerson(i, frameId));
  return { timestamp: start + frameId * 100, frameId, environmentId, processingTimeMs: 3, persons, metadata: METADATA };
}
