import type { Keypoint, Keypoint3D, Person, PoseFrame, TrackSummary, TrajectoryPoint } from '@wiflow/core';
import { parseAnalyticOptions } from '@wiflow/analytics-common';
import { assignGated } from './assignment.js';
import { TrackerErrors } from './errors.js';
import { HeldEvidence } from './held-evidence.js';
import { FloorKalman } from './kalman.js';
import { TrackerOptionsSchema, type TrackerOptions, type TrackerOptionsInput } from './options.js';

/** Track lifecycle status. */
export type TrackStatus = 'tentative' | 'active' | 'lost' | 'ended';

/** A lifecycle change the tracker reports. */
export interface TrackTransition {
  trackId: number;
  environmentId: string;
  timestamp: number;
  from: TrackStatus | null;
  to: TrackStatus;
  /** 'confirmed', 'lost', 'recovered', 're-identified', 'ended', 'discarded'. */
  reason: string;
}

/** Movement statistics of a track (distance m, speed m/s, times s). */
export interface TrackStatistics {
  movementDistance: number;
  averageSpeed: number;
  timeStationary: number;
  timeMoving: number;
}

interface Track {
  /** Key inside the tracker (every track, tentative ones included). */
  key: number;
  /** Public track id: given when the track is confirmed, so ids count people shown, not candidates discarded. */
  id: number | null;
  environmentId: string;
  kalman: FloorKalman;
  status: TrackStatus;
  hits: number;
  /** Frames since the track was created. */
  age: number;
  misses: number;
  firstSeen: number;
  lastSeen: number;
  /** Smoothed joints relative to the floor position ([17][dx, dy, z]). */
  shape: number[][];
  shape2d: [number, number][];
  names: Keypoint3D['name'][];
  lastPerson: Person;
  confidenceSum: number;
  totalFrames: number;
  stats: TrackStatistics;
  trajectory: TrajectoryPoint[];
  /** Recent filtered positions for the windowed speed. */
  recent: { t: number; x: number; y: number }[];
  reidentifications: number;
  /** The upstream track this one follows (`<environment>#<id>`), or null for a track of this tracker's own making. */
  upstream: string | null;
  /**
   * Held evidence (upstream_min_evidence) while the id is not shown yet: its persons are tentative and it
   * reports nothing (no transitions, not in `tracks()`); null once shown, or never held (its first
   * detection carried no evidence, or the gate is off).
   */
  held: HeldEvidence | null;
}

/** Running counters of a tracker. */
export interface TrackerCounters {
  frames: number;
  detections: number;
  /** Detections below min_confidence. */
  droppedDetections: number;
  tracksCreated: number;
  /** Tentative tracks that never became active. */
  tracksDiscarded: number;
  reidentifications: number;
}

const SHAPE_SCALE = 0.5; // m: a joint this far off counts as fully dissimilar

function relativeShape(person: Person): number[][] {
  return person.keypoints3d.map((k) => [k.x - person.position.x, k.y - person.position.y, k.z]);
}

/** Mean per-joint dissimilarity (0..1) of two body shapes. */
function shapeDissimilarity(a: number[][], b: number[][]): number {
  const n = Math.min(a.length, b.length);
  if (n === 0) return 0.5;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.min(1, Math.hypot(a[i][0] - b[i][0], a[i][1] - b[i][1], a[i][2] - b[i][2]) / SHAPE_SCALE);
  return sum / n;
}

function checkPerson(p: Person, i: number): void {
  if (!p || typeof p !== 'object') throw TrackerErrors.frameInvalid(`person ${i} is not an object`);
  if (!p.position || !Number.isFinite(p.position.x) || !Number.isFinite(p.position.y)) throw TrackerErrors.frameInvalid(`person ${i} has no finite floor position`);
  if (!Array.isArray(p.keypoints3d) || !Array.isArray(p.keypoints)) throw TrackerErrors.frameInvalid(`person ${i} has no keypoints/keypoints3d arrays`);
  if (!Number.isFinite(p.confidence)) throw TrackerErrors.frameInvalid(`person ${i} has no finite confidence`);
}

