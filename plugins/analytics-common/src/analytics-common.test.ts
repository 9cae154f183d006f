import { describe, expect, it } from 'vitest';
import type { Alert, AnalyticsEvent, PoseFrame } from '@wiflow/core';
import {
  AlertGate, alertFromEvent, computeOccupancy, computeSummary, createEvent, filterEvents, hipHeight, inTimeWindows, observeTruth,
  parseZones, pointInPolygon, polygonArea, segmentsIntersect, signedDistanceToLine, simulateScene, PoseObserver, NO_OBSERVATION_NOISE,
  bucketStart, isHeldPerson, withoutHeldPersons,
} from './index.js';

const T0 = Date.UTC(2026, 0, 5, 8, 0, 0); // a Monday 08:00 UTC

describe('geometry and zones', () => {
  const square: [number, number][] = [[0, 0], [2, 0], [2, 2], [0, 2]];
  it('tests points against polygons, including a concave one', () => {
    expect(pointInPolygon({ x: 1, y: 1 }, square)).toBe(true);
    expect(pointInPolygon({ x: 2, y: 1 }, square)).toBe(true);
    expect(pointInPolygon({ x: 2.01, y: 1 }, square)).toBe(false);
    const ell: [number, number][] = [[0, 0], [3, 0], [3, 1], [1, 1], [1, 3], [0, 3]];
    expect(pointInPolygon({ x: 2, y: 2 }, ell)).toBe(false);
    expect(pointInPolygon({ x: 0.5, y: 2 }, ell)).toBe(true);
    expect(polygonArea(ell)).toBeCloseTo(5);
  });
  it('finds segment crossings and sides of a line', () => {
    expect(segmentsIntersect({ x: 0, y: -1 }, { x: 0, y: 1 }, { x: -1, y: 0 }, { x: 1, y: 0 })).toBe(true);
    expect(segmentsIntersect({ x: 2, y: -1 }, { x: 2, y: 1 }, { x: -1, y: 0 }, { x: 1, y: 0 })).toBe(false);
    expect(signedDistanceToLine({ x: 0, y: 1 }, { x: -1, y: 0 }, { x: 1, y: 0 })).toBeCloseTo(1);
    expect(signedDistanceToLine({ x: 0, y: -2 }, { x: -1, y: 0 }, { x: 1, y: 0 })).toBeCloseTo(-2);
  });
  it('rejects bad zones with clear errors', () => {
    expect(() => parseZones([{ id: 'a', polygon: [[0, 0], [1, 1]] }])).toThrow();
    expect(() => parseZones([{ id: 'a', polygon: [[0, 0], [1, 1], [2, 2]] }])).toThrow(/no area/);
    expect(() => parseZones([{ id: 'a', polygon: square }, { id: 'a', polygon: square }])).toThrow(/duplicate zone id/);
  });
  it('reads weekly windows in site time, overnight windows included', () => {
    const night = [{ days: [1], start: '22:00', end: '06:00' }];
    expect(inTimeWindows(Date.UTC(2026, 0, 5, 23, 0), night)).toBe(true); // Monday 23:00
    expect(inTimeWindows(Date.UTC(2026, 0, 6, 5, 0), night)).toBe(true); // Tuesday 05:00 (Monday's night)
    expect(inTimeWindows(Date.UTC(2026, 0, 6, 7, 0), night)).toBe(false);
    expect(inTimeWindows(Date.UTC(2026, 0, 6, 23, 0), night)).toBe(false); // Tuesday night not armed
    expect(inTimeWindows(Date.UTC(2026, 0, 5, 21, 30), night, 60)).toBe(true); // 22:30 at UTC+1
  });
  it('aligns buckets to UTC hours and Monday weeks', () => {
    expect(bucketStart(T0 + 59 * 60_000, 'hour')).toBe(T0);
    expect(bucketStart(Date.UTC(2026, 0, 8, 12), 'week')).toBe(Date.UTC(2026, 0, 5));
  });
});

