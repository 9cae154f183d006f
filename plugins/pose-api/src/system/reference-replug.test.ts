// A receiver re-plugged since the empty-room reference, over real HTTP: the shipped locator
// aligns the new chain phases (its gain per receive chain), so /system/status and
// /health/detailed say "re-plugged, no action needed", not stale, and the system is not degraded.
import csiPlugin from '@wiflow/plugin-csi';
import posePlugin from '@wiflow/plugin-pose-tfjs';
import simPlugin, * as sim from '@wiflow/plugin-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, waitFor, type TestServer } from '../fixtures.test-support.js';
import { writeHallPipeline } from './hall-pipeline.test-support.js';

/** The furnished hall of the stale-reference test, nothing moved: the laptop was unplugged and plugged in again since the reference. */
const furnished = sim.hallScenario({ movedBench: true });
const scenario = { ...furnished, drift: { referenceSeed: 9, replugged: ['laptop'] } };

let server: TestServer;
const call = async (url: string) => server.http.get(`/api/v1${url}`).set('Authorization', `Bearer ${await server.token('viewer')}`);

beforeAll(async () => {
  server = await startTestServer({ plugins: [simPlugin, csiPlugin, posePlugin] });
  writeHallPipeline(server.dataDir, scenario);
}, 60_000);
afterAll(() => server?.close());

describe('a re-plugged receiver over HTTP', () => {
  it('is reported re-plugged (the locator copes), not stale, in /system/status and /health/detailed', async () => {
    const operator = server.http.post('/api/v1/system/start').set('Authorization', `Bearer ${await server.token('operator')}`).send({});
    expect((await operator).status).toBeLessThan(300);
    await waitFor(async () => (await call('/system/status')).body.empty_room_reference.links?.[0]?.status !== 'unchecked' && (await call('/system/status')).body.empty_room_reference.links?.length > 0, 60_000);
    const status = (await call('/system/status')).body.empty_room_reference;
    expect(status).toMatchObject({ status: 'fresh', stale_links: [], replugged_links: ['hall/router->laptop'], message: null });
    expect(status.links[0]).toMatchObject({ environment_id: 'hall', link: 'router->laptop', status: 'fresh', verdict: 'replugged' });
    expect(status.links[0].change_noise_floors).toBeGreaterThan(20);
    expect(status.links[0].chain_aligned_change_noise_floors).toBeLessThan(2);
    expect(status.notice).toMatch(/^receiver re-plugged on router->laptop \(hall, .*\): its chain phases changed .* the locator aligns them .* no action is needed/);
    // The automatic refresh is off unless the flow turns it on: the recorded reference, never refreshed.
    expect(status.refresh).toEqual([expect.objectContaining({ environment_id: 'hall', enabled: false, version: 1, refreshed_at: null, judges: ['locator'], history: [] })]);
    const health = (await call('/health/detailed')).body;
    expect(health.components.empty_room_reference).toMatchObject({ status: 'fresh', replugged_links: ['hall/router->laptop'] });
    expect(health.overall_status).not.toBe('degraded');
  }, 90_000);
});
