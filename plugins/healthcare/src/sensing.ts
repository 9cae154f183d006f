import type { SensingActivity, SensingFrame } from '@wiflow/core';
import { isoTime } from '@wiflow/analytics-common';
import type { HealthcareOptions } from './options.js';

/** Rule id of the mobility score computed from sensing frames (no gait speed: no positions). */
export const SENSING_MOBILITY_RULE = 'mobility-sensing-v1';
/** Rule id of the rest (sleep) periods computed from sensing frames. */
export const SENSING_SLEEP_RULE = 'rest-sensing-v1';

/** A fall as the sensing frames reported it. */
export interface SensedFall {
  timestamp: number;
  confidence: number;
  environmentId: string;
  /** 'room' for sense.room frames, 'link' for sense.link frames. */
  scope: 'room' | 'link';
  link: string | null;
  /** A moving second came 3 s or more after the fall (the person got up, or someone else moved). */
  movedAgain: boolean;
  /** Seconds from the fall to that movement; null while none was seen. */
  secondsUntilMovement: number | null;
}

/** Healthcare record computed from sensing frames: the pose spec's fields, nullable where CSI cannot tell. */
export interface HealthcareSensingRecord {
  period: string;
  date: string;
  /** Always 'sensing': these figures come from SensingFrames, not poses. */
  source: 'sensing';
  /** Estimator ids, config hashes and provenances of the frames counted. */
  estimators: { estimator_id: string; config_hash: string; provenance: string }[];
  metrics: {
    fall_events: {
      count: number;
      events: {
        timestamp: string;
        person_id: null;
        track_id: null;
        severity: 'high';
        confidence: number;
        environment_id: string;
        scope: 'room' | 'link';
        link: string | null;
        /** Null: the delay to the alert is known on the alert path (sense.alerts), not in the frames. */
        response_time_seconds: null;
        location: null;
        recovery_detected: boolean;
        fall_duration: number | null;
      }[];
    };
    activity_summary: {
      walking_minutes: number;
      /** Null when no counted second had a posture (the estimator does not tell postures apart). */
      sitting_minutes: number | null;
      lying_minutes: number | null;
      standing_minutes: number | null;
      still_minutes: number;
      moving_minutes: number;
      empty_minutes: number;
      /** Present seconds with no activity (a still person of unknown posture, or 'other' movement). */
      unclassified_minutes: number;
      /** Why the postures are null, or null when they are counted. */
      posture_reason: string | null;
    };
    mobility_score: number | null;
    mobility_rule: typeof SENSING_MOBILITY_RULE;
    sleep_quality: { total_sleep_hours: number; sleep_efficiency: number | null; restlessness_events: number; periods: number; rule: typeof SENSING_SLEEP_RULE };
    inactivity_alerts: number;
    /** Breathing of still people: the median rate over still seconds with a rate (rest periods apart), or null and the most common reason. */
    breathing: { median_bpm: number | null; rest_median_bpm: number | null; seconds_with_rate: number; null_reason: string | null };
  };
}

interface RestBout {
  /** Breathing rates of the bout's still seconds. */
  rates: RateHistogram;
  start: number;
  lastStill: number;
  stillSeconds: number;
  restlessEvents: number;
  movingNow: boolean;
}

interface PlaceState {
  seconds: Record<'empty' | 'still' | 'moving', number>;
  activity: Record<SensingActivity | 'none', number>;
  walkStarts: number;
  lastState: SensingFrame['state'] | null;
  bout: RestBout | null;
  bouts: RestBout[];
  /** Falls not yet followed by movement. */
  pendingFalls: SensedFall[];
  still: { since: number; raised: boolean } | null;
  inactivity: number;
}

/** Rates counted in 0.1 bpm bins: bounded memory in endless streams. */
type RateHistogram = Map<number, number>;

function addRate(histogram: RateHistogram, bpm: number): void {
  const bin = Math.round(bpm * 10);
  histogram.set(bin, (histogram.get(bin) ?? 0) + 1);
}

/** Median (0.1 bpm resolution) of one or more histograms; null when they are empty. */
function medianRate(histograms: RateHistogram[]): number | null {
  const merged = new Map<number, number>();
  for (const h of histograms) for (const [bin, n] of h) merged.set(bin, (merged.get(bin) ?? 0) + n);
  const total = [...merged.values()].reduce((a, b) => a + b, 0);
  if (!total) return null;
  let seen = 0;
  for (const bin of [...merged.keys()].sort((a, b) => a - b)) {
    seen += merged.get(bin)!;
    if (seen * 2 >= total) return bin / 10;
  }
  return null;
}

const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

/**
 * Healthcare figures from sensing frames (one frame = one second of a room or link): activity
 * seconds from each frame's `activity` and `state`, falls from its `falls`, rest periods from still
 * seconds, a mobility score from walking time and walk starts, inactivity stretches from still
 * seconds. Rooms and links are counted as separate places (feed it `sense.room` output for rooms).
 */
