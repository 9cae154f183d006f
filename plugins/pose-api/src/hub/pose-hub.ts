import { performance } from 'node:perf_hooks';
import { withoutHeldPersons } from '@wiflow/analytics-common';
import type { Activity, Alert, AnalyticsEvent, Logger, PoseActivitySource, PoseFrame, SensingActivity, SensingFrame, Storage } from '@wiflow/core';

/** Receives what the hub publishes (the WebSocket stream, tests). */
export interface HubListener {
  /** `outputAt` is performance.now() when the pipeline handed the frame to the hub. */
  frame?(frame: PoseFrame, outputAt: number): void;
  alert?(alert: Alert): void;
  event?(event: AnalyticsEvent): void;
  /** A sensing frame kept for the room (local or from the cluster's live feed), once per instance. */
  sensing?(frame: SensingFrame): void;
}

/**
 * Where a cluster instance sends what its local pipeline produces (cluster mode): to NATS,
 * from where every instance's live feed brings it back to its hub.
 */
export interface HubOutlet {
  frame(frame: PoseFrame): Promise<void>;
  alert(alert: Alert): Promise<void>;
  sensing(frame: SensingFrame): Promise<void>;
}

/** A sensing frame further than this from a pose frame's time gives it no activity. */
export const SENSING_MATCH_WINDOW_MS = 15_000;
/** Sensing frames kept per environment (seconds of history). */
const SENSING_HISTORY = 60;

const SENSED_ACTIVITY: Record<SensingActivity, Activity | null> = { walking: 'walking', standing: 'standing', sitting: 'sitting', lying: 'lying', fall: 'falling', other: null };

/** Hub figures for status and metrics. */
export interface HubCounters {
  framesPublished: number;
  framesWritten: number;
  eventsPublished: number;
  alertsPublished: number;
  sensingPublished: number;
  writeErrors: number;
  /** Frames waiting for the next storage write. */
  pendingWrites: number;
  lastFrameAt: number | null;
  lastWriteError: string | null;
}

/**
 * Where pipeline output meets the API: the latest frame per environment, fan-out to
 * listeners, and batched storage writes. One per runtime (service token PoseHubToken).
 * In cluster mode an outlet is set: the local pipeline's output goes to NATS, the hub is fed
 * by the cluster's live feed (`acceptFrame`, `acceptAlert`) and storage by the cluster's
 * shared storage consumer (`writeFrames`, `writeAlerts`).
 */
export class PoseHub {
  readonly #latest = new Map<string, PoseFrame>();
  #latestAny: PoseFrame | undefined;
  readonly #listeners = new Set<HubListener>();
  #pending: PoseFrame[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  readonly counters: HubCounters = { framesPublished: 0, framesWritten: 0, eventsPublished: 0, alertsPublished: 0, sensingPublished: 0, writeErrors: 0, pendingWrites: 0, lastFrameAt: null, lastWriteError: null };
  /** [publish time, persons] of recent frames (last 60 s at most), for rates. */
  readonly #recent: [number, number][] = [];
  #outlet: HubOutlet | undefined;
  /** Per environment: the last frame id the producer sent and the id it was published as. */
  readonly #numbering = new Map<string, { lastRaw: number; lastPublished: number }>();
  /** Per environment: reading storage's newest frame id before the first frame is published. */
  readonly #seeding = new Map<string, Promise<void>>();
  /** Per environment: the recent sensing frames (room frames, or link frames where the room has none), oldest first. */
  readonly #sensing = new Map<string, SensingFrame[]>();

  constructor(
    private readonly storage: () => Storage | undefined,
    private readonly batching: () => { batchSize: number; flushIntervalMs: number },
    private readonly logger: Logger,
  ) {}

  /** Latest frame of an environment, or the newest of any. */
  latest(environmentId?: string): PoseFrame | undefined {
    return environmentId === undefined ? this.#latestAny : this.#latest.get(environmentId);
  }

