import type { Alert, AnalyticsEvent, PoseFrame } from '@wiflow/core';
import { AlertGate, FrameClock, alertFromEvent, countedPersons, createEvent, pointInPolygon, polygonArea, sortedFrames } from '@wiflow/analytics-common';
import { RetailErrors } from './errors.js';
import { parseRetailOptions, type RetailOptions, type RetailOptionsInput } from './options.js';

/** Rule id quoted in retail events' `source`. */
export const RETAIL_SOURCE = 'retail.zones/visits-v1';

/** Retail analytics record of the pose spec (GET /analytics/retail), field names as on the wire. */
export interface RetailMetricsRecord {
  period: { start: string | null; end: string | null };
  metrics: {
    traffic: { total_visitors: number; unique_visitors: number; peak_hour: string | null; peak_count: number; average_dwell_time_minutes: number };
    zones: { zone_id: string; zone_name: string; visitor_count: number; visits: number; avg_dwell_time_minutes: number; conversion_rate: number }[];
    conversion_funnel: Record<string, number>;
    heat_map: {
      high_traffic_areas: { zone: string; intensity: number }[];
      grid: { origin: { x: number; y: number }; cell_size_m: number; columns: number; rows: number; person_seconds: number[][] };
    };
  };
}

interface ZoneVisit { enteredAt: number; lastInside: number; confirmed: boolean }

interface VisitorState {
  trackId: number;
  environmentId: string;
  visitStart: number;
  lastSeen: number;
  /** Where the visitor was last seen (m): a new track appearing near it may continue the visit. */
  lastPosition: { x: number; y: number };
  visits: number;
  /** Whether any of the visitor's visits lasted min_visit_seconds (counted as a visitor). */
  counted: boolean;
  /** Total time in store over closed visits (s). */
  closedDwell: number;
  zones: Map<string, ZoneVisit>;
  funnelStage: number;
}

const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

/** Cells listed as high-traffic areas when no zone is declared. */
const HEAT_MAP_TOP_CELLS = 10;

/**
 * Retail analytics over tracked pose frames: store visits (a track's presence; unseen for
 * revisit_gap_seconds ends a visit), zone visits with dwell (shorter than min_dwell_seconds
 * is a pass-through; gaps under exit_grace_seconds are bridged), the ordered conversion
 * funnel, peak hour, a person-seconds heat map (high-traffic areas: zones by person-seconds
 * per m², or without zones the ten busiest cells), and capacity alerts.
 */
export class RetailAnalyzer {
  readonly options: RetailOptions;
  readonly #visitors = new Map<string, VisitorState>();
  /** Track keys that continue another track's visit → that visitor's key. */
  readonly #continuations = new Map<string, string>();
  readonly #hourly = new Map<string, Set<string>>();
  readonly #zoneDwell = new Map<string, { visits: number; seconds: number; tracks: Set<string> }>();
  readonly #zoneSeconds = new Map<string, number>();
  readonly #cells = new Map<string, number>();
  readonly #funnelCounts: number[];
  readonly #gate: AlertGate;
  readonly #areas: Map<string, number>;
  #visitDurations: number[] = [];
  readonly #clock = new FrameClock();

  constructor(options: RetailOptionsInput = {}) {
    this.options = parseRetailOptions(options);
    this.#funnelCounts = this.options.funnel.map(() => 0);
    this.#gate = new AlertGate({ cooldownSeconds: this.options.alert_cooldown_seconds });
    this.#areas = new Map(this.options.zones.map((z) => [z.id, polygonArea(z.polygon)]));
    for (const z of this.options.zones) this.#zoneDwell.set(z.id, { visits: 0, seconds: 0, tracks: new Set() });
  }

