// Healthcare analytics from stored sensing frames (issue 22 item 3): sensing frames go through a flow into
// `healthcare.monitor` and `pose.publish` (which stores them in a real SQLite file); GET /analytics/healthcare
// over real HTTP must answer what the healthcare plugin's own monitor says about the same frames.
import { existsSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime, SensingFrame } from '@wiflow/core';
import { buildFlow, createTestRuntime, runFlow } from '@wiflow/core/testing';
import sqlitePlugin, { SqliteStorage } from '@wiflow/plugin-sqlite';
import sensingPlugin from '@wiflow/plugin-sensing';
import healthcarePlugin, { type HealthcareSensingRecord } from '@wiflow/plugin-healthcare';
import { createPoseApiPlugin, PoseApiToken } from '@wiflow/plugin-pose-api';
import { createIdentityPlugin } from '@wiflow/plugin-identity';

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** One room second as sense.room emits it: a person walking unless patched. */
function roomSecond(t0: number, s: number, patch: Partial<SensingFrame> = {}): SensingFrame {
  return { time: t0 + (s + 1) * 1000, second: s, scope: 'room', environmentId: 'flat', link: null, presence: true, state: 'moving', motion: 0.8, breathingBpm: null, breathingReason: 'moving', breathingQuality: null, activity: 'walking', falls: [], lostFraction: 0.02, estimatorId: 'wiflow-sense-v1', configHash: '0123456789abcdef', provenance: 'replay', ...patch };
}

const empty = { presence: false, state: 'empty', motion: 0.02, activity: null, breathingReason: 'empty' } as const;
const still = { state: 'still', motion: 0.05, activity: null, breathingBpm: 13, breathingReason: null, breathingQuality: 5 } as const;

/**
 * Forty-two minutes of a flat: empty 2 min, walking 5 min, a fall, still 30 min (a rest period with one
 * restless moment), walking 3 min, empty 2 min.
 */
function flatDay(t0: number): SensingFrame[] {
  const frames: SensingFrame[] = [];
  for (let s = 0; s < 2521; s++) {
    if (s < 120 || s > 2400) frames.push(roomSecond(t0, s, empty));
    else if (s < 420 || s > 2220) frames.push(roomSecond(t0, s));
    else if (s === 420) frames.push(roomSecond(t0, s, { motion: 0.96, activity: 'fall', falls: [{ time: t0 + 420_400, confidence: 0.88 }] }));
    else if (s >= 1300 && s < 1303) frames.push(roomSecond(t0, s, { activity: 'other', motion: 0.6 }));
    else frames.push(roomSecond(t0, s, still));
  }
  return frames;
}