/**
 * Multi-person tracker for pose frames (one per environment is kept inside). Per frame:
 * predict each track with a constant-velocity Kalman filter; match detections to
 * tentative, active and recently lost tracks by Hungarian assignment on a cost mixing the
 * Mahalanobis distance (gated at χ²₂ 99 %) and body-shape dissimilarity; then match the
 * rest to lost tracks near where they were last seen (re-identification); the rest start
 * tentative tracks. Output persons carry trackId, trackStatus, velocity, trackAge, the
 * filtered floor position and smoothed keypoints. A confirmed id whose detections carry evidence
 * (pose.locate) is shown as tentative until its recent mean evidence reaches upstream_min_evidence.
 */
export class MultiPersonTracker {
  readonly options: TrackerOptions;
  readonly #tracks = new Map<number, Track>();
  /** Tracks that follow an upstream estimator's ids, by `<environment>#<upstream id>`. */
  readonly #upstream = new Map<string, Track>();
  #nextKey = 1;
  readonly #ended: Track[] = [];
  readonly #lastTime = new Map<string, number>();
  #nextId: number;
  readonly counters: TrackerCounters = { frames: 0, detections: 0, droppedDetections: 0, tracksCreated: 0, tracksDiscarded: 0, reidentifications: 0 };
  /** Lifecycle changes since the last `takeTransitions()`. */
  #transitions: TrackTransition[] = [];

  constructor(options: TrackerOptionsInput = {}) {
    this.options = parseAnalyticOptions(TrackerOptionsSchema, options, TrackerErrors.optionsInvalid);
    this.#nextId = this.options.first_track_id;
  }