  /** Analyse one frame; returns the events and alerts it produced. */
  update(frame: PoseFrame): { events: AnalyticsEvent[]; alerts: Alert[] } {
    if (!frame || typeof frame !== 'object' || !Number.isFinite(frame.timestamp) || !Array.isArray(frame.persons)) throw RetailErrors.frameInvalid('needs a finite timestamp and a persons array');
    const o = this.options;
    const t = frame.timestamp;
    const env = frame.environmentId;
    const out = { events: [] as AnalyticsEvent[], alerts: [] as Alert[] };
    const dt = this.#clock.step(frame, o.max_frame_gap_seconds * 1000) / 1000;
    const hour = this.#hourKey(t);
    const inZoneCount = new Map<string, number>();
    const seen = new Set<string>();
    // Visitors whose own tracks are in this frame: a new track never continues one of them.
    for (const person of countedPersons(frame)) {
      if (person.trackId === null || person.trackId === undefined) continue;
      const trackKey = `${env}#${person.trackId}`;
      seen.add(this.#continuations.get(trackKey) ?? trackKey);
    }

    for (const person of countedPersons(frame)) {
      if (person.trackId === null || person.trackId === undefined) continue;
      const trackKey = `${env}#${person.trackId}`;
      const key = this.#continuations.get(trackKey) ?? this.#continuationOf(trackKey, env, t, person.position, seen) ?? trackKey;
      seen.add(key);
      let v = this.#visitors.get(key);
      if (v && t - v.lastSeen > o.revisit_gap_seconds * 1000) {
        this.#closeVisit(v);
        v.visitStart = t;
        v.visits++;
        v.funnelStage = 0;
      }
      if (!v) this.#visitors.set(key, (v = { trackId: person.trackId, environmentId: env, visitStart: t, lastSeen: t, lastPosition: { ...person.position }, visits: 1, counted: false, closedDwell: 0, zones: new Map(), funnelStage: 0 }));
      v.lastSeen = t;
      if (t - v.visitStart >= o.min_visit_seconds * 1000) v.counted = true;
      v.lastPosition = { ...person.position };
      let hourSet = this.#hourly.get(hour);
      if (!hourSet) this.#hourly.set(hour, (hourSet = new Set()));
      hourSet.add(`${key}/${v.visits}`);

      const { x, y } = person.position;
      if (dt > 0) {
        const cell = `${Math.floor(x / o.heat_map_cell_m)},${Math.floor(y / o.heat_map_cell_m)}`;
        this.#cells.set(cell, (this.#cells.get(cell) ?? 0) + dt);
      }
      for (const zone of o.zones) {
        const inside = pointInPolygon(person.position, zone.polygon);
        if (inside) {
          inZoneCount.set(zone.id, (inZoneCount.get(zone.id) ?? 0) + 1);
          if (dt > 0) this.#zoneSeconds.set(zone.id, (this.#zoneSeconds.get(zone.id) ?? 0) + dt);
        }
        let zv = v.zones.get(zone.id);
        if (inside) {
          if (!zv) v.zones.set(zone.id, (zv = { enteredAt: t, lastInside: t, confirmed: false }));
          zv.lastInside = t;
          if (!zv.confirmed && t - zv.enteredAt >= o.min_dwell_seconds * 1000) {
            zv.confirmed = true;
            this.#zoneEntered(v, zone.id, zv, person, frame, out);
          }
        } else if (zv && t - zv.lastInside > o.exit_grace_seconds * 1000) {
          this.#closeZone(v, zone.id, zv, frame, out);
        }
      }
    }
    // Visitors not in this frame: close zone visits whose grace has run out.
    for (const [key, v] of this.#visitors) {
      if (v.environmentId !== env || seen.has(key)) continue;
      for (const [zoneId, zv] of v.zones) if (t - zv.lastInside > o.exit_grace_seconds * 1000) this.#closeZone(v, zoneId, zv, frame, out);
    }
    for (const [zoneId, capacity] of Object.entries(o.zone_capacity)) {
      const n = inZoneCount.get(zoneId) ?? 0;
      if (n <= capacity) continue;
      const zone = o.zones.find((z) => z.id === zoneId)!;
      const event = createEvent({ type: 'zone_over_capacity', severity: 'medium', timestamp: t, environmentId: env, confidence: 1, source: RETAIL_SOURCE, metadata: { zone_id: zoneId, zone_name: zone.name ?? zoneId, person_count: n, capacity } });
      out.events.push(event);
      const alert = alertFromEvent(event, { message: `${n} people in ${zone.name ?? zoneId} (capacity ${capacity})`, actionsRequired: ['send_staff'], data: { zone_id: zoneId, person_count: n, capacity } });
      if (this.#gate.admit(alert, zoneId)) out.alerts.push(alert);
    }
    return out;
  }

  /**
   * The visitor a new track continues, if any: one of this environment not seen in this frame,
   * last seen within visit_continuation_seconds and visit_continuation_m, nearest first. Identity
   * flicker upstream (a person lost for a moment and found under a new id) then stays one visit,
   * as a shop counts people through the door, not ids.
   */
  #continuationOf(trackKey: string, env: string, t: number, position: { x: number; y: number }, seen: ReadonlySet<string>): string | null {
    const o = this.options;
    if (this.#visitors.has(trackKey) || o.visit_continuation_seconds <= 0) return null;
    let best: string | null = null;
    let bestDistance = Infinity;
    for (const [key, v] of this.#visitors) {
      if (v.environmentId !== env || seen.has(key) || v.lastSeen >= t || t - v.lastSeen > o.visit_continuation_seconds * 1000) continue;
      const d = Math.hypot(v.lastPosition.x - position.x, v.lastPosition.y - position.y);
      if (d <= o.visit_continuation_m && d < bestDistance) {
        best = key;
        bestDistance = d;
      }
    }
    if (best !== null) this.#continuations.set(trackKey, best);
    return best;
  }

  #hourKey(t: number): string {
    const local = new Date(t + this.options.utc_offset_minutes * 60_000);
    return local.toISOString().slice(0, 13);
  }

  #zoneEntered(v: VisitorState, zoneId: string, zv: ZoneVisit, person: PoseFrame['persons'][number], frame: PoseFrame, out: { events: AnalyticsEvent[] }): void {
    const stats = this.#zoneDwell.get(zoneId)!;
    stats.tracks.add(`${v.environmentId}#${v.trackId}`);
    const funnel = this.options.funnel;
    let stage: number | null = null;
    if (v.funnelStage < funnel.length && funnel[v.funnelStage] === zoneId) {
      stage = v.funnelStage;
      this.#funnelCounts[v.funnelStage]++;
      v.funnelStage++;
    }
    out.events.push(createEvent({
      type: 'zone_entry', severity: 'low', timestamp: zv.enteredAt, environmentId: frame.environmentId, personId: person.id, trackId: v.trackId, confidence: person.confidence,
      location: { x: round(person.position.x), y: round(person.position.y) }, source: RETAIL_SOURCE,
      metadata: { zone_id: zoneId, funnel_stage: stage === null ? null : funnel[stage], funnel_index: stage },
    }));
  }

