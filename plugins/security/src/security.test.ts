import { describe, expect, it } from 'vitest';
import type { Alert, AnalyticsEvent, PoseFrame } from '@wiflow/core';
import { observeTruth, type SceneSpec } from '@wiflow/analytics-common';
import { simulatorTruth } from '@wiflow/analytics-common/sim';
import { MultiPersonTracker } from '@wiflow/plugin-tracker';
import { runNode } from '@wiflow/core/testing';
import { AccessService, SecurityAnalyzer, computeSecurityMetrics, securityNode, type SecurityOptionsInput } from './index.js';

const ROOM: [number, number] = [10, 6];
const options: SecurityOptionsInput = {
  perimeter: [{ id: 'front', name: 'Front line', a: [2, 0], b: [2, 6], inside: 'right' }],
  zones: [
    { id: 'vault', name: 'Vault', polygon: [[7, 0], [10, 0], [10, 3], [7, 3]], armed: 'always' },
    { id: 'office', name: 'Office', polygon: [[7, 3.6], [10, 3.6], [10, 6], [7, 6]], armed: [{ days: [0, 1, 2, 3, 4, 5, 6], start: '22:00', end: '06:00' }] },
    { id: 'badge', name: 'Badge reader', polygon: [[0, 2.5], [1.2, 2.5], [1.2, 3.5], [0, 3.5]] },
  ],
  authorized_zones: ['badge'],
};

// Truth: person 1 crosses the line without authorisation at about 2 s and stands in the vault
// from about 9 s; person 2 badges in (5 s at the reader), then visits the vault and the office;
// person 3 enters at about 45 s after an access grant given through the API at 40 s.
function scene(startTime: number): SceneSpec {
  return {
    startTime, durationS: 90, rateHz: 5, people: [
      { id: 1, script: [{ action: 'enter', at: [0.5, 1] }, { action: 'walk', path: [[4, 1], [8.5, 1.5]] }, { action: 'stand', duration: 10 }, { action: 'walk', path: [[4, 1], [0.5, 1]] }, { action: 'leave' }] },
      { id: 2, script: [{ action: 'absent', duration: 15 }, { action: 'enter', at: [0.4, 3] }, { action: 'stand', duration: 5 }, { action: 'walk', path: [[4, 3.3], [8.5, 1.5]] }, { action: 'stand', duration: 5 }, { action: 'walk', path: [[8.5, 4.8]] }, { action: 'stand', duration: 5 }, { action: 'walk', path: [[0.5, 4.2]] }, { action: 'leave' }] },
      { id: 3, script: [{ action: 'absent', duration: 45 }, { action: 'enter', at: [0.5, 5.2] }, { action: 'walk', path: [[5, 5.2]] }, { action: 'stand', duration: 30 }] },
    ],
  };
}

function trackedFrames(startTime: number, seed = 1): PoseFrame[] {
  const tracker = new MultiPersonTracker();
  return observeTruth(simulatorTruth(scene(startTime), ROOM), { seed, noise: { room: ROOM } }).map((f) => tracker.update(f));
}

function run(frames: PoseFrame[], access: AccessService | null) {
  const analyzer = new SecurityAnalyzer(options, access);
  const events: AnalyticsEvent[] = [];
  const alerts: Alert[] = [];
  for (const f of frames) {
    const out = analyzer.update(f);
    events.push(...out.events);
    alerts.push(...out.alerts);
  }
  return { analyzer, events, alerts };
}