  /** Environments seen since the hub was created. */
  environments(): string[] {
    return [...this.#latest.keys()];
  }

  /** Frames published per second over the last 10 seconds. */
  framesPerSecond(now = Date.now()): number {
    this.#trim(now);
    let n = 0;
    for (let i = this.#recent.length - 1; i >= 0 && this.#recent[i][0] >= now - 10_000; i--) n++;
    return n / 10;
  }

  /** Persons published over the last 60 seconds. */
  detectionsPerMinute(now = Date.now()): number {
    this.#trim(now);
    let n = 0;
    for (const [, persons] of this.#recent) n += persons;
    return n;
  }

  #trim(now: number): void {
    let drop = 0;
    while (drop < this.#recent.length && this.#recent[drop][0] < now - 60_000) drop++;
    if (drop) this.#recent.splice(0, drop);
  }

  /** Persons in the latest frame of every environment. */
  activePersons(): number {
    let n = 0;
    for (const frame of this.#latest.values()) n += frame.persons.length;
    return n;
  }

  subscribe(listener: HubListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  /** Send the pipeline's output through `outlet` (cluster mode), or handle it here again (undefined). */
  route(outlet: HubOutlet | undefined): void {
    this.#outlet = outlet;
  }

  /** Whether pipeline output goes to a cluster outlet. */
  get routed(): boolean {
    return this.#outlet !== undefined;
  }

  /**
   * A sensing frame from the pipeline (`pose.publish`'s sensing input): stored (the healthcare reports read
   * them), and kept a minute per environment for the pose frames' activity and the occupancy answer. Room
   * frames win over link frames of the same room there.
   */
  publishSensing(frame: SensingFrame): void | Promise<void> {
    // A value that is not a sensing frame throws here, before anything is sent or stored.
    assertSensingFrame(frame);
    // Cluster mode: to sensing.<environment>; every instance's live feed brings it back (acceptSensing)
    // and one storage writer stores it (writeSensing).
    if (this.#outlet) return this.#outlet.sensing(frame);
    this.#keepSensing(frame);
    return this.storage()?.sensing.append([frame]);
  }

  /** A sensing frame to keep for activity and occupancy, not to store: the cluster's live feed. */
  acceptSensing(frame: SensingFrame): void {
    this.#keepSensing(frame);
  }

  /** Store sensing frames now; throws when storage fails (redelivered by the cluster's storage consumer). */
  async writeSensing(frames: SensingFrame[]): Promise<void> {
    const storage = this.storage();
    if (!storage || !frames.length) return;
    await storage.sensing.append(frames);
    await storage.flush();
  }

  #keepSensing(frame: SensingFrame): void {
    assertSensingFrame(frame);
    this.counters.sensingPublished++;
    for (const listener of this.#listeners) {
      try {
        listener.sensing?.(frame);
      } catch (error) {
        this.logger.warn('sensing listener failed', { error: String(error) });
      }
    }
    let list = this.#sensing.get(frame.environmentId);
    if (!list) this.#sensing.set(frame.environmentId, (list = []));
    if (frame.scope === 'link' && list.some((f) => f.scope === 'room')) return;
    if (frame.scope === 'room' && list.some((f) => f.scope === 'link')) list.splice(0, list.length);
    let i = list.length;
    while (i > 0 && list[i - 1].time > frame.time) i--;
    list.splice(i, 0, frame);
    while (list.length && list[list.length - 1].time - list[0].time > SENSING_HISTORY * 1000) list.shift();
  }

  /** The newest sensing frame of an environment, or undefined when it has none. */
  latestSensing(environmentId: string): SensingFrame | undefined {
    return this.#sensing.get(environmentId)?.at(-1);
  }

  /**
   * The sensing frame for a time: the one whose second covers it, else the nearest within
   * SENSING_MATCH_WINDOW_MS (a room's frames come a few seconds after the second they describe).
   */
  sensingAt(environmentId: string, time: number): SensingFrame | undefined {
    const list = this.#sensing.get(environmentId);
    if (!list?.length) return undefined;
    let best: SensingFrame | undefined;
    let bestDistance = Infinity;
    for (const f of list) {
      if (f.time - 1000 < time && time <= f.time) return f;
      const distance = Math.abs(f.time - 500 - time);
      if (distance < bestDistance) [best, bestDistance] = [f, distance];
    }
    return bestDistance <= SENSING_MATCH_WINDOW_MS ? best : undefined;
  }

  /**
   * When the environment has sensing, the persons' activity is the sensing frame's for that time (one person),
   * or null with the reason in `metadata.activitySource` (several people, unknown posture, no frame near).
   */
  #withSensedActivity(frame: PoseFrame): PoseFrame {
    if (!this.#sensing.has(frame.environmentId) || frame.persons.length === 0) return frame;
    const sensed = this.sensingAt(frame.environmentId, frame.timestamp);
    let activity: Activity | null = null;
    let nullReason: PoseActivitySource['nullReason'] = null;
    if (!sensed) nullReason = 'no_sensing_frame';
    else if (!sensed.presence) nullReason = 'room_empty';
    else if (frame.persons.length > 1) nullReason = 'several_people';
    else if (sensed.activity === null) nullReason = sensed.state === 'moving' ? 'other_movement' : 'posture_unknown';
    else {
      activity = SENSED_ACTIVITY[sensed.activity];
      if (activity === null) nullReason = 'other_movement';
    }
    const activitySource: PoseActivitySource = { kind: 'sensing', estimatorId: sensed?.estimatorId ?? null, configHash: sensed?.configHash ?? null, provenance: sensed?.provenance ?? null, nullReason };
    return { ...frame, persons: frame.persons.map((p) => ({ ...p, activity })), metadata: { ...frame.metadata, activitySource } };
  }

  /** A frame from the pipeline, without held persons: latest, listeners, storage batch; or, in cluster mode, to the cluster. */
  publishFrame(input: PoseFrame): void | Promise<void> {
    if (!input || typeof input !== 'object' || !Array.isArray(input.persons) || typeof input.environmentId !== 'string') {
      throw new TypeError('pose.publish received something that is not a PoseFrame');
    }
    // A person whose id the tracker holds back (opt-in held evidence) is not a person to the API, the stream,
    // occupancy or storage, as analytics count none: the spec's Person has no field for a track's status.
    const frame = this.#withSensedActivity(withoutHeldPersons(input));
    if (this.#outlet) return this.#outlet.frame(frame);
    const environmentId = frame.environmentId;
    if (!this.#numbering.has(environmentId)) {
      const seeding = this.#seeding.get(environmentId) ?? this.#seed(environmentId);
      this.#seeding.set(environmentId, seeding);
      return seeding.then(() => this.#publishLocal(frame));
    }
    this.#publishLocal(frame);
  }

  /** Start an environment's numbering after the newest stored frame id, so ids continue across restarts. */
  async #seed(environmentId: string): Promise<void> {
    let lastPublished = 0;
    const storage = this.storage();
    if (storage) {
      try {
        lastPublished = (await storage.poses.latest({ environmentId }))?.frameId ?? 0;
      } catch (error) {
        this.logger.warn('reading the newest stored frame id failed: frame ids start again', { environmentId, error: String(error) });
      }
    }
    if (!this.#numbering.has(environmentId)) this.#numbering.set(environmentId, { lastRaw: Number.POSITIVE_INFINITY, lastPublished });
  }

  /**
   * A producer numbers its frames from its own start (pose.estimate from 1): when its ids go
   * back (a new pipeline, a restarted server), publish them after the last one published, so
   * a frame id names one frame of the environment, in order, across restarts.
   */
  #renumber(frame: PoseFrame): PoseFrame {
    const numbering = this.#numbering.get(frame.environmentId)!;
    const raw = frame.frameId;
    const id = raw > numbering.lastRaw ? numbering.lastPublished + (raw - numbering.lastRaw) : numbering.lastPublished + 1;
    numbering.lastRaw = raw;
    numbering.lastPublished = id;
    return id === raw ? frame : { ...frame, frameId: id };
  }

  #publishLocal(original: PoseFrame): void {
    const frame = this.#renumber(original);
    this.acceptFrame(frame);
    if (!this.storage()) return;
    this.#pending.push(frame);
    this.counters.pendingWrites = this.#pending.length;
    const { batchSize, flushIntervalMs } = this.batching();
    if (this.#pending.length >= batchSize) void this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => void this.flush(), flushIntervalMs);
      this.#timer.unref();
    }
  }

  /** A frame to show (latest, listeners), not to store: the cluster's live feed. */
  acceptFrame(frame: PoseFrame): void {
    const outputAt = performance.now();
    this.#latest.set(frame.environmentId, frame);
    this.#latestAny = frame;
    this.counters.framesPublished++;
    this.counters.lastFrameAt = Date.now();
    this.#recent.push([this.counters.lastFrameAt, frame.persons.length]);
    if (this.#recent.length > 20_000) this.#trim(this.counters.lastFrameAt);
    for (const listener of this.#listeners) {
      try {
        listener.frame?.(frame, outputAt);
      } catch (error) {
        this.logger.warn('pose listener failed', { error: String(error) });
      }
    }
  }

  /**
   * Store frames durably now, counted; throws when storage fails (the cluster's storage
   * consumer acknowledges only after this resolved, and redelivers otherwise).
   */
  async writeFrames(frames: PoseFrame[]): Promise<void> {
    const storage = this.storage();
    if (!storage || !frames.length) return;
    try {
      await storage.poses.append(frames);
      // append resolves once buffered: flush, so an acknowledged frame is on disk.
      await storage.flush();
      this.counters.framesWritten += frames.length;
    } catch (error) {
      this.counters.writeErrors++;
      this.counters.lastWriteError = String(error);
      throw error;
    }
  }

  /** Record an analytics event: listeners and storage. */
  async publishEvent(event: AnalyticsEvent): Promise<void> {
    this.counters.eventsPublished++;
    for (const listener of this.#listeners) listener.event?.(event);
    await this.storage()?.events.append([event]);
  }

  /** An alert from the pipeline: listeners and storage; or, in cluster mode, to the cluster. */
  async publishAlert(alert: Alert): Promise<void> {
    if (this.#outlet) return this.#outlet.alert(alert);
    this.acceptAlert(alert);
    await this.storage()?.alerts.append([alert]);
  }

  /** An alert to show (listeners), not to store: the cluster's live feed. */
  acceptAlert(alert: Alert): void {
    this.counters.alertsPublished++;
    for (const listener of this.#listeners) {
      try {
        listener.alert?.(alert);
      } catch (error) {
        this.logger.warn('alert listener failed', { error: String(error) });
      }
    }
  }

  /** Store alerts now; throws when storage fails (redelivered by the cluster's storage consumer). */
  async writeAlerts(alerts: Alert[]): Promise<void> {
    await this.storage()?.alerts.append(alerts);
  }

  /** Write the pending batch; resolves when storage took it. */
  flush(): Promise<void> {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const batch = this.#pending;
    this.#pending = [];
    this.counters.pendingWrites = 0;
    const storage = this.storage();
    if (!batch.length || !storage) return this.#writing;
    this.#writing = this.#writing.then(async () => {
      try {
        await storage.poses.append(batch);
        this.counters.framesWritten += batch.length;
      } catch (error) {
        this.counters.writeErrors++;
        this.counters.lastWriteError = String(error);
        this.logger.error('writing pose frames failed', { frames: batch.length, error: String(error) });
      }
    });
    return this.#writing;
  }

  /**
   * Forget the latest frames (the system stopped: no stale frame is served as live). Not in
   * cluster mode: the latest frames are the cluster's, and other instances still produce them.
   */
  clearLatest(): void {
    if (this.#outlet) return;
    this.#latest.clear();
    this.#latestAny = undefined;
  }
}

function assertSensingFrame(frame: SensingFrame): void {
  if (!frame || typeof frame !== 'object' || typeof frame.environmentId !== 'string' || typeof frame.time !== 'number' || !['empty', 'still', 'moving'].includes(frame.state)) {
    throw new TypeError('pose.publish received something that is not a SensingFrame on its sensing input');
  }
}
