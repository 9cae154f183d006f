import { buildFlow, loadInstalledPlugin, pluginCommands } from '@wiflow/core/testing';
import { PLUGIN_API_VERSION, type PoseFrame } from '@wiflow/core';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FilterStatsToken, TemplateSection } from './index.js';

const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const frame = (confidences: number[]): PoseFrame => ({
  timestamp: 0,
  frameId: 1,
  environmentId: 'room',
  processingTimeMs: 0,
  persons: confidences.map((confidence, id) => ({ id, trackId: null, confidence, keypoints: [], keypoints3d: [], boundingBox: { x: 0, y: 0, width: 1, height: 1 }, position: { x: 0, y: 0 } })),
  metadata: { modelId: 'test', modelHash: 'none', modelVersion: '0', processingMode: 'test', provenance: 'simulated', csiQuality: null, linkCount: 1, pipeline: 'test' },
});

const filterFlow = buildFlow(
  { poses: ['io.input', { name: 'poses', valueType: 'json' }], filter: ['template.confidence-filter', { minConfidence: 0.5 }], kept: ['io.output', { name: 'kept' }] },
  ['poses.value -> filter.poses', 'filter.poses -> kept.value'],
);

describe('the template as an installed plugin', () => {
  it('loads as the plugin host discovers it: node type, service, config section, route and command', async () => {
    const { runtime, report } = await loadInstalledPlugin(packageDir);
    expect(report).toMatchObject({ status: 'loaded', nodeTypes: ['template.confidence-filter'] });
    expect(runtime.config.get('template')).toEqual({ statsRoute: true });
    // Typed by the section's schema: `statsRoute` is a boolean here without a cast.
    const statsRoute: boolean = runtime.config.read(TemplateSection).statsRoute;
    expect(statsRoute).toBe(true);
    const { url } = await runtime.listen(0, '127.0.0.1');
    try {
      const job = await runtime.runJob(filterFlow, { inputs: { poses: frame([0.9, 0.2, 0.1]) } });
      const result = await job.done;
      expect(result.status).toBe('completed');
      expect((result.outputs.kept as PoseFrame[])[0].persons.map((p) => p.confidence)).toEqual([0.9]);
      expect(runtime.services.get(FilterStatsToken).snapshot()).toEqual({ removed_persons: 2 });
      expect(await (await fetch(`${url}/template/stats`)).json()).toEqual({ removed_persons: 2 });
      const lines: string[] = [];
      await pluginCommands(runtime, (line) => lines.push(line)).parseAsync(['template-stats'], { from: 'user' });
      expect(lines).toEqual(['{"removed_persons":2}']);
    } finally {
      await runtime.stop(2000);
    }
  });

  it('honours its config section (statsRoute: false serves no route)', async () => {
    const { runtime, report } = await loadInstalledPlugin(packageDir, { config: { template: { statsRoute: false } } });
    expect(report?.status).toBe('loaded');
    const { url } = await runtime.listen(0, '127.0.0.1');
    try {
      expect((await fetch(`${url}/template/stats`)).status).toBe(404);
    } finally {
      await runtime.stop(2000);
    }
  });

  it('leaves nothing behind when a plugin built from it throws at the end of its setup', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-broken-template-'));
    writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'broken-template', version: '0.1.0', type: 'module', keywords: ['wiflow-plugin'], wiflow: { entry: 'index.js', apiVersion: PLUGIN_API_VERSION } }));
    const template = pathToFileURL(path.join(packageDir, 'dist', 'index.js')).href;
    writeFileSync(
      path.join(dir, 'index.js'),
      `import template from ${JSON.stringify(template)};\nexport default { ...template, name: 'broken-template', async setup(ctx) { await template.setup(ctx); throw new Error('licence key expired'); } };\n`,
    );
    const { runtime, report } = await loadInstalledPlugin(dir);
    expect(report).toMatchObject({ status: 'failed', nodeTypes: [] });
    expect(report?.reason).toContain('licence key expired');
    expect(runtime.registry.has('template.confidence-filter')).toBe(false);
    expect(runtime.services.has(FilterStatsToken)).toBe(false);
    expect(runtime.config.schemaOf('template')).toBeUndefined();
    expect(pluginCommands(runtime).commands.map((c) => c.name())).not.toContain('template-stats');
    const { url } = await runtime.listen(0, '127.0.0.1');
    try {
      expect((await fetch(`${url}/template/stats`)).status).toBe(404);
    } finally {
      await runtime.stop(2000);
    }
  });
});