describe('alert gate', () => {
  const event = createEvent({ type: 'intrusion', severity: 'high', timestamp: T0, environmentId: 'e', confidence: 0.9, source: 'test' });
  const alertAt = (t: number, severity: Alert['severity'] = 'high') => ({ ...alertFromEvent(event, { message: 'x', actionsRequired: [] }), timestamp: t, severity });
  it('suppresses repeats within the cool-down and lets escalations through', () => {
    const gate = new AlertGate({ cooldownSeconds: 60 });
    expect(gate.admit(alertAt(T0), 'zone-a')).toBe(true);
    expect(gate.admit(alertAt(T0 + 30_000), 'zone-a')).toBe(false);
    expect(gate.admit(alertAt(T0 + 30_000), 'zone-b')).toBe(true);
    expect(gate.admit(alertAt(T0 + 40_000, 'critical'), 'zone-a')).toBe(true);
    expect(gate.admit(alertAt(T0 + 61_000), 'zone-a')).toBe(false); // cool-down restarted by the escalation
    expect(gate.admit(alertAt(T0 + 101_000), 'zone-a')).toBe(true);
    expect(gate.suppressed).toBe(2);
    expect(() => new AlertGate({ cooldownSeconds: -1 })).toThrow(/non-negative/);
  });
});

function frame(t: number, persons: { track: number | null; conf?: number; speed?: number }[]): PoseFrame {
  return {
    timestamp: t, frameId: 0, environmentId: 'e', processingTimeMs: 5, metadata: {} as PoseFrame['metadata'],
    persons: persons.map((p, i) => ({ id: i, trackId: p.track, confidence: p.conf ?? 0.8, keypoints: [], boundingBox: { x: 0, y: 0, width: 1, height: 1 }, keypoints3d: [], position: { x: 0, y: 0 }, velocity: { x: p.speed ?? 0, y: 0 }, trackStatus: 'active' })),
  };
}

describe('summary, events and occupancy', () => {
  // 2 hours at 1 Hz: first hour one person (track 1) still then moving; second hour two people.
  const frames: PoseFrame[] = [];
  for (let s = 0; s < 7200; s++) {
    const persons = s < 3600 ? [{ track: 1, speed: s < 1800 ? 0 : 1 }] : [{ track: 1, speed: 1 }, { track: 2, speed: 0, conf: 0.6 }];
    frames.push(frame(T0 + s * 1000, persons));
  }
  it('computes occupancy time series, distribution and person-hours', () => {
    const occ = computeOccupancy({ frames, start: T0, end: T0 + 7_200_000, interval: '1hour' });
    expect(occ.summary.peak_occupancy).toBe(2);
    expect(occ.summary.total_person_hours).toBeCloseTo(3, 2);
    expect(occ.summary.average_occupancy).toBeCloseTo(1.5, 2);
    expect(occ.time_series.map((p) => p.occupancy)).toEqual([1, 2]);
    expect(occ.distribution['1_person']).toBeCloseTo(50, 1);
    expect(occ.distribution['2_persons']).toBeCloseTo(50, 1);
    const fine = computeOccupancy({ frames, start: T0, end: T0 + 7_200_000, interval: '15min' });
    expect(fine.time_series).toHaveLength(8);
    expect(() => computeOccupancy({ frames, start: T0, end: T0 })).toThrow(/after start/);
  });
  it('computes the summary with hourly breakdown and movement events', () => {
    const events: AnalyticsEvent[] = [createEvent({ type: 'fall_detection', severity: 'high', timestamp: T0 + 10, environmentId: 'e', confidence: 1, source: 't' })];
    const s = computeSummary({ frames, events, alerts: [], start: T0, end: T0 + 7_200_000, granularity: 'hour' });
    expect(s.detection_stats.unique_persons).toBe(2);
    expect(s.detection_stats.total_detections).toBe(3600 + 7200);
    expect(s.activity_stats.total_movement_events).toBe(1);
    expect(s.activity_stats.fall_detections).toBe(1);
    expect(s.activity_stats.average_activity_level).toBeCloseTo((1800 + 3600) / (3600 + 7200), 2);
    expect(s.system_stats.uptime_percentage).toBeCloseTo(100, 0);
    expect(s.hourly_breakdown.map((h) => h.unique_persons)).toEqual([1, 2]);
    expect(s.time_period.duration_hours).toBe(2);
  });
  it('filters events by category, severity and range', () => {
    const mk = (type: string, severity: AnalyticsEvent['severity'], t: number) => createEvent({ type, severity, timestamp: T0 + t, environmentId: 'e', confidence: 1, source: 't' });
    const evs = [mk('fall_detection', 'high', 1), mk('intrusion', 'high', 2), mk('zone_entry', 'low', 3)];
    expect(filterEvents(evs, { eventType: 'fall' }).map((e) => e.type)).toEqual(['fall_detection']);
    expect(filterEvents(evs, { eventType: 'alert' }).map((e) => e.type)).toEqual(['fall_detection', 'intrusion']);
    expect(filterEvents(evs, { eventType: 'activity' }).map((e) => e.type)).toEqual(['zone_entry']);
    expect(filterEvents(evs, { severities: ['low'] })).toHaveLength(1);
    expect(filterEvents(evs, { start: T0 + 2, end: T0 + 3 })).toHaveLength(1);
    expect(() => filterEvents(evs, { eventType: 'x' as 'fall' })).toThrow(/event_type/);
  });
});

