import type { Alert, AnalyticsEvent, Person, PoseFrame, Severity } from '@wiflow/core';
import { AlertGate, FrameClock, alertFromEvent, createEvent, inTimeWindows, isoTime, pointInPolygon, projectionFraction, signedDistanceToLine, sortedFrames } from '@wiflow/analytics-common';
import type { AccessService } from './access.js';
import { SecurityErrors } from './errors.js';
import { parseSecurityOptions, type SecurityOptions, type SecurityOptionsInput } from './options.js';

/** Rule ids quoted in security events' `source`. */
export const INTRUSION_RULE = 'security.intrusion/armed-zone-v1';
export const PERIMETER_RULE = 'security.perimeter/line-crossing-v1';
export const CROWD_RULE = 'security.crowd/density-v1';

/** Security analytics record of the pose spec (GET /analytics/security), field names as on the wire. */
export interface SecurityMetricsRecord {
  period: { start: string | null; end: string | null };
  metrics: {
    intrusion_events: { count: number; events: { timestamp: string; zone: string; person_count: number; threat_level: Severity; response_time_seconds: number; track_id: number }[] };
    perimeter_monitoring: { total_detections: number; authorized_entries: number; unauthorized_attempts: number; false_positives: number; exits: number };
    crowd_analysis: { max_occupancy: number; average_occupancy: number; crowd_formation_events: number };
  };
}

interface TrackSecurity {
  trackId: number;
  lineSide: Map<string, 'inside' | 'outside'>;
  zoneSince: Map<string, { since: number; lastInside: number; alerted: boolean }>;
  authZoneSince: number | null;
  authorizedUntil: number;
}

const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

/**
 * Security analytics over tracked pose frames: intrusion into armed zones (unless the
 * person is authorised), perimeter line crossings with direction and authorisation, occupancy,
 * and crowd formation. Authorisation comes from an authorised zone (standing at a badge
 * reader) or from an AccessService grant (an API call).
 */
export class SecurityAnalyzer {
  readonly options: SecurityOptions;
  readonly #access: AccessService | null;
  readonly #tracks = new Map<string, TrackSecurity>();
  readonly #gate: AlertGate;
  readonly #intrusions: SecurityMetricsRecord['metrics']['intrusion_events']['events'] = [];
  readonly #perimeter = { total_detections: 0, authorized_entries: 0, unauthorized_attempts: 0, false_positives: 0, exits: 0 };
  readonly #crowd = new Map<string, { since: number | null; active: boolean; lastAbove: number }>();
  #crowdEvents = 0;
  #maxOccupancy = 0;
  #personMs = 0;
  #observedMs = 0;
  readonly #clock = new FrameClock();

  constructor(options: SecurityOptionsInput = {}, access: AccessService | null = null) {
    this.options = parseSecurityOptions(options);
    this.#access = access;
    this.#gate = new AlertGate({ cooldownSeconds: this.options.alert_cooldown_seconds });
  }

  /** Analyse one frame; returns its events and alerts. */
  update(frame: PoseFrame): { events: AnalyticsEvent[]; alerts: Alert[] } {
    if (!frame || typeof frame !== 'object' || !Number.isFinite(frame.timestamp) || !Array.isArray(frame.persons)) throw SecurityErrors.frameInvalid('needs a finite timestamp and a persons array');
    const o = this.options;
    const t = frame.timestamp;
    const env = frame.environmentId;
    const out = { events: [] as AnalyticsEvent[], alerts: [] as Alert[] };
    const dt = this.#clock.step(frame, o.max_frame_gap_seconds * 1000);

    const tracked = frame.persons.filter((p) => p.trackId !== null && p.trackId !== undefined);
    const confirmed = tracked.filter((p) => p.trackStatus !== 'tentative' && p.trackStatus !== 'ended');
    this.#maxOccupancy = Math.max(this.#maxOccupancy, confirmed.length);
    this.#observedMs += dt;
    this.#personMs += confirmed.length * dt;

    for (const person of tracked) {
      const key = `${env}#${person.trackId}`;
      let tr = this.#tracks.get(key);
      if (!tr) this.#tracks.set(key, (tr = { trackId: person.trackId as number, lineSide: new Map(), zoneSince: new Map(), authZoneSince: null, authorizedUntil: -Infinity }));
      const tentative = person.trackStatus === 'tentative';
      this.#authorizeByZone(tr, person, t);
      this.#perimeterCrossings(tr, person, frame, tentative, out);
      if (!tentative) this.#intrusion(tr, person, frame, confirmed, out);
    }
    this.#crowdCheck(confirmed, frame, out);
    return out;
  }