  /** Track one frame: returns a copy with tracked persons (untracked low-confidence detections removed). */
  update(frame: PoseFrame): PoseFrame {
    if (!frame || typeof frame !== 'object') throw TrackerErrors.frameInvalid('not an object');
    if (!Number.isFinite(frame.timestamp)) throw TrackerErrors.frameInvalid('timestamp is not a finite number');
    if (!Array.isArray(frame.persons)) throw TrackerErrors.frameInvalid('persons is not an array');
    frame.persons.forEach(checkPerson);
    const env = frame.environmentId ?? '';
    const prev = this.#lastTime.get(env);
    if (prev !== undefined && frame.timestamp < prev) throw TrackerErrors.frameOutOfOrder(env, prev, frame.timestamp);
    const dt = prev === undefined ? 0 : (frame.timestamp - prev) / 1000;
    this.#lastTime.set(env, frame.timestamp);
    this.counters.frames++;

    const o = this.options;
    const confident = frame.persons.filter((p) => p.confidence >= o.min_confidence);
    this.counters.detections += frame.persons.length;
    this.counters.droppedDetections += frame.persons.length - confident.length;
    // Detections an upstream tracker already identified keep their identity: tracking them again
    // makes two trackers fight (a person's id flickers, each flicker a new track and a new visit).
    const isUpstream = (p: Person) => o.follow_upstream_ids && p.trackId !== null && p.trackId !== undefined && p.trackStatus !== 'tentative' && p.trackStatus !== 'ended';
    const followed = this.#follow(confident.filter(isUpstream), env, frame.timestamp, dt);
    const detections = confident.filter((p) => !isUpstream(p));
    const shapes = detections.map(relativeShape);

    const tracks = [...this.#tracks.values()].filter((t) => t.environmentId === env && t.upstream === null);
    for (const t of tracks) {
      t.age++;
      if (t.misses > o.tracking_max_age) continue;
      // Coasting on a stale velocity carries a track away from where its person stopped or
      // turned, and it comes back as someone else's: an unseen track slows down.
      if (t.misses > 0 && o.coast_velocity_decay_seconds > 0) t.kalman.dampVelocity(Math.exp(-dt / o.coast_velocity_decay_seconds));
      t.kalman.predict(dt);
    }

    // Stage 1: gated Hungarian against tracks still being predicted, confirmed tracks first
    // (a matching cascade): a candidate born beside a person must not take that person's
    // detection from their own track, or the track starves, drifts and a second id appears.
    const predicted = tracks.filter((t) => t.misses <= o.tracking_max_age);
    const cost = (t: Track, d: Person, j: number): number => {
      const m2 = t.kalman.mahalanobis2(d.position.x, d.position.y);
      if (m2 > o.gate_chi2) return Infinity;
      if (Math.hypot(d.position.x - t.kalman.state[0], d.position.y - t.kalman.state[1]) > o.max_gate_distance_m) return Infinity;
      // A coasting (lost) track only takes a confident detection: spurious ones are usually weak.
      if (t.status === 'lost' && d.confidence < o.reid_min_confidence) return Infinity;
      return (1 - o.keypoint_weight) * (m2 / o.gate_chi2) + o.keypoint_weight * shapeDissimilarity(t.shape, shapes[j]);
    };
    const matchedTrack = new Map<Track, number>();
    const matchedDetection = new Set<number>();
    for (const tier of [predicted.filter((t) => t.id !== null), predicted.filter((t) => t.id === null)]) {
      const open = detections.map((_, j) => j).filter((j) => !matchedDetection.has(j));
      for (const [r, c] of assignGated(tier.map((t) => open.map((j) => cost(t, detections[j], j))))) {
        matchedTrack.set(tier[r], open[c]);
        matchedDetection.add(open[c]);
      }
    }

    // Stage 2: re-identify lost tracks with the detections left over.
    const lost = tracks.filter((t) => t.status === 'lost' && !matchedTrack.has(t) && frame.timestamp - t.lastSeen <= o.reid_window_seconds * 1000);
    const free = detections.map((_, j) => j).filter((j) => !matchedDetection.has(j) && detections[j].confidence >= o.reid_min_confidence);
    const reidentified = new Set<Track>();
    if (lost.length && free.length) {
      const reidCosts = lost.map((t) => {
        const lostS = (frame.timestamp - t.lastSeen) / 1000;
        const radius = Math.min(o.reid_max_distance_m, o.reid_distance_m + o.reid_speed * lostS);
        const last = t.lastPerson.position;
        return free.map((j) => {
          const d = Math.hypot(detections[j].position.x - last.x, detections[j].position.y - last.y);
          if (d > radius) return Infinity;
          return 0.5 * (d / radius) + 0.5 * shapeDissimilarity(t.shape, shapes[j]);
        });
      });
      for (const [r, c] of assignGated(reidCosts)) {
        const t = lost[r];
        const j = free[c];
        matchedTrack.set(t, j);
        matchedDetection.add(j);
        reidentified.add(t);
        if (t.misses > o.tracking_max_age) t.kalman = new FloorKalman(detections[j].position.x, detections[j].position.y, o.acceleration_sigma, o.measurement_sigma);
      }
    }

    const out: Person[] = [];
    for (const [t, j] of matchedTrack) out[j] = this.#apply(t, detections[j], shapes[j], frame.timestamp, reidentified.has(t));
    // A detection close to a confirmed track it did not match is that person seen twice (a side
    // lobe, a reflection), not a newcomer: it starts no track.
    const confirmed = tracks.filter((t) => t.id !== null && t.misses <= o.tracking_max_age);
    detections.forEach((d, j) => {
      if (matchedDetection.has(j)) return;
      if (o.birth_exclusion_m > 0 && confirmed.some((t) => Math.hypot(d.position.x - t.kalman.state[0], d.position.y - t.kalman.state[1]) < o.birth_exclusion_m)) return;
      out[j] = this.#create(d, shapes[j], env, frame.timestamp);
    });

    for (const t of tracks) {
      if (matchedTrack.has(t)) continue;
      t.misses++;
      if (t.status === 'tentative') {
        if (t.misses >= 2) {
          this.#tracks.delete(t.key);
          this.counters.tracksDiscarded++;
        }
      } else if (t.status === 'active') {
        this.#transition(t, 'lost', frame.timestamp, 'lost');
        t.status = 'lost';
      } else if (t.status === 'lost' && t.misses > o.tracking_max_age && frame.timestamp - t.lastSeen > o.reid_window_seconds * 1000) {
        this.#end(t, frame.timestamp);
      }
    }

    // Confirmed tracks the estimator missed for a moment stay shown where they are predicted
    // (status 'lost'), so a flickering detection does not flicker the count.
    const coasting: Person[] = [];
    for (const t of tracks) {
      if (matchedTrack.has(t) || t.status !== 'lost' || !this.#tracks.has(t.key) || frame.timestamp - t.lastSeen > o.coast_seconds * 1000) continue;
      coasting.push(this.#coasted(t, frame.timestamp));
    }
    return { ...frame, persons: [...followed, ...out.filter(Boolean), ...coasting].map((p, i) => ({ ...p, id: i })) };
  }

  /**
   * Detections carrying an upstream track id: each id has one track here, active from its first
   * frame (the upstream tracker confirmed it) and shown where the upstream estimator puts it. An
   * id missing from a frame is lost (not coasted: upstream already decided the person is gone).
   * A new upstream id that appears where a lost one was last seen (the re-identification window
   * and radius) continues that track: the estimator lost the person for a moment and found them
   * again under a new id, and the user keeps seeing one person.
   */
  #follow(persons: readonly Person[], env: string, timestamp: number, dt: number): Person[] {
    const o = this.options;
    const out: Person[] = [];
    const present = new Set<Track>();
    const keyOf = (d: Person) => `${env}#${d.trackId}`;
    const known = (d: Person) => {
      const t = this.#upstream.get(keyOf(d));
      return t && this.#tracks.has(t.key) ? t : undefined;
    };
    /** What each track shown here was given in this frame (a handover re-applies it to the older track). */
    const given = new Map<Track, { d: Person; at: number }>();
    for (const d of persons) {
      const t = known(d);
      if (!t) continue;
      t.age++;
      t.kalman.predict(dt);
      given.set(t, { d, at: out.length });
      out.push(this.#apply(t, d, relativeShape(d), timestamp, false));
      present.add(t);
    }
    // New upstream ids: nearest pairs first with the lost tracks they may continue; the rest are new people.
    const fresh = persons.filter((d) => !known(d));
    const lost = [...this.#tracks.values()].filter((t) => t.upstream !== null && t.environmentId === env && t.status === 'lost' && timestamp - t.lastSeen <= o.reid_window_seconds * 1000);
    const pairs: [number, Track, Person][] = [];
    for (const t of lost) {
      const radius = Math.min(o.reid_max_distance_m, o.reid_distance_m + (o.reid_speed * (timestamp - t.lastSeen)) / 1000);
      for (const d of fresh) {
        const distance = Math.hypot(d.position.x - t.lastPerson.position.x, d.position.y - t.lastPerson.position.y);
        if (distance <= radius) pairs.push([distance, t, d]);
      }
    }
    pairs.sort((a, b) => a[0] - b[0]);
    const continued = new Map<Person, Track>();
    for (const [, t, d] of pairs) {
      if (present.has(t) || continued.has(d)) continue;
      continued.set(d, t);
      present.add(t);
    }
    for (const d of fresh) {
      const t = continued.get(d);
      if (!t) {
        const at = out.length;
        out.push(this.#create(d, relativeShape(d), env, timestamp, keyOf(d)));
        const created = this.#upstream.get(keyOf(d))!;
        present.add(created);
        given.set(created, { d, at });
        continue;
      }
      if (this.#upstream.get(t.upstream!) === t) this.#upstream.delete(t.upstream!);
      t.upstream = keyOf(d);
      this.#upstream.set(t.upstream, t);
      t.age++;
      t.kalman = new FloorKalman(d.position.x, d.position.y, o.acceleration_sigma, o.measurement_sigma);
      out.push(this.#apply(t, d, relativeShape(d), timestamp, true));
    }
    const lostNow: Track[] = [];
    for (const t of this.#tracks.values()) {
      if (t.upstream === null || t.environmentId !== env || present.has(t)) continue;
      t.age++;
      t.misses++;
      if (t.status === 'active') lostNow.push(t);
      if (t.status === 'tentative') {
        // An upstream id that came and went before it was shown was never a person to the user.
        this.#tracks.delete(t.key);
        if (this.#upstream.get(t.upstream) === t) this.#upstream.delete(t.upstream);
        this.counters.tracksDiscarded++;
      } else if (t.status === 'active') {
        this.#transition(t, 'lost', timestamp, 'lost');
        t.status = 'lost';
      } else if (t.status === 'lost' && timestamp - t.lastSeen > o.reid_window_seconds * 1000) {
        this.#end(t, timestamp);
      }
    }
    this.#handOver(lostNow, given, out, timestamp);
    return out;
  }

  /**
   * Handover (handover_seconds, handover_m): a followed track lost in this frame whose person the
   * estimator had just found again under a new id (a track born at most handover_seconds before,
   * shown now, near where the lost one was last seen) keeps its id: the newer track's estimator id
   * is followed under the older track from this frame on, and the newer track ends. Nearest pairs
   * first; each track takes part once. Ids are never given to anyone else: the newer id just ends.
   */
  #handOver(lostNow: readonly Track[], given: ReadonlyMap<Track, { d: Person; at: number }>, out: Person[], timestamp: number): void {
    const o = this.options;
    if (o.handover_seconds <= 0 || !lostNow.length) return;
    const pairs: [number, Track, Track][] = [];
    for (const old of lostNow) {
      for (const [young, { d }] of given) {
        if (young === old || young.id === null || young.status !== 'active' || young.reidentifications > 0) continue;
        if (young.firstSeen <= old.firstSeen || old.lastSeen - young.firstSeen > o.handover_seconds * 1000) continue;
        const distance = Math.hypot(d.position.x - old.lastPerson.position.x, d.position.y - old.lastPerson.position.y);
        if (distance <= o.handover_m) pairs.push([distance, old, young]);
      }
    }
    pairs.sort((a, b) => a[0] - b[0]);
    const done = new Set<Track>();
    for (const [, old, young] of pairs) {
      if (done.has(old) || done.has(young)) continue;
      done.add(old);
      done.add(young);
      const { d, at } = given.get(young)!;
      const key = young.upstream!;
      if (this.#upstream.get(old.upstream!) === old) this.#upstream.delete(old.upstream!);
      old.upstream = key;
      this.#upstream.set(key, old);
      old.kalman = new FloorKalman(d.position.x, d.position.y, o.acceleration_sigma, o.measurement_sigma);
      out[at] = this.#apply(old, d, relativeShape(d), timestamp, true);
      this.#end(young, timestamp);
    }
  }

  /** A confirmed track not detected in this frame, at its predicted position. */
  #coasted(t: Track, timestamp: number): Person {
    const [x, y, vx, vy] = t.kalman.state;
    const last = t.lastPerson;
    const dx = x - last.position.x, dy = y - last.position.y;
    // Lost estimates count as no evidence (they may still tip the mean as old ones leave the window).
    this.#weigh(t, timestamp, 0);
    return { ...last, trackStatus: t.held ? 'tentative' : 'lost', trackAge: t.age, velocity: { x: vx, y: vy }, position: { x, y }, keypoints3d: last.keypoints3d.map((k) => ({ ...k, x: k.x + dx, y: k.y + dy })) };
  }

  #create(d: Person, shape: number[][], env: string, timestamp: number, upstream: string | null = null): Person {
    const o = this.options;
    const t: Track = {
      key: this.#nextKey++,
      id: null,
      environmentId: env,
      kalman: new FloorKalman(d.position.x, d.position.y, o.acceleration_sigma, o.measurement_sigma),
      status: 'tentative',
      hits: 0,
      age: 1,
      misses: 0,
      firstSeen: timestamp,
      lastSeen: timestamp,
      shape,
      shape2d: d.keypoints.map((k) => [k.x, k.y]),
      names: d.keypoints3d.map((k) => k.name),
      lastPerson: d,
      confidenceSum: 0,
      totalFrames: 0,
      stats: { movementDistance: 0, averageSpeed: 0, timeStationary: 0, timeMoving: 0 },
      trajectory: [],
      recent: [],
      reidentifications: 0,
      upstream,
      held: o.upstream_min_evidence > 0 && d.evidence !== undefined ? new HeldEvidence(o.upstream_min_evidence, o.upstream_evidence_window_s) : null,
    };
    this.#tracks.set(t.key, t);
    if (upstream !== null) this.#upstream.set(upstream, t);
    this.counters.tracksCreated++;
    return this.#apply(t, d, shape, timestamp, false, true);
  }

  #apply(t: Track, d: Person, shape: number[][], timestamp: number, reidentified: boolean, fresh = false): Person {
    const o = this.options;
    if (!fresh) t.kalman.update(d.position.x, d.position.y);
    const gapS = Math.min((timestamp - t.lastSeen) / 1000, 2);
    t.hits++;
    t.misses = 0;
    t.lastSeen = timestamp;
    t.totalFrames++;
    t.confidenceSum += d.confidence;
    const a = o.keypoint_smoothing;
    if (!fresh && t.shape.length === shape.length) {
      t.shape = t.shape.map((s, i) => [s[0] + a * (shape[i][0] - s[0]), s[1] + a * (shape[i][1] - s[1]), s[2] + a * (shape[i][2] - s[2])]);
    } else t.shape = shape;
    if (!fresh && t.shape2d.length === d.keypoints.length) t.shape2d = t.shape2d.map((s, i) => [s[0] + a * (d.keypoints[i].x - s[0]), s[1] + a * (d.keypoints[i].y - s[1])]);
    else t.shape2d = d.keypoints.map((k) => [k.x, k.y]);
    t.names = d.keypoints3d.map((k) => k.name);

    if (reidentified) {
      t.reidentifications++;
      this.counters.reidentifications++;
      this.#transition(t, 'active', timestamp, 're-identified');
      t.status = 'active';
    } else if (t.status === 'lost') {
      this.#transition(t, 'active', timestamp, 'recovered');
      t.status = 'active';
    } else if (t.status === 'tentative' && t.hits >= (t.upstream === null ? o.tracking_min_hits : o.upstream_min_hits)) {
      t.id = this.#nextId++;
      this.#transition(t, 'active', timestamp, 'confirmed');
      t.status = 'active';
    }

    this.#weigh(t, timestamp, d.evidence ?? 0);

    const [kx, ky, vx, vy] = t.kalman.state;
    // An upstream tracker already filtered its position: smoothing it again only adds lag.
    const [x, y] = t.upstream === null ? [kx, ky] : [d.position.x, d.position.y];
    // Movement uses the displacement of the filtered position over speed_window_seconds:
    // steadier than the instantaneous Kalman velocity when detections jitter.
    t.recent.push({ t: timestamp, x, y });
    while (t.recent.length > 2 && timestamp - t.recent[1].t >= o.speed_window_seconds * 1000) t.recent.shift();
    const first = t.recent[0];
    const span = (timestamp - first.t) / 1000;
    const speed = span > 0 ? Math.hypot(x - first.x, y - first.y) / span : 0;
    if (!fresh && gapS > 0) {
      if (speed >= o.stationary_speed) {
        t.stats.timeMoving += gapS;
        t.stats.movementDistance += speed * gapS;
      } else t.stats.timeStationary += gapS;
      const total = t.stats.timeMoving + t.stats.timeStationary;
      t.stats.averageSpeed = total > 0 ? t.stats.movementDistance / total : 0;
    }
    const keypoints3d: Keypoint3D[] = t.shape.map((s, i) => ({ name: t.names[i], x: x + s[0], y: y + s[1], z: s[2], confidence: d.keypoints3d[i]?.confidence ?? d.confidence }));
    const keypoints: Keypoint[] = d.keypoints.map((k, i) => ({ ...k, x: t.shape2d[i]?.[0] ?? k.x, y: t.shape2d[i]?.[1] ?? k.y }));
    const person: Person = {
      ...d,
      trackId: t.id,
      trackStatus: t.held ? 'tentative' : t.status,
      trackAge: t.age,
      velocity: { x: vx, y: vy },
      position: { x, y },
      keypoints,
      keypoints3d,
    };
    t.lastPerson = person;
    if (o.trajectory_limit > 0) {
      const box = d.boundingBox;
      t.trajectory.push({ timestamp, centerX: box ? box.x + box.width / 2 : 0, centerY: box ? box.y + box.height / 2 : 0, position: { x, y }, confidence: d.confidence });
      if (t.trajectory.length > o.trajectory_limit) t.trajectory.splice(0, t.trajectory.length - o.trajectory_limit);
    }
    return person;
  }

  /** Held evidence: one estimate of a confirmed id not shown yet; the id is confirmed to the user when the mean reaches the bar. */
  #weigh(t: Track, timestamp: number, evidence: number): void {
    if (t.id === null || !t.held || !t.held.add(timestamp, evidence)) return;
    t.held = null;
    this.#transition(t, t.status, timestamp, 'confirmed', 'tentative');
  }

  #transition(t: Track, to: TrackStatus, timestamp: number, reason: string, from: TrackStatus = t.status): void {
    // Tentative tracks, and ids held back for their evidence, report nothing: they are candidates, not people.
    if (t.id === null || t.held) return;
    this.#transitions.push({ trackId: t.id, environmentId: t.environmentId, timestamp, from, to, reason });
  }

  #end(t: Track, timestamp: number): void {
    this.#transition(t, 'ended', timestamp, 'ended');
    t.status = 'ended';
    this.#tracks.delete(t.key);
    if (t.upstream !== null && this.#upstream.get(t.upstream) === t) this.#upstream.delete(t.upstream);
    this.#ended.push(t);
    const keep = this.options.ended_retention;
    if (this.#ended.length > keep) this.#ended.splice(0, this.#ended.length - keep);
  }

  /** End every open track (end of a stream): active and lost tracks become 'ended'. */
  finish(timestamp?: number): void {
    for (const t of [...this.#tracks.values()]) {
      if (t.status === 'tentative') {
        this.#tracks.delete(t.key);
        this.counters.tracksDiscarded++;
      } else this.#end(t, timestamp ?? t.lastSeen);
    }
  }

  /** Lifecycle changes since the previous call. */
  takeTransitions(): TrackTransition[] {
    const out = this.#transitions;
    this.#transitions = [];
    return out;
  }

  /** One track (open or recently ended) as a storage-style TrackSummary; null when unknown. */
  track(trackId: number, options: { includeTrajectory?: boolean } = {}): TrackSummary | null {
    const shown = (e: Track) => e.id === trackId && !e.held;
    const t = [...this.#tracks.values()].find(shown) ?? this.#ended.find(shown);
    return t ? summarise(t, options.includeTrajectory ?? false) : null;
  }

  /** Tracks, most recently seen first: open confirmed ones and retained ended ones (tentative candidates have no id yet; ids held back for their evidence are not listed). */
  tracks(options: { environmentId?: string; status?: TrackStatus[]; includeTrajectory?: boolean } = {}): TrackSummary[] {
    const all = [...this.#tracks.values(), ...this.#ended]
      .filter((t) => t.id !== null && !t.held && (!options.environmentId || t.environmentId === options.environmentId) && (!options.status || options.status.includes(t.status)));
    return all.sort((a, b) => b.lastSeen - a.lastSeen).map((t) => summarise(t, options.includeTrajectory ?? false));
  }

  /** How many tracks are active now. */
  activeCount(environmentId?: string): number {
    let n = 0;
    for (const t of this.#tracks.values()) if (t.status === 'active' && !t.held && (!environmentId || t.environmentId === environmentId)) n++;
    return n;
  }
}

function summarise(t: Track, includeTrajectory: boolean): TrackSummary {
  const round = (v: number) => Math.round(v * 1000) / 1000;
  const summary: TrackSummary = {
    trackId: t.id as number,
    environmentId: t.environmentId,
    personId: t.lastPerson.id,
    firstSeen: t.firstSeen,
    lastSeen: t.lastSeen,
    durationSeconds: (t.lastSeen - t.firstSeen) / 1000,
    totalFrames: t.totalFrames,
    averageConfidence: t.totalFrames ? round(t.confidenceSum / t.totalFrames) : 0,
    status: t.status,
    statistics: { movementDistance: round(t.stats.movementDistance), averageSpeed: round(t.stats.averageSpeed), timeStationary: round(t.stats.timeStationary), timeMoving: round(t.stats.timeMoving) },
  };
  if (includeTrajectory) summary.trajectory = t.trajectory.map((p) => ({ ...p, position: { ...p.position } }));
  return summary;
}
