import { discoverPlugins, PLUGIN_API_VERSION, type PoseFrame } from '@wiflow/core';
import { runNode } from '@wiflow/core/testing';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import plugin, { confidenceFilterNode } from './index.js';

function frame(confidences: number[]): PoseFrame {
  return {
    timestamp: Date.now(),
    frameId: 1,
    environmentId: 'room',
    processingTimeMs: 0,
    persons: confidences.map((confidence, id) => ({ id, trackId: null, confidence, keypoints: [], keypoints3d: [], boundingBox: { x: 0, y: 0, width: 1, height: 1 }, position: { x: 0, y: 0 } })),
    metadata: { modelId: 'test', modelHash: 'none', modelVersion: '0', processingMode: 'test', provenance: 'simulated', csiQuality: null, linkCount: 1, pipeline: 'test' },
  };
}

describe('template.confidence-filter', () => {
  it('removes people below the threshold and drops empty frames when asked', async () => {
    const result = await runNode(confidenceFilterNode, {
      plugins: [plugin],
      config: { minConfidence: 0.6, dropEmpty: true },
      inputs: { poses: [frame([0.9, 0.3]), frame([0.1]), frame([0.7, 0.65])] },
    });
    expect(result.status).toBe('completed');
    const out = result.outputs.poses as PoseFrame[];
    expect(out.map((f) => f.persons.map((p) => p.confidence))).toEqual([[0.9], [0.7, 0.65]]);
    expect(result.counters?.in).toBe(3);
  });

  it('rejects an out-of-range threshold at compile time', async () => {
    const result = await runNode(confidenceFilterNode, { plugins: [plugin], config: { minConfidence: 2 }, inputs: { poses: [] } }).catch((e: Error & { details?: { problems: { field?: string }[] } }) => e);
    expect(result).toBeInstanceOf(Error);
    expect((result as Error & { details: { problems: { field?: string }[] } }).details.problems[0].field).toBe('minConfidence');
  });

  it('is discovered when installed (it is a workspace package linked into node_modules)', () => {
    const here = path.dirname(fileURLToPath(import.meta.url));
    const found = discoverPlugins([here]).find((p) => p.name === 'wiflow-plugin-template');
    expect(found?.apiVersion).toBe(String(PLUGIN_API_VERSION));
  });
});