  #authorized(tr: TrackSecurity, env: string, t: number): boolean {
    return t <= tr.authorizedUntil || (this.#access?.isTrackAuthorized(env, tr.trackId, t) ?? false);
  }

  #authorizeByZone(tr: TrackSecurity, person: Person, t: number): void {
    const o = this.options;
    const inAuthZone = o.authorized_zones.some((id) => pointInPolygon(person.position, o.zones.find((z) => z.id === id)!.polygon));
    if (!inAuthZone) {
      tr.authZoneSince = null;
      return;
    }
    tr.authZoneSince ??= t;
    if (t - tr.authZoneSince >= o.authorize_seconds * 1000) tr.authorizedUntil = Math.max(tr.authorizedUntil, t + o.authorization_ttl_seconds * 1000);
  }

  #perimeterCrossings(tr: TrackSecurity, person: Person, frame: PoseFrame, tentative: boolean, out: { events: AnalyticsEvent[]; alerts: Alert[] }): void {
    const o = this.options;
    const t = frame.timestamp;
    for (const line of o.perimeter) {
      const a = { x: line.a[0], y: line.a[1] };
      const b = { x: line.b[0], y: line.b[1] };
      const sd = signedDistanceToLine(person.position, a, b);
      const along = projectionFraction(person.position, a, b);
      const insideSign = line.inside === 'left' ? 1 : -1;
      let side: 'inside' | 'outside' | null = null;
      if (sd * insideSign > o.line_hysteresis_m) side = 'inside';
      else if (sd * insideSign < -o.line_hysteresis_m) side = 'outside';
      const before = tr.lineSide.get(line.id);
      if (!side) continue;
      tr.lineSide.set(line.id, side);
      if (!before || before === side || along < -0.05 || along > 1.05) continue;
      // A crossing.
      if (tentative) {
        this.#perimeter.false_positives++;
        continue;
      }
      this.#perimeter.total_detections++;
      const location = { x: round(person.position.x), y: round(person.position.y) };
      const base = { timestamp: t, environmentId: frame.environmentId, personId: person.id, trackId: tr.trackId, confidence: round(person.confidence, 3), location, source: PERIMETER_RULE };
      if (side === 'outside') {
        this.#perimeter.exits++;
        out.events.push(createEvent({ ...base, type: 'perimeter_crossing', severity: 'low', metadata: { line_id: line.id, line_name: line.name ?? line.id, direction: 'out' } }));
        continue;
      }
      let authorizedBy: string | null = null;
      if (this.#authorized(tr, frame.environmentId, t)) authorizedBy = t <= tr.authorizedUntil ? 'authorized_zone' : 'access_grant';
      else if (this.#access?.consumeEntry(frame.environmentId, line.id, t)) {
        authorizedBy = 'entry_grant';
        tr.authorizedUntil = t + o.authorization_ttl_seconds * 1000;
      }
      const metadata = { line_id: line.id, line_name: line.name ?? line.id, direction: 'in', authorized: authorizedBy !== null, authorized_by: authorizedBy };
      if (authorizedBy) {
        this.#perimeter.authorized_entries++;
        out.events.push(createEvent({ ...base, type: 'perimeter_crossing', severity: 'low', metadata }));
      } else {
        this.#perimeter.unauthorized_attempts++;
        const event = createEvent({ ...base, type: 'perimeter_crossing', severity: 'high', metadata, actionsTaken: ['alert_raised'] });
        out.events.push(event);
        const alert = alertFromEvent(event, { alertType: 'unauthorized_entry', message: `Unauthorised entry over ${line.name ?? line.id} (track ${tr.trackId})`, actionsRequired: ['verify_identity', 'dispatch_security'], data: { line_id: line.id } });
        if (this.#gate.admit(alert, `${line.id}#${tr.trackId}`)) out.alerts.push(alert);
      }
    }
  }

  #intrusion(tr: TrackSecurity, person: Person, frame: PoseFrame, confirmed: Person[], out: { events: AnalyticsEvent[]; alerts: Alert[] }): void {
    const o = this.options;
    const t = frame.timestamp;
    for (const zone of o.zones) {
      if (o.authorized_zones.includes(zone.id)) continue;
      const armed = zone.armed === 'always' || (zone.armed !== 'never' && inTimeWindows(t, zone.armed, o.utc_offset_minutes));
      const inside = pointInPolygon(person.position, zone.polygon);
      let state = tr.zoneSince.get(zone.id);
      if (!inside) {
        if (state && t - state.lastInside > 3000) tr.zoneSince.delete(zone.id);
        continue;
      }
      if (!state) tr.zoneSince.set(zone.id, (state = { since: t, lastInside: t, alerted: false }));
      state.lastInside = t;
      if (!armed || state.alerted || this.#authorized(tr, frame.environmentId, t)) continue;
      if (t - state.since < o.min_presence_seconds * 1000) continue;
      state.alerted = true;
      const count = confirmed.filter((p) => pointInPolygon(p.position, zone.polygon)).length;
      const threat: Severity = count >= 3 ? 'critical' : 'high';
      const response = round((t - state.since) / 1000);
      this.#intrusions.push({ timestamp: isoTime(state.since), zone: zone.id, person_count: count, threat_level: threat, response_time_seconds: response, track_id: tr.trackId });
      const event = createEvent({
        type: 'intrusion', severity: threat, timestamp: state.since, environmentId: frame.environmentId, personId: person.id, trackId: tr.trackId, confidence: round(person.confidence, 3),
        location: { x: round(person.position.x), y: round(person.position.y) }, source: INTRUSION_RULE,
        metadata: { zone_id: zone.id, zone_name: zone.name ?? zone.id, person_count: count, threat_level: threat, response_time_seconds: response, detected_at: isoTime(t) }, actionsTaken: ['alert_raised'],
      });
      out.events.push(event);
      const alert = { ...alertFromEvent(event, { message: `Intrusion in ${zone.name ?? zone.id}: ${count} ${count === 1 ? 'person' : 'people'} (track ${tr.trackId})`, actionsRequired: ['dispatch_security', 'review_live_view'], data: { zone_id: zone.id, person_count: count } }), timestamp: t };
      if (this.#gate.admit(alert, zone.id)) out.alerts.push(alert);
    }
  }

  #crowdCheck(persons: Person[], frame: PoseFrame, out: { events: AnalyticsEvent[]; alerts: Alert[] }): void {
    const o = this.options;
    const t = frame.timestamp;
    const r = o.crowd_radius_m;
    let best = 0;
    let centre: { x: number; y: number } | null = null;
    for (const p of persons) {
      let n = 0;
      for (const q of persons) if (Math.hypot(p.position.x - q.position.x, p.position.y - q.position.y) <= r) n++;
      if (n > best) {
        best = n;
        centre = p.position;
      }
    }
    const density = best / (Math.PI * r * r);
    const above = best >= o.crowd_min_persons && density >= o.crowd_density;
    let state = this.#crowd.get(frame.environmentId);
    if (!state) this.#crowd.set(frame.environmentId, (state = { since: null, active: false, lastAbove: -Infinity }));
    if (above) {
      state.since ??= t;
      state.lastAbove = t;
      if (!state.active && t - state.since >= o.crowd_min_seconds * 1000) {
        state.active = true;
        this.#crowdEvents++;
        const event = createEvent({
          type: 'crowd_formation', severity: 'medium', timestamp: state.since, environmentId: frame.environmentId, confidence: 1, source: CROWD_RULE,
          location: centre ? { x: round(centre.x), y: round(centre.y) } : null,
          metadata: { person_count: best, density_per_m2: round(density, 3), radius_m: r, duration_seconds: round((t - state.since) / 1000) },
        });
        out.events.push(event);
        const alert = { ...alertFromEvent(event, { message: `Crowd of ${best} people forming (${round(density, 2)} per m²)`, actionsRequired: ['monitor_crowd'] }), timestamp: t };
        if (this.#gate.admit(alert, 'crowd')) out.alerts.push(alert);
      }
    } else if (t - state.lastAbove > 5000) {
      state.since = null;
      state.active = false;
    }
  }

  /** The security metrics record so far. */
  metrics(): SecurityMetricsRecord {
    return {
      period: this.#clock.period(),
      metrics: {
        intrusion_events: { count: this.#intrusions.length, events: this.#intrusions.map((e) => ({ ...e })) },
        perimeter_monitoring: { ...this.#perimeter },
        crowd_analysis: { max_occupancy: this.#maxOccupancy, average_occupancy: this.#observedMs ? round(this.#personMs / this.#observedMs, 3) : 0, crowd_formation_events: this.#crowdEvents },
      },
    };
  }
}

/** Security analytics over stored, tracked pose frames (what the pose API calls for a period). */
export function computeSecurityMetrics(frames: readonly PoseFrame[], options: SecurityOptionsInput = {}, access: AccessService | null = null): SecurityMetricsRecord {
  const analyzer = new SecurityAnalyzer(options, access);
  for (const f of sortedFrames(frames)) analyzer.update(f);
  return analyzer.metrics();
}
