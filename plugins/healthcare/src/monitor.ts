import type { Alert, AnalyticsEvent, Person, PoseFrame, Severity } from '@wiflow/core';
import { AlertGate, alertFromEvent, createEvent, distance, hipHeight, isoTime, pointInPolygon } from '@wiflow/analytics-common';
import { classifyActivity, type CountedActivity } from './activity.js';
import { HealthcareErrors } from './errors.js';
import { parseHealthcareOptions, type HealthcareOptions, type HealthcareOptionsInput } from './options.js';

/** Rule ids, quoted in every event's `source`. */
export const FALL_RULE = 'healthcare.fall/hip-drop-v1';
export const INACTIVITY_RULE = 'healthcare.inactivity/still-v1';

/** What one frame produced. */
export interface HealthcareOutput {
  /** New events, and updates of earlier ones (same eventId: a fall's recovery or escalation). */
  events: AnalyticsEvent[];
  alerts: Alert[];
}

/** A fall as the healthcare metrics report it. */
export interface FallRecord {
  eventId: string;
  trackId: number;
  personId: number;
  /** When the hips started to drop (ms). */
  fallStart: number;
  /** When the fall was confirmed and the alert raised (ms). */
  detectedAt: number;
  severity: Severity;
  location: { x: number; y: number };
  peakSpeed: number;
  /** Downward hip speed just before landing (m/s). */
  landingSpeed: number;
  hipDrop: number;
  recovered: boolean;
  /** Time on the floor (s): until recovery, or until the latest frame. */
  durationSeconds: number;
}

/** Sleep figures of one track. */
export interface SleepFigures {
  totalSleepHours: number;
  timeInBedHours: number;
  efficiency: number;
  restlessnessEvents: number;
  periods: number;
}

/** Per-track figures. */
export interface TrackHealthFigures {
  trackId: number;
  observedSeconds: number;
  activitySeconds: Record<CountedActivity, number>;
  gaitSpeed: number | null;
  sitToStand: number;
  mobilityScore: number;
  sleep: SleepFigures;
}

type FallState =
  | { kind: 'watch' }
  | { kind: 'candidate'; since: number; fallStart: number; peakSpeed: number; drop: number }
  /** On the floor after a controlled lowering (no fall): wait until up again. */
  | { kind: 'settled' }
  | { kind: 'down'; event: AnalyticsEvent; record: FallRecord; escalated: boolean };

interface SleepBout {
  start: number;
  lastLying: number;
  lyingSeconds: number;
  restlessSeconds: number;
  restlessEvents: number;
}

interface TrackHealth {
  trackId: number;
  personId: number;
  lastTime: number;
  lastSeen: number;
  hips: { t: number; h: number }[];
  fall: FallState;
  slowPosition: { x: number; y: number } | null;
  still: { anchor: { x: number; y: number }; hip: number; since: number; alerted: boolean } | null;
  observed: number;
  activity: Record<CountedActivity, number>;
  walkingDistance: number;
  walkingSeconds: number;
  stable: CountedActivity | null;
  pending: { activity: CountedActivity; since: number } | null;
  sitToStand: number;
  bout: SleepBout | null;
  bouts: SleepBout[];
  block: { start: number; sum: number[][]; n: number } | null;
  lastBlock: number[][] | null;
  lastRestless: number;
}

const ACTIVITIES: CountedActivity[] = ['walking', 'sitting', 'lying', 'standing'];
const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

/**
 * Healthcare analytics over tracked pose frames: fall detection (rule hip-drop-v1),
 * inactivity (still-v1), activity minutes (posture-v1), a mobility score and sleep quality
 * from lying periods. Time is the frames' own timestamps, so live runs, replays and
 * simulated days behave alike. Persons without a confirmed track are ignored.
 */
export class HealthcareMonitor {
  readonly options: HealthcareOptions;
  readonly #tracks = new Map<string, TrackHealth>();
  readonly #falls: FallRecord[] = [];
  readonly #gate: AlertGate;
  #firstTime: number | null = null;
  #lastTime: number | null = null;
  #ignored = 0;

  constructor(options: HealthcareOptionsInput = {}) {
    this.options = parseHealthcareOptions(options);
    this.#gate = new AlertGate({ cooldownSeconds: this.options.alert_cooldown_seconds });
  }