export class SensingHealthMonitor {
  readonly #places = new Map<string, PlaceState>();
  readonly #falls: SensedFall[] = [];
  readonly #estimators = new Map<string, { estimator_id: string; config_hash: string; provenance: string }>();
  #first: number | null = null;
  #last: number | null = null;
  #ignored = 0;
  /** Breathing rates of still seconds. */
  readonly #rates: RateHistogram = new Map();
  #rateSeconds = 0;
  /** Why still seconds had no rate, counted. */
  readonly #rateReasons = new Map<string, number>();

  constructor(private readonly options: HealthcareOptions) {}

  /** Count one sensing frame; returns the inactivity stretches it completed (place keys). */
  update(frame: SensingFrame): { inactivity: string[] } {
    if (!frame || typeof frame !== 'object' || typeof frame.time !== 'number' || !Number.isFinite(frame.time) || typeof frame.environmentId !== 'string' || !['empty', 'still', 'moving'].includes(frame.state)) {
      this.#ignored++;
      return { inactivity: [] };
    }
    const o = this.options;
    const t = frame.time;
    this.#first = Math.min(this.#first ?? t, t);
    this.#last = Math.max(this.#last ?? t, t);
    this.#estimators.set(`${frame.estimatorId}|${frame.configHash}|${frame.provenance}`, { estimator_id: frame.estimatorId, config_hash: frame.configHash, provenance: frame.provenance });
    const link = frame.link ? `${frame.link.tx}>${frame.link.rx}` : null;
    const key = link ? `${frame.environmentId}|${link}` : frame.environmentId;
    let place = this.#places.get(key);
    if (!place) {
      place = { seconds: { empty: 0, still: 0, moving: 0 }, activity: { walking: 0, standing: 0, sitting: 0, lying: 0, fall: 0, other: 0, none: 0 }, walkStarts: 0, lastState: null, bout: null, bouts: [], pendingFalls: [], still: null, inactivity: 0 };
      this.#places.set(key, place);
    }
    place.seconds[frame.state]++;
    if (frame.presence) place.activity[frame.activity ?? 'none']++;
    if (frame.state === 'moving' && place.lastState !== 'moving' && frame.activity !== 'fall') place.walkStarts++;

    for (const fall of frame.falls ?? []) {
      const record: SensedFall = { timestamp: fall.time, confidence: fall.confidence, environmentId: frame.environmentId, scope: frame.scope, link, movedAgain: false, secondsUntilMovement: null };
      this.#falls.push(record);
      place.pendingFalls.push(record);
    }
    if (frame.state === 'moving' && !frame.falls?.length) {
      place.pendingFalls = place.pendingFalls.filter((f) => {
        if (t - 1000 - f.timestamp < 3000) return true;
        f.movedAgain = true;
        f.secondsUntilMovement = round((t - 1000 - f.timestamp) / 1000, 0);
        return false;
      });
    }

    // Rest: still seconds of a present person whose posture is lying or unknown; movement shorter than sleep_gap_minutes does not end it.
    const resting = frame.state === 'still' && (frame.activity === 'lying' || frame.activity === null);
    const gapMs = o.sleep_gap_minutes * 60_000;
    if (resting) {
      if (!place.bout || t - place.bout.lastStill > gapMs) {
        this.#closeBout(place);
        place.bout = { rates: new Map(), start: t - 1000, lastStill: t, stillSeconds: 0, restlessEvents: 0, movingNow: false };
      }
      // Movement counts as restlessness once the person is still again (movement that ends the period does not).
      if (place.bout.movingNow) place.bout.restlessEvents++;
      place.bout.lastStill = t;
      place.bout.stillSeconds++;
      place.bout.movingNow = false;
    } else if (place.bout) {
      if (t - place.bout.lastStill > gapMs) this.#closeBout(place);
      else if (frame.state === 'moving') place.bout.movingNow = true;
    }

    if (frame.state === 'still') {
      if (typeof frame.breathingBpm === 'number' && Number.isFinite(frame.breathingBpm)) {
        addRate(this.#rates, frame.breathingBpm);
        this.#rateSeconds++;
        if (resting && place.bout) addRate(place.bout.rates, frame.breathingBpm);
      } else if (frame.breathingReason) this.#rateReasons.set(frame.breathingReason, (this.#rateReasons.get(frame.breathingReason) ?? 0) + 1);
    }

    const completed: string[] = [];
    if (frame.state === 'still') {
      place.still ??= { since: t - 1000, raised: false };
      if (o.inactivity_enabled && !place.still.raised && t - place.still.since >= o.threshold_minutes * 60_000) {
        place.still.raised = true;
        place.inactivity++;
        completed.push(key);
      }
    } else place.still = null;
    place.lastState = frame.state;
    return { inactivity: completed };
  }

  #closeBout(place: PlaceState): void {
    const bout = place.bout;
    place.bout = null;
    if (bout && bout.lastStill - bout.start >= this.options.sleep_min_minutes * 60_000) place.bouts.push(bout);
  }

