import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COCO_KEYPOINTS, type Person, type PoseFrame } from '@wiflow/core';
import { computeRetailMetrics, type RetailOptionsInput } from '@wiflow/plugin-retail';
import { startTestServer, type TestServer } from '../fixtures.test-support.js';

const BASE = Date.UTC(2026, 0, 5, 9, 0, 0);
const options: RetailOptionsInput = {
  zones: [
    { id: 'entrance', name: 'Entrance', polygon: [[0, 0], [2, 0], [2, 2], [0, 2]] },
    { id: 'checkout', name: 'Checkout', polygon: [[4, 0], [6, 0], [6, 2], [4, 2]] },
  ],
  funnel: ['entrance', 'checkout'],
};

function person(trackId: number, x: number, y: number, status: Person['trackStatus'] = 'active'): Person {
  return {
    id: trackId,
    trackId,
    confidence: 0.9,
    keypoints: COCO_KEYPOINTS.map((name, k) => ({ name, x: 100 + x * 50 + k, y: 50 + k * 10, confidence: 0.8, visible: true })),
    boundingBox: { x: 90 + x * 50, y: 40, width: 60, height: 180 },
    keypoints3d: [],
    position: { x, y },
    trackStatus: status,
    activity: 'standing',
  };
}

/**
 * One frame a second for 450 s in environment `shop`:
 * track 1 walks from the entrance to the checkout (0–59 s), is away 6 minutes (longer than the
 * 300 s revisit gap) and comes back to the entrance (420–449 s): one visitor, two visits;
 * track 2 stands in the entrance (10–89 s); track 3 is a tentative track (100–102 s), no visitor.
 */
function shopFrames(): PoseFrame[] {
  return Array.from({ length: 450 }, (_, t) => {
    const persons: Person[] = [];
    if (t < 60) persons.push(person(1, 1 + (4.5 * t) / 59, 1));
    if (t >= 420) persons.push(person(1, 1, 1));
    if (t >= 10 && t < 90) persons.push(person(2, 1.2, 1.5));
    if (t >= 100 && t <= 102) persons.push(person(3, 3, 3, 'tentative'));
    return { timestamp: BASE + t * 1000, frameId: t, environmentId: 'shop', persons, metadata: { modelId: 'test', modelHash: 'sha256:test', provenance: 'simulated' } } as PoseFrame;
  });
}

describe('GET /analytics/retail shapes the retail plugin\'s period report (SQLite file)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ config: { retail: options } });
  });
  afterAll(async () => {
    await s?.close();
  });

  it('answers what the retail plugin computes from the same stored frames: visitors are distinct visitors, visits count revisits', async () => {
    const frames = shopFrames();
    await s.runtime.storage.poses.append(frames);
    const token = await s.token('viewer');
    const res = await s.http
      .get('/api/v1/analytics/retail')
      .query({ period: 'day', start_time: new Date(BASE).toISOString(), end_time: new Date(BASE + 450_000).toISOString(), environment_id: 'shop' })
      .set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(200);
    const route = res.body.metrics;
    const plugin = computeRetailMetrics(frames, options).metrics;

    // The defect fixed: unique_visitors was the number of stored tracks (3, the tentative one
    // included) and total_visitors the same number; now both are the retail plugin's.
    expect(plugin.traffic.unique_visitors).toBe(2);
    expect(plugin.traffic.total_visitors).toBe(3);
    const tracks = await s.runtime.storage.tracks.list({ environmentId: 'shop' }, { page: 1, perPage: 10 });
    expect(tracks.total).toBe(3);
    expect(route.traffic).toEqual(plugin.traffic);

    expect(route.conversion_funnel).toEqual(plugin.conversion_funnel);
    // The funnel counts visits: track 1's return is a new visit that enters the funnel again.
    expect(route.conversion_funnel).toEqual({ Entrance: 3, Checkout: 1 });
    expect(route.zones).toEqual(plugin.zones.map(({ visits: _visits, ...zone }) => zone));
    expect(route.zones.map((z: { zone_id: string; visitor_count: number }) => [z.zone_id, z.visitor_count])).toEqual([['entrance', 2], ['checkout', 1]]);
    expect(route.heat_map.high_traffic_areas).toEqual(plugin.heat_map.high_traffic_areas);
  });

  it('without zones, the heat map lists the busiest cells of the plugin\'s 0.5 m grid, named by their corner in metres', async () => {
    const frames = shopFrames();
    const plugin = computeRetailMetrics(frames, { heat_map_cell_m: 0.5 }).metrics;
    // Track 2 stood 80 s at (1.2, 1.5): the cell from (1, 1.5) is the busiest.
    expect(plugin.heat_map.high_traffic_areas[0]).toEqual({ zone: 'cell_1_1.5', intensity: 1 });
    expect(plugin.heat_map.high_traffic_areas.length).toBeLessThanOrEqual(10);
  });
});

describe('GET /analytics/<domain> without the domain plugin', () => {
  it('answers 503 naming the plugin that computes the report, for each domain', async () => {
    const s = await startTestServer({ withoutDomainPlugins: true });
    try {
      const token = await s.token('viewer');
      for (const [domain, plugin] of [['healthcare', '@wiflow/plugin-healthcare'], ['retail', '@wiflow/plugin-retail'], ['security', '@wiflow/plugin-security']]) {
        const res = await s.http.get(`/api/v1/analytics/${domain}`).query({ period: 'hour' }).set('Authorization', `Bearer ${token}`);
        expect(res.status).toBe(503);
        expect(JSON.stringify(res.body)).toContain(plugin);
      }
    } finally {
      await s.close();
    }
  });
});