  /** Analyse one frame. */
  update(frame: PoseFrame): HealthcareOutput {
    if (!frame || typeof frame !== 'object' || !Number.isFinite(frame.timestamp) || !Array.isArray(frame.persons)) throw HealthcareErrors.frameInvalid('needs a finite timestamp and a persons array');
    const out: HealthcareOutput = { events: [], alerts: [] };
    const t = frame.timestamp;
    this.#firstTime ??= t;
    this.#lastTime = t;
    for (const person of frame.persons) {
      if (person.trackId === null || person.trackId === undefined || person.trackStatus === 'tentative') {
        this.#ignored++;
        continue;
      }
      const key = `${frame.environmentId}#${person.trackId}`;
      let track = this.#tracks.get(key);
      if (!track) this.#tracks.set(key, (track = this.#newTrack(person, t)));
      if (t < track.lastTime) continue; // out-of-order duplicate: already analysed
      this.#analyse(track, person, frame, out);
    }
    // Forget tracks unseen for an hour (a new visit gets a new track anyway).
    if (this.#tracks.size > 64) for (const [k, tr] of this.#tracks) if (t - tr.lastSeen > 3_600_000 && tr.fall.kind !== 'down') this.#tracks.delete(k);
    return out;
  }

  #newTrack(person: Person, t: number): TrackHealth {
    return {
      trackId: person.trackId as number, personId: person.id, lastTime: t, lastSeen: t, hips: [], fall: { kind: 'watch' }, slowPosition: null, still: null,
      observed: 0, activity: { walking: 0, sitting: 0, lying: 0, standing: 0 }, walkingDistance: 0, walkingSeconds: 0, stable: null, pending: null,
      sitToStand: 0, bout: null, bouts: [], block: null, lastBlock: null, lastRestless: -Infinity,
    };
  }

  #analyse(track: TrackHealth, person: Person, frame: PoseFrame, out: HealthcareOutput): void {
    const o = this.options;
    const t = frame.timestamp;
    const gap = (t - track.lastTime) / 1000;
    const dt = gap > 0 && gap <= o.max_frame_gap_seconds ? gap : 0;
    track.lastTime = t;
    track.lastSeen = t;
    track.personId = person.id;
    const speed = person.velocity ? Math.hypot(person.velocity.x, person.velocity.y) : 0;
    const hip = hipHeight(person);

    // Activity minutes, gait speed, transitions (on a 2 s debounced posture).
    const activity = classifyActivity(person, speed, o.walking_speed);
    if (activity && dt > 0) {
      track.observed += dt;
      track.activity[activity] += dt;
      if (activity === 'walking') {
        track.walkingSeconds += dt;
        track.walkingDistance += speed * dt;
      }
    }
    if (activity) {
      if (activity === track.stable) track.pending = null;
      else if (!track.pending || track.pending.activity !== activity) track.pending = { activity, since: t };
      else if (t - track.pending.since >= 2000) {
        if (track.stable === 'sitting' && (activity === 'standing' || activity === 'walking')) track.sitToStand++;
        track.stable = activity;
        track.pending = null;
      }
      if (track.stable === null) track.stable = activity;
    }