  #closeZone(v: VisitorState, zoneId: string, zv: ZoneVisit, frame: PoseFrame, out: { events: AnalyticsEvent[] }): void {
    v.zones.delete(zoneId);
    const dwell = (zv.lastInside - zv.enteredAt) / 1000;
    if (!zv.confirmed) return;
    const stats = this.#zoneDwell.get(zoneId)!;
    stats.visits++;
    stats.seconds += dwell;
    out.events.push(createEvent({
      type: 'zone_exit', severity: 'low', timestamp: zv.lastInside, environmentId: frame.environmentId, trackId: v.trackId, confidence: 1, source: RETAIL_SOURCE,
      metadata: { zone_id: zoneId, dwell_seconds: round(dwell, 1) },
    }));
  }

  #closeVisit(v: VisitorState): void {
    this.#visitDurations.push((v.lastSeen - v.visitStart) / 1000);
  }

  /** The retail metrics record so far (open visits counted up to the latest frame). */
  metrics(): RetailMetricsRecord {
    const o = this.options;
    const now = this.#clock.last ?? 0;
    // Visits shorter than min_visit_seconds are not visits (a person shown for a moment).
    const visitDurations = [...this.#visitDurations, ...[...this.#visitors.values()].map((v) => (v.lastSeen - v.visitStart) / 1000)].filter((d) => d >= o.min_visit_seconds);
    const totalVisits = visitDurations.length;
    let peakHour: string | null = null;
    let peakCount = 0;
    for (const [hour, set] of [...this.#hourly.entries()].sort()) {
      if (set.size > peakCount) {
        peakCount = set.size;
        peakHour = hour;
      }
    }
    // Open zone visits count with their dwell so far.
    const zoneFigures = o.zones.map((zone) => {
      const s = this.#zoneDwell.get(zone.id)!;
      let visits = s.visits;
      let seconds = s.seconds;
      for (const v of this.#visitors.values()) {
        const zv = v.zones.get(zone.id);
        if (zv?.confirmed) {
          visits++;
          seconds += (Math.min(now, zv.lastInside) - zv.enteredAt) / 1000;
        }
      }
      return { zone, tracks: s.tracks.size, visits, seconds };
    });
    const unique = [...this.#visitors.values()].filter((v) => v.counted).length;
    const funnel: Record<string, number> = {};
    o.funnel.forEach((id, i) => (funnel[o.zones.find((z) => z.id === id)?.name ?? id] = this.#funnelCounts[i]));
    const conversion = (zoneId: string, tracks: number): number => {
      const i = o.funnel.indexOf(zoneId);
      if (i > 0) return this.#funnelCounts[i - 1] ? round(this.#funnelCounts[i] / this.#funnelCounts[i - 1], 3) : 0;
      if (i === 0) return unique ? round(this.#funnelCounts[0] / unique, 3) : 0;
      return unique ? round(tracks / unique, 3) : 0;
    };
    // Heat map: the grid of person-seconds, and zones ranked by person-seconds per m².
    const cells = [...this.#cells.entries()].map(([k, v]) => ({ cx: Number(k.split(',')[0]), cy: Number(k.split(',')[1]), v }));
    const minX = cells.length ? Math.min(...cells.map((c) => c.cx)) : 0;
    const minY = cells.length ? Math.min(...cells.map((c) => c.cy)) : 0;
    const maxX = cells.length ? Math.max(...cells.map((c) => c.cx)) : -1;
    const maxY = cells.length ? Math.max(...cells.map((c) => c.cy)) : -1;
    const grid = Array.from({ length: maxY - minY + 1 }, () => new Array<number>(maxX - minX + 1).fill(0));
    for (const c of cells) grid[c.cy - minY][c.cx - minX] = round(c.v, 1);
    const density = o.zones.length
      ? o.zones.map((z) => ({ zone: z.id, d: (this.#zoneSeconds.get(z.id) ?? 0) / Math.max(1e-9, this.#areas.get(z.id) ?? 1) }))
      : // Without zones, the busiest cells, named by their corner in metres (cell_<x>_<y>).
        cells.map((c) => ({ zone: `cell_${round(c.cx * o.heat_map_cell_m, 3)}_${round(c.cy * o.heat_map_cell_m, 3)}`, d: c.v }));
    const maxD = Math.max(0, ...density.map((d) => d.d));
    return {
      period: this.#clock.period(),
      metrics: {
        traffic: {
          total_visitors: totalVisits,
          unique_visitors: unique,
          peak_hour: peakHour === null ? null : `${peakHour.slice(11, 13)}:00`,
          peak_count: peakCount,
          average_dwell_time_minutes: visitDurations.length ? round(visitDurations.reduce((a, b) => a + b, 0) / visitDurations.length / 60) : 0,
        },
        zones: zoneFigures.map((f) => ({
          zone_id: f.zone.id, zone_name: f.zone.name ?? f.zone.id, visitor_count: f.tracks, visits: f.visits,
          avg_dwell_time_minutes: f.visits ? round(f.seconds / f.visits / 60) : 0, conversion_rate: conversion(f.zone.id, f.tracks),
        })),
        conversion_funnel: funnel,
        heat_map: {
          high_traffic_areas: density.filter((d) => d.d > 0).sort((a, b) => b.d - a.d).slice(0, o.zones.length || HEAT_MAP_TOP_CELLS).map((d) => ({ zone: d.zone, intensity: maxD ? round(d.d / maxD, 3) : 0 })),
          grid: { origin: { x: round(minX * o.heat_map_cell_m, 3), y: round(minY * o.heat_map_cell_m, 3) }, cell_size_m: o.heat_map_cell_m, columns: maxX - minX + 1, rows: maxY - minY + 1, person_seconds: grid },
        },
      },
    };
  }
}

/** Retail analytics over stored, tracked pose frames (what the pose API calls for a period). */
export function computeRetailMetrics(frames: readonly PoseFrame[], options: RetailOptionsInput = {}): RetailMetricsRecord {
  const analyzer = new RetailAnalyzer(options);
  for (const f of sortedFrames(frames)) analyzer.update(f);
  return analyzer.metrics();
}