  #breathing(bouts: RestBout[]): HealthcareSensingRecord['metrics']['breathing'] {
    const rate = medianRate([this.#rates]);
    const rest = medianRate(bouts.map((b) => b.rates));
    let reason: string | null = null;
    if (rate === null) {
      let most = 0;
      for (const [r, n] of this.#rateReasons) if (n > most) [reason, most] = [r, n];
      reason ??= 'no still second';
    }
    return { median_bpm: rate, rest_median_bpm: rest, seconds_with_rate: this.#rateSeconds, null_reason: reason };
  }

  /** Frames that were not sensing frames (counted, skipped). */
  get ignoredFrames(): number {
    return this.#ignored;
  }

  /** Falls seen so far. */
  falls(): SensedFall[] {
    return this.#falls.map((f) => ({ ...f }));
  }

  /** First and last frame time seen, or null. */
  get timeSpan(): { start: number; end: number } | null {
    return this.#first === null || this.#last === null ? null : { start: this.#first, end: this.#last };
  }

  /** The healthcare record of what was counted so far. */
  record(options: { period?: string; date?: string } = {}): HealthcareSensingRecord {
    const places = [...this.#places.values()];
    const sum = (f: (p: PlaceState) => number) => places.reduce((s, p) => s + f(p), 0);
    const minutes = (seconds: number) => round(seconds / 60);
    const postures = sum((p) => p.activity.standing + p.activity.sitting + p.activity.lying);
    const posture = (a: 'standing' | 'sitting' | 'lying') => (postures > 0 ? minutes(sum((p) => p.activity[a])) : null);
    const walking = sum((p) => p.activity.walking);
    const bouts = places.flatMap((p) => {
      const all = [...p.bouts];
      if (p.bout && p.bout.lastStill - p.bout.start >= this.options.sleep_min_minutes * 60_000) all.push(p.bout);
      return all;
    });
    const inBed = bouts.reduce((s, b) => s + (b.lastStill - b.start) / 1000, 0);
    const asleep = bouts.reduce((s, b) => s + b.stillSeconds, 0);
    const presentAwake = sum((p) => p.seconds.still + p.seconds.moving) - asleep;
    const span = this.timeSpan;
    return {
      period: options.period ?? 'custom',
      date: options.date ?? isoTime(span?.start ?? Date.now()).slice(0, 10),
      source: 'sensing',
      estimators: [...this.#estimators.values()],
      metrics: {
        fall_events: {
          count: this.#falls.length,
          events: this.#falls.map((f) => ({
            timestamp: isoTime(f.timestamp), person_id: null, track_id: null, severity: 'high', confidence: f.confidence, environment_id: f.environmentId, scope: f.scope, link: f.link,
            response_time_seconds: null, location: null, recovery_detected: f.movedAgain, fall_duration: f.secondsUntilMovement,
          })),
        },
        activity_summary: {
          walking_minutes: minutes(walking),
          sitting_minutes: posture('sitting'),
          lying_minutes: posture('lying'),
          standing_minutes: posture('standing'),
          still_minutes: minutes(sum((p) => p.seconds.still)),
          moving_minutes: minutes(sum((p) => p.seconds.moving)),
          empty_minutes: minutes(sum((p) => p.seconds.empty)),
          unclassified_minutes: minutes(sum((p) => p.activity.other + p.activity.none)),
          posture_reason: postures > 0 ? null : 'the sensing estimator reported no posture (standing, sitting, lying) in these frames',
        },
        mobility_score: sensingMobilityScore(walking, Math.max(0, presentAwake), sum((p) => p.walkStarts)),
        mobility_rule: SENSING_MOBILITY_RULE,
        sleep_quality: { total_sleep_hours: round(asleep / 3600), sleep_efficiency: inBed > 0 ? round(Math.min(1, asleep / inBed)) : null, restlessness_events: bouts.reduce((s, b) => s + b.restlessEvents, 0), periods: bouts.length, rule: SENSING_SLEEP_RULE },
        inactivity_alerts: sum((p) => p.inactivity),
        breathing: this.#breathing(bouts),
      },
    };
  }
}

/**
 * Mobility score 0–100 from sensing (rule mobility-sensing-v1): 60 % walking share of the present,
 * awake time (full marks at 25 %), 40 % walk starts (full marks at 4 per awake hour). Null when
 * nobody was present and awake. Not comparable with the pose rule mobility-v1 (no gait speed here).
 */
export function sensingMobilityScore(walkingSeconds: number, presentAwakeSeconds: number, walkStarts: number): number | null {
  if (presentAwakeSeconds <= 0) return null;
  const walking = Math.min(1, walkingSeconds / presentAwakeSeconds / 0.25);
  const starts = Math.min(1, walkStarts / (presentAwakeSeconds / 3600) / 4);
  return Math.round(100 * (0.6 * walking + 0.4 * starts));
}