    if (hip !== null && o.fall_detection_enabled) this.#detectFall(track, person, frame, hip, out);
    if (o.inactivity_enabled) this.#detectInactivity(track, person, frame, hip, dt, out);
    this.#sleep(track, person, t, dt);
  }

  #detectFall(track: TrackHealth, person: Person, frame: PoseFrame, hip: number, out: HealthcareOutput): void {
    const o = this.options;
    const t = frame.timestamp;
    track.hips.push({ t, h: hip });
    const keepMs = (o.fall_window_seconds + o.notification_delay_seconds + 2) * 1000;
    while (track.hips.length && t - track.hips[0].t > keepMs) track.hips.shift();
    const state = track.fall;
    if (state.kind === 'settled') {
      if (hip > o.fall_floor_height + 0.15) track.fall = { kind: 'watch' };
      return;
    }
    if (state.kind === 'watch') {
      if (hip > o.fall_floor_height) return;
      const from = t - o.fall_window_seconds * 1000;
      let max = -Infinity;
      let maxIndex = -1;
      track.hips.forEach((s, i) => {
        if (s.t >= from && s.h > max) {
          max = s.h;
          maxIndex = i;
        }
      });
      const drop = max - hip;
      if (maxIndex < 0 || drop < o.fall_drop_m) return;
      // Peak downward speed over spans of at least 0.2 s (steadier than frame-to-frame).
      let peak = 0;
      let j = maxIndex;
      for (let i = maxIndex; i < track.hips.length; i++) {
        while (j < track.hips.length && track.hips[j].t - track.hips[i].t < 200) j++;
        if (j >= track.hips.length) break;
        peak = Math.max(peak, (track.hips[i].h - track.hips[j].h) / ((track.hips[j].t - track.hips[i].t) / 1000));
      }
      if (peak < o.fall_min_speed) return;
      // The fall began when the hips last stood within 5 cm of their height before the drop.
      let start = track.hips[maxIndex].t;
      for (let i = maxIndex; i < track.hips.length && track.hips[i].h >= max - 0.05; i++) start = track.hips[i].t;
      track.fall = { kind: 'candidate', since: t, fallStart: start, peakSpeed: peak, drop };
      return;
    }
    if (state.kind === 'candidate') {
      if (hip > o.fall_floor_height + 0.15) {
        track.fall = { kind: 'watch' };
        return;
      }
      if (t - state.since < o.notification_delay_seconds * 1000) return;
      const landing = landingSpeed(track.hips, state.fallStart);
      if (landing < o.fall_impact_speed) {
        // Reached the floor slowing down: a controlled lowering (lying down on purpose), not a fall.
        track.fall = { kind: 'settled' };
        return;
      }
      const impact = Math.min(1, state.peakSpeed / 3);
      const severity: Severity = impact >= 0.75 ? 'critical' : 'high';
      const record: FallRecord = {
        eventId: '', trackId: track.trackId, personId: person.id, fallStart: state.fallStart, detectedAt: t, severity,
        location: { x: round(person.position.x), y: round(person.position.y) }, peakSpeed: round(state.peakSpeed), landingSpeed: round(landing), hipDrop: round(state.drop), recovered: false,
        durationSeconds: round((t - state.fallStart) / 1000),
      };
      const event = createEvent({
        type: 'fall_detection', severity, timestamp: state.fallStart, environmentId: frame.environmentId, personId: person.id, trackId: track.trackId,
        confidence: round(Math.min(1, person.confidence * (0.6 + 0.4 * Math.min(1, state.drop / 0.6)))), location: record.location, source: FALL_RULE,
        metadata: this.#fallMetadata(record), actionsTaken: ['alert_raised'],
      });
      record.eventId = event.eventId;
      this.#falls.push(record);
      track.fall = { kind: 'down', event, record, escalated: false };
      out.events.push(event);
      this.#raise(out, event, `fall-${track.trackId}`, {
        message: `Fall detected (track ${track.trackId}) at (${record.location.x}, ${record.location.y}); the person is still on the floor`,
        actionsRequired: ['check_on_person', 'call_caregiver'], timestamp: t,
      });
      return;
    }
    // Down after a confirmed fall: watch for recovery or a long lie.
    const rec = state.record;
    rec.durationSeconds = round((t - rec.fallStart) / 1000);
    if (hip >= o.recovery_height) {
      rec.recovered = true;
      state.event.metadata = this.#fallMetadata(rec);
      state.event.actionsTaken = [...state.event.actionsTaken, 'recovery_detected'];
      out.events.push({ ...state.event });
      track.fall = { kind: 'watch' };
      track.hips = [];
      return;
    }
    if (!state.escalated && t - rec.fallStart >= o.long_lie_seconds * 1000) {
      state.escalated = true;
      rec.severity = 'critical';
      state.event.severity = 'critical';
      state.event.metadata = { ...this.#fallMetadata(rec), long_lie: true };
      out.events.push({ ...state.event });
      this.#raise(out, state.event, `fall-${track.trackId}`, {
        message: `Person on the floor for ${Math.round(rec.durationSeconds)} s after a fall (track ${track.trackId})`,
        actionsRequired: ['send_help_now'], timestamp: t,
      });
    }
  }

  #fallMetadata(r: FallRecord): Record<string, unknown> {
    return {
      fall_duration: r.durationSeconds,
      impact_severity: round(Math.min(1, r.peakSpeed / 3)),
      recovery_detected: r.recovered,
      peak_speed_mps: r.peakSpeed,
      landing_speed_mps: r.landingSpeed,
      hip_drop_m: r.hipDrop,
      detected_at: isoTime(r.detectedAt),
      response_time_seconds: round((r.detectedAt - r.fallStart) / 1000),
      rule: 'hip drop ≥ fall_drop_m within fall_window_seconds, peak speed ≥ fall_min_speed, hips ≤ fall_floor_height for notification_delay_seconds',
    };
  }

  #detectInactivity(track: TrackHealth, person: Person, frame: PoseFrame, hip: number | null, dt: number, out: HealthcareOutput): void {
    const o = this.options;
    const t = frame.timestamp;
    // A slow average of the position (time constant 5 s) so detection noise does not look like movement.
    const a = track.slowPosition ? Math.min(1, dt / 5) : 1;
    const sp = (track.slowPosition ??= { ...person.position });
    sp.x += a * (person.position.x - sp.x);
    sp.y += a * (person.position.y - sp.y);
    if (o.inactivity_exclude_zones.some((z) => pointInPolygon(person.position, z.polygon))) {
      track.still = null;
      return;
    }
    const h = hip ?? 0;
    const still = track.still;
    if (!still || distance(sp, still.anchor) > o.inactivity_movement_m || Math.abs(h - still.hip) > 0.3) {
      track.still = { anchor: { ...sp }, hip: h, since: t, alerted: false };
      return;
    }
    if (still.alerted || t - still.since < o.threshold_minutes * 60_000) return;
    still.alerted = true;
    const onFloor = hip !== null && hip <= o.fall_floor_height;
    const minutes = round((t - still.since) / 60_000, 1);
    const event = createEvent({
      type: 'inactivity', severity: onFloor ? 'high' : 'medium', timestamp: t, environmentId: frame.environmentId, personId: person.id, trackId: track.trackId,
      confidence: round(person.confidence), location: { x: round(sp.x), y: round(sp.y) }, source: INACTIVITY_RULE,
      metadata: { inactive_minutes: minutes, threshold_minutes: o.threshold_minutes, since: isoTime(still.since), on_floor: onFloor },
      actionsTaken: ['alert_raised'],
    });
    out.events.push(event);
    this.#raise(out, event, `inactivity-${track.trackId}`, {
      message: `No movement for ${minutes} min (track ${track.trackId})${onFloor ? ', on the floor' : ''}`,
      actionsRequired: ['check_on_person'], timestamp: t,
    });
  }

  #sleep(track: TrackHealth, person: Person, t: number, dt: number): void {
    const o = this.options;
    const lying = track.stable === 'lying';
    const gapMs = o.sleep_gap_minutes * 60_000;
    if (lying) {
      if (!track.bout || t - track.bout.lastLying > gapMs) {
        if (track.bout) this.#closeBout(track);
        track.bout = { start: t, lastLying: t, lyingSeconds: 0, restlessSeconds: 0, restlessEvents: 0 };
      }
      track.bout.lastLying = t;
      track.bout.lyingSeconds += dt;
      // Restlessness: compare consecutive block averages of the body-frame joints (averaging beats detection noise).
      const rel = person.keypoints3d.map((k) => [k.x - person.position.x, k.y - person.position.y, k.z]);
      if (!track.block) track.block = { start: t, sum: rel.map(() => [0, 0, 0]), n: 0 };
      if (track.block.sum.length === rel.length) {
        rel.forEach((p, i) => {
          track.block!.sum[i][0] += p[0];
          track.block!.sum[i][1] += p[1];
          track.block!.sum[i][2] += p[2];
        });
        track.block.n++;
      }
      if (t - track.block.start >= o.restlessness_block_seconds * 1000 && track.block.n > 0) {
        const mean = track.block.sum.map((s) => s.map((v) => v / track.block!.n));
        if (track.lastBlock && track.lastBlock.length === mean.length) {
          let moved = 0;
          mean.forEach((p, i) => (moved += Math.hypot(p[0] - track.lastBlock![i][0], p[1] - track.lastBlock![i][1], p[2] - track.lastBlock![i][2])));
          moved /= mean.length;
          if (moved > o.restlessness_m) {
            track.bout.restlessSeconds += (t - track.block.start) / 1000;
            if (t - track.lastRestless > 30_000) track.bout.restlessEvents++;
            track.lastRestless = t;
          }
        }
        track.lastBlock = mean;
        track.block = null;
      }
    } else {
      track.block = null;
      track.lastBlock = null;
      if (track.bout && t - track.bout.lastLying > gapMs) this.#closeBout(track);
    }
  }

  #closeBout(track: TrackHealth): void {
    const bout = track.bout;
    track.bout = null;
    if (bout && bout.lastLying - bout.start >= this.options.sleep_min_minutes * 60_000) track.bouts.push(bout);
  }

  #raise(out: HealthcareOutput, event: AnalyticsEvent, key: string, options: { message: string; actionsRequired: string[]; timestamp: number }): void {
    const alert = { ...alertFromEvent(event, { message: options.message, actionsRequired: options.actionsRequired }), timestamp: options.timestamp };
    if (this.#gate.admit(alert, key)) out.alerts.push(alert);
  }

  /** Falls detected so far (updated as people recover). */
  falls(): FallRecord[] {
    return this.#falls.map((f) => ({ ...f, location: { ...f.location } }));
  }

  /** Per-track figures so far. */
  trackFigures(): TrackHealthFigures[] {
    const o = this.options;
    return [...this.#tracks.values()].map((tr) => {
      const bouts = [...tr.bouts];
      if (tr.bout && tr.bout.lastLying - tr.bout.start >= o.sleep_min_minutes * 60_000) bouts.push(tr.bout);
      const inBed = bouts.reduce((s, b) => s + (b.lastLying - b.start) / 1000, 0);
      const asleep = bouts.reduce((s, b) => s + Math.max(0, b.lyingSeconds - b.restlessSeconds), 0);
      const gait = tr.walkingSeconds > 0 ? tr.walkingDistance / tr.walkingSeconds : null;
      return {
        trackId: tr.trackId,
        observedSeconds: round(tr.observed, 1),
        activitySeconds: Object.fromEntries(ACTIVITIES.map((a) => [a, round(tr.activity[a], 1)])) as Record<CountedActivity, number>,
        gaitSpeed: gait === null ? null : round(gait),
        sitToStand: tr.sitToStand,
        mobilityScore: mobilityScore(tr.activity, gait, tr.sitToStand),
        sleep: {
          totalSleepHours: round(asleep / 3600),
          timeInBedHours: round(inBed / 3600),
          efficiency: inBed > 0 ? round(Math.min(1, asleep / inBed)) : 0,
          restlessnessEvents: bouts.reduce((s, b) => s + b.restlessEvents, 0),
          periods: bouts.length,
        },
      };
    });
  }

  /** Persons skipped because they had no confirmed track. */
  get ignoredDetections(): number {
    return this.#ignored;
  }

  /** First and last frame time seen, or null. */
  get timeSpan(): { start: number; end: number } | null {
    return this.#firstTime === null || this.#lastTime === null ? null : { start: this.#firstTime, end: this.#lastTime };
  }
}