describe('security analytics on a simulated site', () => {
  const night = Date.UTC(2026, 0, 1, 0, 0);
  const nightFrames = trackedFrames(night);

  it('separates the unauthorised crossing from badge and API-authorised entries, and raises one intrusion', () => {
    const access = new AccessService();
    access.authorizeNextEntry({ at: night + 40_000, seconds: 20, lineId: 'front', by: 'reception' });
    const { analyzer, events, alerts } = run(nightFrames, access);
    const m = analyzer.metrics().metrics;
    expect(m.perimeter_monitoring.unauthorized_attempts).toBe(1);
    expect(m.perimeter_monitoring.authorized_entries).toBe(2);
    expect(m.perimeter_monitoring.exits).toBe(2);
    const ins = events.filter((e) => e.type === 'perimeter_crossing' && e.metadata.direction === 'in');
    expect(ins.map((e) => e.metadata.authorized_by).sort()).toEqual(['authorized_zone', 'entry_grant', null].sort());
    const unauthorised = ins.find((e) => !e.metadata.authorized)!;
    expect((unauthorised.timestamp - night) / 1000).toBeGreaterThan(1);
    expect((unauthorised.timestamp - night) / 1000).toBeLessThan(3.5);
    // Only person 1 intrudes: the vault (armed always) — person 2 is authorised there and in the office.
    expect(m.intrusion_events.count).toBe(1);
    expect(m.intrusion_events.events[0].zone).toBe('vault');
    expect(m.intrusion_events.events[0].threat_level).toBe('high');
    const intrusion = events.find((e) => e.type === 'intrusion')!;
    expect((intrusion.timestamp - night) / 1000).toBeGreaterThan(5);
    expect((intrusion.timestamp - night) / 1000).toBeLessThan(9);
    expect(alerts.map((a) => a.alertType).sort()).toEqual(['intrusion', 'unauthorized_entry']);
    expect(m.crowd_analysis.max_occupancy).toBe(2);
  });

  it('treats the person 3 entry as unauthorised without the API grant, and respects armed schedules', () => {
    const { analyzer } = run(nightFrames, null);
    expect(analyzer.metrics().metrics.perimeter_monitoring.unauthorized_attempts).toBe(2);
    // At noon the office is disarmed and the vault still armed: same single intrusion; unauthorised person 2 would trip the office only at night.
    const opts: SecurityOptionsInput = { ...options, authorized_zones: [], zones: options.zones!.map((z) => (z.id === 'badge' ? { ...z, armed: 'never' as const } : z)) };
    const atNight = computeSecurityMetrics(nightFrames, opts).metrics.intrusion_events.events.map((e) => e.zone).sort();
    expect(atNight).toEqual(['office', 'vault', 'vault']);
    const noonFrames = trackedFrames(Date.UTC(2026, 0, 1, 12, 0));
    const atNoon = computeSecurityMetrics(noonFrames, opts).metrics.intrusion_events.events.map((e) => e.zone).sort();
    expect(atNoon).toEqual(['vault', 'vault']);
  });

  it('detects a crowd forming and measures occupancy', () => {
    const gather: SceneSpec = { durationS: 60, rateHz: 5, people: [1, 2, 3, 4].map((id) => ({
      id, start: { x: 1 + id * 1.5, y: 0.8 }, script: [{ action: 'walk' as const, path: [[5 + 0.5 * Math.cos(id * 1.57), 3 + 0.5 * Math.sin(id * 1.57)] as [number, number]] }, { action: 'stand' as const, duration: 40 }],
    })) };
    const tracker = new MultiPersonTracker();
    const frames = observeTruth(simulatorTruth(gather, ROOM), { seed: 3, noise: { room: ROOM } }).map((f) => tracker.update(f));
    const { analyzer, events } = run(frames, null);
    const crowd = events.filter((e) => e.type === 'crowd_formation');
    expect(crowd).toHaveLength(1);
    expect(crowd[0].metadata.person_count).toBe(4);
    const m = analyzer.metrics().metrics.crowd_analysis;
    expect(m.crowd_formation_events).toBe(1);
    expect(m.max_occupancy).toBe(4);
    expect(m.average_occupancy).toBeGreaterThan(3.7);
  });

  it('runs as a node with the access service, and validates options', async () => {
    const result = await runNode(securityNode, { inputs: { poses: nightFrames }, config: options as Record<string, unknown> });
    expect(result.status).toBe('completed');
    expect((result.outputs.alerts as Alert[]).some((a) => a.alertType === 'intrusion')).toBe(true);
    expect(() => new SecurityAnalyzer({ authorized_zones: ['nowhere'] })).toThrow(/not a declared zone/);
    expect(() => new SecurityAnalyzer({ perimeter: [{ id: 'x', a: [1, 1], b: [1, 1] }] })).toThrow(/zero length/);
    expect(() => new AccessService().authorizeTrack({ trackId: 1.5 })).toThrow(/integer/);
  });
});
