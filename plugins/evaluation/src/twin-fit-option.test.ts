// `eval-e2e --twin-fit` on the tiny size (seconds of each scenario, one twin session per room):
// every room of the run gets its own locator fitted on its twin, the frames of each room carry
// that room's locator, and the report says which and what the twin cost. Its figures mean nothing.
import { createTestRuntime } from '@wiflow/core/testing';
import posePlugin, { loadLocatorModel, SHIPPED_LOCATOR_DIR } from '@wiflow/plugin-pose-tfjs';
import retailPlugin from '@wiflow/plugin-retail';
import simPlugin from '@wiflow/plugin-sim';
import trackerPlugin from '@wiflow/plugin-tracker';
import { describe, expect, it } from 'vitest';
import { evaluateEndToEnd } from './index.js';

describe('eval-e2e --twin-fit', () => {
  it("runs each room with its own twin-fitted locator and names it, as the room's frames carried it", { timeout: 300_000 }, async () => {
    const runtime = await createTestRuntime({ plugins: [simPlugin, posePlugin, trackerPlugin, retailPlugin] });
    try {
      const report = await evaluateEndToEnd(runtime, { size: 'tiny', twinFit: true, twinSessions: 1 });
      const shipped = loadLocatorModel(SHIPPED_LOCATOR_DIR);
      const twin = report.twinFit!;
      expect(twin.base).toBe(`${shipped.spec.modelId}@${shipped.hash}`);
      expect(twin.sessions).toBe(1);
      // The tiny size runs one test room (its crossing and its emptied run are the same room) and the shop.
      expect(twin.rooms.map((r) => r.environmentId)).toHaveLength(2);
      expect(new Set(twin.rooms.map((r) => r.hash)).size).toBe(2);
      for (const room of twin.rooms) {
        expect(room.modelId).toBe(`${shipped.spec.modelId}+twin`);
        expect(room.hash).not.toBe(shipped.hash);
        const [carriedId, carriedHash] = room.framesCarried.split('@');
        expect(carriedId).toBe(room.modelId);
        expect(carriedHash.length).toBeGreaterThanOrEqual(12);
        expect(room.hash.startsWith(carriedHash)).toBe(true);
        expect(room.countBias).toHaveLength(shipped.spec.imaging.maxPersons + 1);
        expect(room.cpuSeconds).toBeGreaterThan(0);
      }
      expect(twin.cpuSeconds).toBeCloseTo(twin.rooms.reduce((a, r) => a + r.cpuSeconds, 0), 1);
      expect(report.estimator).toBe(`${shipped.spec.modelId}+twin`);
    } finally {
      await runtime.stop();
    }
  });

  it('leaves the report without twinFit when the option is off', { timeout: 300_000 }, async () => {
    const runtime = await createTestRuntime({ plugins: [simPlugin, posePlugin, trackerPlugin, retailPlugin] });
    try {
      const report = await evaluateEndToEnd(runtime, { size: 'tiny' });
      expect(report.twinFit).toBeUndefined();
      expect(report.estimator).toBe(loadLocatorModel(SHIPPED_LOCATOR_DIR).spec.modelId);
    } finally {
      await runtime.stop();
    }
  });
});