/**
 * Mean downward hip speed (m/s) through the last 0.3 m above where the hips settled (median
 * of the last second): from 0.35 m to 0.05 m above it, on a 3-sample moving average. A fall
 * crosses this band near its peak speed (it ends in an impact); a person lying down on
 * purpose slows down through it.
 */
export function landingSpeed(hips: readonly { t: number; h: number }[], fallStart: number): number {
  const last = hips.at(-1);
  if (!last) return 0;
  const tail = hips.filter((s) => s.t >= last.t - 1000).map((s) => s.h).sort((a, b) => a - b);
  const bottom = tail[Math.floor(tail.length / 2)];
  const smooth = hips.map((s, i) => {
    const a = hips[Math.max(0, i - 1)].h;
    const c = hips[Math.min(hips.length - 1, i + 1)].h;
    return { t: s.t, h: (a + s.h + c) / 3 };
  });
  const start = smooth.findIndex((s) => s.t >= fallStart - 500);
  if (start < 0) return 0;
  const top = Math.max(...smooth.slice(start).map((s) => s.h));
  const hi = Math.min(bottom + 0.35, top - 0.03);
  const lo = bottom + 0.05;
  if (hi <= lo) return 0;
  const cross = (from: number, level: number): number | null => {
    for (let i = Math.max(from, 1); i < smooth.length; i++) {
      if (smooth[i].h <= level) {
        const p = smooth[i - 1];
        const q = smooth[i];
        return p.h === q.h ? q.t : p.t + ((q.t - p.t) * (p.h - level)) / (p.h - q.h);
      }
    }
    return null;
  };
  const tHi = cross(start, hi);
  if (tHi === null) return 0;
  const tLo = cross(smooth.findIndex((s) => s.t >= tHi), lo);
  if (tLo === null) return 0;
  return (hi - lo) / Math.max(0.05, (tLo - tHi) / 1000);
}

/**
 * Mobility score 0–100 (rule mobility-v1): 50 % gait speed (mean walking speed, full marks
 * at 1.0 m/s), 30 % upright share (walking + standing over time awake, full marks at 50 %),
 * 20 % sit-to-stand transitions (full marks at 2 per awake hour). Lying time is left out of
 * "awake" so a night's sleep does not lower the score.
 */
export function mobilityScore(activity: Record<CountedActivity, number>, gaitSpeed: number | null, sitToStand: number): number {
  const awake = activity.walking + activity.standing + activity.sitting;
  if (awake <= 0) return 0;
  const gait = Math.min(1, (gaitSpeed ?? 0) / 1.0);
  const upright = Math.min(1, (activity.walking + activity.standing) / awake / 0.5);
  const transitions = Math.min(1, sitToStand / (awake / 3600) / 2);
  return Math.round(100 * (0.5 * gait + 0.3 * upright + 0.2 * transitions));
}