describe('kinematic scenes and the observer', () => {
  it('drops the hips to the floor in a forward fall at free-fall-like speed', () => {
    const truth = simulateScene({ durationS: 8, rateHz: 50, people: [{ id: 1, start: { x: 2, y: 2 }, script: [{ action: 'stand', duration: 2 }, { action: 'fall', type: 'forward', lieDuration: 10, getUp: false }] }] });
    const obs = observeTruth(truth, { noise: NO_OBSERVATION_NOISE });
    const hips = obs.map((f) => hipHeight(f.persons[0])!);
    expect(hips[0]).toBeCloseTo(0.92, 2);
    expect(hips[hips.length - 1]).toBeLessThan(0.2);
    let peak = 0;
    for (let i = 1; i < hips.length; i++) peak = Math.max(peak, (hips[i - 1] - hips[i]) * 50);
    expect(peak).toBeGreaterThan(1.2);
    const starts = truth.flatMap((f) => f.events).filter((e) => e.type === 'fall_start');
    expect(starts).toHaveLength(1);
    expect(starts[0].time - truth[0].time).toBe(2000);
  });
  it('walks people along paths and adds seeded noise', () => {
    const truth = simulateScene({ durationS: 5, rateHz: 10, people: [{ id: 3, start: { x: 0, y: 0 }, script: [{ action: 'walk', path: [[5, 0]], speed: 1 }] }] });
    expect(truth[30].persons[0].position.x).toBeCloseTo(3, 1);
    expect(truth[30].persons[0].activity).toBe('walking');
    const a = new PoseObserver({ seed: 4 }).observe(truth[30]);
    const b = new PoseObserver({ seed: 4 }).observe(truth[30]);
    expect(a.persons).toEqual(b.persons);
    expect(() => new PoseObserver({ noise: { missRate: 2 } })).toThrow(/at most 1/);
  });
});

describe('held persons (tracker.track held evidence)', () => {
  const person = (trackId: number | null, trackStatus: 'tentative' | 'active') => ({ trackId, trackStatus, confidence: 0.9 });

  it('a tentative person with a track id is held; without an id, or shown, it is not', () => {
    expect(isHeldPerson(person(3, 'tentative'))).toBe(true);
    expect(isHeldPerson(person(null, 'tentative'))).toBe(false);
    expect(isHeldPerson(person(3, 'active'))).toBe(false);
  });

  it('withoutHeldPersons drops only held persons, and gives the same frame back when there are none', () => {
    const frame = { timestamp: T0, persons: [person(1, 'active'), person(null, 'tentative')] };
    expect(withoutHeldPersons(frame)).toBe(frame);
    const withHeld = { timestamp: T0, persons: [person(1, 'active'), person(2, 'tentative'), person(null, 'tentative')] };
    expect(withoutHeldPersons(withHeld).persons).toEqual([person(1, 'active'), person(null, 'tentative')]);
    expect(withHeld.persons).toHaveLength(3);
  });
});
