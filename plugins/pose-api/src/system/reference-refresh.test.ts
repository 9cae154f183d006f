// The automatic empty-room reference refresh over real HTTP: with pose.locate's referenceRefresh
// on, an empty, still hall is re-learned by itself, and /system/status and /health/detailed say
// when, why, the version and the old one kept for rollback.
import csiPlugin from '@wiflow/plugin-csi';
import posePlugin from '@wiflow/plugin-pose-tfjs';
import simPlugin, * as sim from '@wiflow/plugin-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, waitFor, type TestServer } from '../fixtures.test-support.js';
import { writeHallPipeline } from './hall-pipeline.test-support.js';

/** The empty hall, as when its reference was recorded. */
const scenario = sim.hallScenario();

let server: TestServer;
const call = async (url: string) => server.http.get(`/api/v1${url}`).set('Authorization', `Bearer ${await server.token('viewer')}`);

beforeAll(async () => {
  server = await startTestServer({ plugins: [simPlugin, csiPlugin, posePlugin] });
  writeHallPipeline(server.dataDir, scenario, { referenceRefresh: { enabled: true, emptySeconds: 10 } });
}, 60_000);
afterAll(() => server?.close());

describe('the automatic reference refresh over HTTP', () => {
  it('an empty, still hall is refreshed once the locator saw nobody for 10 still seconds; status and health say when, why and what is kept', async () => {
    const operator = server.http.post('/api/v1/system/start').set('Authorization', `Bearer ${await server.token('operator')}`).send({});
    expect((await operator).status).toBeLessThan(300);
    await waitFor(async () => ((await call('/system/status')).body.empty_room_reference.refresh?.[0]?.version ?? 1) > 1, 60_000);
    const refresh = (await call('/system/status')).body.empty_room_reference.refresh[0];
    expect(refresh).toMatchObject({ environment_id: 'hall', enabled: true, judges: ['locator'] });
    expect(Date.parse(refresh.refreshed_at)).not.toBeNaN();
    expect(refresh.reason).toMatch(/^router->laptop: the room was judged empty \(locator\) and the link still for 10 s; it had drifted [\d.]+ noise floors from the reference$/);
    expect(refresh.links).toEqual([expect.objectContaining({ link: 'router->laptop', refreshed_at: expect.any(String) })]);
    expect(refresh.history.at(-1)).toEqual({ version: 1, at: null, links: [], reason: 'the reference the room started with' });
    const health = (await call('/health/detailed')).body.components.empty_room_reference;
    expect(health.refresh[0]).toMatchObject({ environment_id: 'hall', enabled: true });
    expect(health.refresh[0].version).toBeGreaterThan(1);
  }, 90_000);
});