describe('healthcare analytics from stored sensing frames', () => {
  it("GET /analytics/healthcare over HTTP agrees with healthcare.monitor on the same frames, stored in a SQLite file; without sensing frames it says it used the pose frames; /analytics/occupancy gives their presence", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-sensing-healthcare-'));
    const runtime: Runtime = await createTestRuntime({
      dataDir,
      plugins: [sqlitePlugin, sensingPlugin, healthcarePlugin, createIdentityPlugin({ print: () => undefined, env: { WIFLOW_JWT_SECRET: '' } }), createPoseApiPlugin({ env: { WIFLOW_JWT_SECRET: '' } })],
      config: { storage: { kind: 'sqlite', flushIntervalMs: 5 } },
    });
    let stopped = false;
    cleanups.push(() => (stopped ? undefined : runtime.stop(5000)));
    const { url } = await runtime.listen(0, '127.0.0.1');
    const admin = await runtime.storage.users.create({ username: 'carer', password: 'carer-password-123', roles: ['admin'] });
    const token = runtime.services.get(PoseApiToken).auth.signAccessToken(admin).token;

    const t0 = Math.floor((Date.now() - 3 * 3_600_000) / 60_000) * 60_000;
    const frames = flatDay(t0);
    const flow = buildFlow(
      {
        sensing: ['test.feed', { input: 'sensing' }],
        health: ['healthcare.monitor', {}],
        alerts: ['sense.alerts', {}],
        publish: ['pose.publish', {}],
        records: ['test.collect', { output: 'records' }],
      },
      ['sensing.out -> health.sensing', 'sensing.out -> publish.sensing', 'sensing.out -> alerts.sensing', 'alerts.events -> publish.events', 'alerts.alerts -> publish.alerts', 'health.metrics -> records.in'],
    );
    const result = await runFlow(runtime, flow, { sensing: frames }, 60_000);
    expect(result.status, result.error ?? '').toBe('completed');
    // The node's record of everything it counted (it emits one at the end).
    const node = (result.outputs.records as HealthcareSensingRecord[]).filter((r) => r.source === 'sensing').at(-1)!;
    expect(node.metrics.activity_summary.walking_minutes).toBe(8);
    expect(node.metrics.sleep_quality.periods).toBe(1);
    expect(node.metrics.fall_events.count).toBe(1);
    await runtime.storage.flush();

    const fetchJson = async (route: string, query: Record<string, string>) => {
      const response = await fetch(`${url}/api/v1/analytics/${route}?${new URLSearchParams(query)}`, { headers: { authorization: `Bearer ${token}` } });
      expect(response.status, await response.clone().text()).toBe(200);
      // Convention A answers the record itself, convention B wraps it in { success, data }.
      const body = (await response.json()) as { success?: boolean; data?: unknown; metrics?: unknown };
      return (body.success === true ? body.data : body) as Record<string, any>;
    };
    const get = (query: Record<string, string>) => fetchJson('healthcare', query);
    const range = { start_time: new Date(t0 - 60_000).toISOString(), end_time: new Date(t0 + 3_600_000).toISOString() };
    const api = (await get({ ...range, environment_id: 'flat' })).metrics;
    expect(api.basis).toEqual({ kind: 'sensing', scope: 'room', frames: frames.length, estimators: [{ estimator_id: 'wiflow-sense-v1', config_hash: '0123456789abcdef', provenance: 'replay' }], rules: { mobility: 'mobility-sensing-v1', sleep: 'rest-sensing-v1' } });
    expect(api.activity_summary).toEqual(node.metrics.activity_summary);
    expect(api.mobility_score).toBe(node.metrics.mobility_score);
    const { rule: _rule, ...sleep } = node.metrics.sleep_quality;
    expect(api.sleep_quality).toEqual(sleep);
    // Falls: the event sense.alerts raised from the same frames, at the fall's time, with its confidence and rule.
    expect(api.fall_events.count).toBe(node.metrics.fall_events.count);
    expect(api.fall_events.events.map((e: Record<string, unknown>) => [e.timestamp, e.confidence, e.source])).toEqual(node.metrics.fall_events.events.map((e) => [e.timestamp, e.confidence, 'sensing.fall/wiflow-sense-v1']));

    // Only the metrics asked for; a range with no sensing frame falls back to the pose frames and says so.
    const some = (await get({ ...range, environment_id: 'flat', metrics: 'mobility_score' })).metrics;
    expect(Object.keys(some).sort()).toEqual(['basis', 'mobility_score']);
    const elsewhere = (await get({ ...range, environment_id: 'elsewhere' })).metrics;
    expect(elsewhere.basis).toMatchObject({ kind: 'poses', frames: 0 });
    expect(elsewhere.sleep_quality).toEqual({ total_sleep_hours: null, sleep_efficiency: null, restlessness_events: null });

    // /analytics/occupancy: presence from the same stored frames beside the (here absent) located people.
    const occupancy = await fetchJson('occupancy', { ...range, environment_id: 'flat', interval: '15min' });
    const present = frames.filter((f) => f.presence).length;
    expect(occupancy.sensing).toMatchObject({ frames: frames.length, estimators: [{ estimator_id: 'wiflow-sense-v1', config_hash: '0123456789abcdef', provenance: 'replay' }] });
    expect(occupancy.sensing.present_hours).toBeCloseTo(present / 3600, 9);
    expect(occupancy.sensing.time_series.reduce((n: number, b: { seconds: number }) => n + b.seconds, 0)).toBe(frames.length);
    expect(occupancy.sensing.time_series.reduce((n: number, b: { seconds: number; present_fraction: number }) => n + b.seconds * b.present_fraction, 0)).toBeCloseTo(present, 6);
    expect((await fetchJson('occupancy', { ...range, environment_id: 'elsewhere' })).sensing).toBeNull();

    // The frames are in the file: a second storage over it, after the runtime closed, reads them all back.
    await runtime.stop(5000);
    stopped = true;
    const file = path.join(dataDir, 'wiflow.db');
    expect(existsSync(file), `${file} exists`).toBe(true);
    const reopened = new SqliteStorage({ file, retentionIntervalMs: 0 });
    await reopened.open();
    cleanups.push(() => reopened.close());
    const stored = await reopened.sensing.find({ environmentId: 'flat', scope: 'room' }, { page: 1, perPage: 1 });
    expect(stored.total).toBe(frames.length);
    expect(stored.items[0]).toEqual(frames[0]);
  }, 120_000);
});
