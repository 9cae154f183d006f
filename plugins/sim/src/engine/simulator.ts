import type { CsiFrame, GroundTruthEvent, GroundTruthFrame, GroundTruthPerson } from '@wiflow/core';
import { createVirtualCamera, defaultCamera, type VirtualCamera } from '../camera/virtual-camera.js';
import type { Vec3 } from '../geometry/vec3.js';
import { bodyStateOf, LinkChannel, type BodyState, type PathRecord, type Scatterer } from '../physics/link-channel.js';
import { SPEED_OF_LIGHT, SUBCARRIER_SPACING_HZ } from '../physics/constants.js';
import type { MaterialName } from '../physics/materials.js';
import type { RoomGeometry } from '../physics/room.js';
import { PersonTimeline, personBreathing } from '../people/timeline.js';
import type { BreathingPattern } from '../people/breathing.js';
import { bodySegments, forwardKinematics, type Skeleton } from '../people/skeleton.js';
import { Prng } from '../random/prng.js';
import { antennaPositions } from '../radio/antennas.js';
import { subcarrierGrid, type DeviceKind, type SubcarrierGrid } from '../radio/grids.js';
import { applyImpairments, drawChainPhases, drawPacketImpairment, IMPAIRMENTS_OFF, type ImpairmentSettings } from '../radio/impairments.js';
import { antennaPattern } from '../radio/patterns.js';
import { RadioRealism, radioRealismOn } from '../radio/radio-realism.js';
import { DistractorScene, type CapturePhase } from '../scene/distractors.js';
import { StaticDrift } from '../scene/drift.js';
import { resolveScenario } from '../scenario/load.js';
import type { ImpairmentSpec, RadioSpec, Scenario, ScenarioInput } from '../scenario/schema.js';

/** Wall-clock time of t = 0 when the scenario does not say: 2026-01-01T00:00:00Z. */
export const DEFAULT_START_TIME_MS = Date.UTC(2026, 0, 1);

/** How to run a scenario. */
export interface SimulatorOptions {
  /** Seed of every random draw; default the scenario's `seed`. */
  seed?: number;
  /**
   * Seed of the installation's draws (clutter phases, radio chain phases and hardware, static
   * drift, distractors); default `seed`. Giving it apart from `seed` re-draws only the noise:
   * the same radios in the same room, so an empty-room reference recorded once stays valid.
   */
  hardwareSeed?: number;
  /** Attach each tick's GroundTruthFrame to its frames as `frame.truth` (default true). */
  attachTruth?: boolean;
  /** Wall-clock ms of t = 0; default the scenario's `startTime`, else 2026-01-01T00:00:00Z. */
  startTimeMs?: number;
  /** Override the impairments of every receiver ('off' for the clean channel). */
  impairments?: Partial<ImpairmentSettings> | 'off';
  /** Added to every frame's `timestamp` (µs), so restarted runs stay monotonic per source. */
  timestampOffsetUs?: number;
  /**
   * 'recording' (default) or 'reference': the installation's empty-room capture, with the
   * scenario's `drift` undone (furniture where it was, doors as they were, radios before
   * re-plugging, the reference's own seed and hardware statistics) and nobody in the room.
   * Without `drift` or distractors the reference is the scenario with its people removed.
   */
  phase?: CapturePhase;
}

/** One instant of the simulation: a frame per link (lost packets left out) and the ground truth. */
export interface SimTick {
  /** Tick number from 0. */
  index: number;
  /** Simulation time (s). */
  t: number;
  /** Wall-clock ms. */
  time: number;
  frames: CsiFrame[];
  truth: GroundTruthFrame;
}

/** A link of the simulation, as callers see it. */
export interface SimLinkInfo {
  /** `<tx>-><rx>`. */
  id: string;
  tx: string;
  rx: string;
  device: DeviceKind;
  grid: SubcarrierGrid;
  ntx: number;
  nrx: number;
  /** Source id of the frames (the receiver). */
  sourceId: string;
}

interface LinkRuntime {
  info: SimLinkInfo;
  channel: LinkChannel;
  impairments: ImpairmentSettings;
  txChainPhase: Float64Array;
  rxChainPhase: Float64Array;
  prng: Prng;
  sequence: number;
  /** Offset of this transmitter's packets within a period (s): links into one receiver take turns. */
  slot: number;
  slotWidth: number;
  re: Float64Array;
  im: Float64Array;
  /** Hardware beyond the per-packet impairments (null when no realism option is on). */
  realism: RadioRealism | null;
  /** Slow drift of the static channel (null without `drift.staticDrift`). */
  drift: StaticDrift | null;
  /** Draws of the reported RSSI's error (null without `rssiNoiseDb`): a stream of its own, so the CSI keeps its bytes. */
  rssiPrng: Prng | null;
}

/** `prng` after `n` draws (the state a shared root would have reached). */
function skipDraws(prng: Prng, n: number): Prng {
  for (let i = 0; i < n; i++) prng.nextUint32();
  return prng;
}

const deg = (d: number) => (d * Math.PI) / 180;
const v3 = (p: readonly number[]): Vec3 => ({ x: p[0], y: p[1], z: p[2] });

/** Whether a floor point is inside a polygon (even-odd rule). */
export function pointInPolygon(x: number, y: number, polygon: readonly (readonly number[])[]): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i];
    const [xj, yj] = polygon[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** Room geometry of a scenario, with a material per surface. */
export function roomGeometry(s: Scenario): RoomGeometry {
  const m = s.room.materials;
  const wall = (name: 'west' | 'east' | 'south' | 'north') => (m[name] ?? m.walls) as MaterialName;
  return {
    width: s.room.width,
    depth: s.room.depth,
    height: s.room.height,
    materials: { west: wall('west'), east: wall('east'), south: wall('south'), north: wall('north'), floor: m.floor as MaterialName, ceiling: m.ceiling as MaterialName },
  };
}

/** The virtual camera of a scenario (its `camera`, else the room's default camera). */
export function scenarioCamera(s: Scenario): VirtualCamera {
  if (!s.camera) return defaultCamera(s.room);
  return createVirtualCamera({ position: v3(s.camera.position), lookAt: v3(s.camera.lookAt), width: s.camera.width, height: s.camera.height, horizontalFovDeg: s.camera.horizontalFovDeg });
}

/**
 * Runs a scenario: advances time tick by tick at the channel rate, moves the people along
 * their scripts, computes each link's channel from the room, clutter and bodies, applies the
 * receiver's impairments and emits canonical `CsiFrame`s with the ground truth of the instant.
 * Deterministic: the same scenario and seed give the same frames, bit for bit.
 */
export class Simulator {
  readonly scenario: Scenario;
  readonly environmentId: string;
  readonly camera: VirtualCamera;
  readonly room: RoomGeometry;
  readonly rateHz: number;
  readonly startTimeMs: number;
  readonly links: readonly SimLinkInfo[];
  readonly #links: LinkRuntime[] = [];
  readonly #people: PersonTimeline[];
  readonly #attachTruth: boolean;
  readonly #timestampOffsetUs: number;
  readonly #zoneState = new Map<number, Set<string>>();
  readonly #scene: DistractorScene | null;
  readonly #driftOffsetS: number;
  /** Whether this simulator makes the empty-room reference or the recording. */
  readonly phase: CapturePhase;
  #index = 0;
  #lastT = -Infinity;
  readonly #seed: number | string;
  #breathingTruth: Map<number, BreathingPattern> | undefined;

  constructor(source: Scenario | ScenarioInput | string, options: SimulatorOptions = {}) {
    const resolved = resolveScenario(source);
    const phase = options.phase ?? 'recording';
    this.phase = phase;
    // The reference is an empty room; without drift that is all that differs (same draws, same bytes).
    const s = phase === 'reference' && resolved.people.length ? { ...resolved, people: [] } : resolved;
    this.scenario = s;
    const drift = s.drift;
    this.environmentId = s.environmentId;
    this.camera = scenarioCamera(s);
    this.room = roomGeometry(s);
    this.rateHz = s.channel.rateHz;
    this.#attachTruth = options.attachTruth ?? true;
    this.#timestampOffsetUs = options.timestampOffsetUs ?? 0;
    this.startTimeMs = options.startTimeMs ?? parseStartTime(s.startTime);
    const seed = options.seed ?? s.seed;
    this.#seed = seed;
    const installSeed = options.hardwareSeed ?? seed;
    const root = new Prng(installSeed);
    const chainPrng = root.fork('chains');
    const clutterPrng = root.fork('clutter');
    // Noise drawn apart from the installation starts where the installation's two draws left the root, so one seed for both gives the same bytes as before.
    const noiseRoot = installSeed === seed ? root : skipDraws(new Prng(seed), 2);
    // The reference capture may have its own per-packet draws; chain phases and clutter stay the room's and the radios'.
    const packetRoot = phase === 'reference' && drift?.referenceSeed !== undefined ? new Prng(drift.referenceSeed) : noiseRoot;
    const lambda = SPEED_OF_LIGHT / s.channel.centerFrequencyHz;
    const clutter: Scatterer[] = s.clutter.map((c, i) => ({ label: c.label ?? `clutter ${i}`, position: v3(c.position), rcs: c.rcs, phase: clutterPrng.uniform(-Math.PI, Math.PI) }));
    if (phase === 'recording' && drift) {
      for (const move of drift.moved) {
        const i = typeof move.clutter === 'number' ? move.clutter : s.clutter.findIndex((c) => c.label === move.clutter);
        if (clutter[i]) clutter[i] = { ...clutter[i], position: v3(move.to) };
      }
    }
    const radios = new Map(s.radios.map((r) => [r.id, r]));
    const chainPhases = new Map<string, Float64Array>();
    const phasesOf = (r: RadioSpec, imp: ImpairmentSettings) => {
      let v = chainPhases.get(r.id);
      if (!v) {
        v = drawChainPhases(chainPrng, r.antennas, imp.chainPhase);
        // A radio plugged in again after the reference comes up with new chain phases, nothing else.
        if (phase === 'recording' && drift?.replugged.includes(r.id)) v = drawChainPhases(new Prng(`${installSeed}:replugged:${r.id}`), r.antennas, imp.chainPhase);
        chainPhases.set(r.id, v);
      }
      return v;
    };
    this.#scene = s.distractors?.length ? new DistractorScene(s.distractors, this.room, installSeed, phase) : null;
    this.#driftOffsetS = phase === 'recording' ? (drift?.staticDrift?.elapsedS ?? 0) : 0;
    const linkSpecs = s.links ?? s.radios.filter((r) => r.role === 'tx').flatMap((tx) => s.radios.filter((r) => r.role === 'rx').map((rx) => ({ tx: tx.id, rx: rx.id })));
    const perRx = new Map<string, number>();
    for (const l of linkSpecs) perRx.set(l.rx, (perRx.get(l.rx) ?? 0) + 1);
    const slotIndex = new Map<string, number>();
    for (const l of linkSpecs) {
      const tx = radios.get(l.tx)!;
      const rx = radios.get(l.rx)!;
      const device = rx.device as DeviceKind;
      const grid = subcarrierGrid(device, s.channel.bandwidthMHz, rx.esp32Field);
      const impairments = resolveImpairments(s, rx, options.impairments, phase === 'reference' ? drift?.reference : undefined);
      const channel = new LinkChannel({
        room: this.room,
        maxReflectionOrder: s.propagation.maxReflectionOrder,
        centerFrequencyHz: s.channel.centerFrequencyHz,
        indices: grid.indices,
        txAntennas: antennaPositions({ position: v3(tx.position), yaw: deg(tx.yawDeg), count: tx.antennas, spacing: tx.spacing ?? lambda / 2 }),
        rxAntennas: antennaPositions({ position: v3(rx.position), yaw: deg(rx.yawDeg), count: rx.antennas, spacing: rx.spacing ?? lambda / 2 }),
        clutter,
        shadowing: s.propagation.shadowing,
        bodyScattering: s.propagation.bodyScattering,
        bodyBounces: s.propagation.bodyBounces,
        reverberation: s.propagation.reverberation
          ? { decayS: s.propagation.reverberation.decayNs * 1e-9, staticTail: s.propagation.reverberation.staticTail, bodyDiffuse: s.propagation.reverberation.bodyDiffuse, bodyDirections: s.propagation.reverberation.bodyDirections, seed: `${installSeed}:reverberation:${l.tx}->${l.rx}` }
          : null,
        bodyReflectivity: s.propagation.bodyReflectivity,
        txPattern: antennaPattern(tx.pattern, deg(tx.yawDeg)),
        rxPattern: antennaPattern(rx.pattern, deg(rx.yawDeg)),
      });
      const k = slotIndex.get(l.rx) ?? 0;
      slotIndex.set(l.rx, k + 1);
      const slotWidth = 1 / this.rateHz / (perRx.get(l.rx) ?? 1);
      const info: SimLinkInfo = { id: `${l.tx}->${l.rx}`, tx: l.tx, rx: l.rx, device, grid, ntx: tx.antennas, nrx: rx.antennas, sourceId: `sim:${s.environmentId}:${l.rx}` };
      const size = tx.antennas * rx.antennas * grid.indices.length;
      this.#links.push({
        info,
        channel,
        impairments,
        txChainPhase: phasesOf(tx, impairments),
        rxChainPhase: phasesOf(rx, impairments),
        prng: packetRoot.fork(`link:${info.id}`),
        sequence: 0,
        slot: k * slotWidth,
        slotWidth,
        re: new Float64Array(size),
        im: new Float64Array(size),
        realism: radioRealismOn(impairments)
          ? new RadioRealism(impairments, tx.antennas, rx.antennas, grid.indices, `${installSeed}:hardware:${rx.id}`, `${phase === 'reference' ? (drift?.referenceSeed ?? seed) : seed}:${phase}:radio:${info.id}`)
          : null,
        drift: drift?.staticDrift ? new StaticDrift(channel.staticPathOrders, drift.staticDrift, `${installSeed}:drift:${info.id}`) : null,
        // Seeded by name, not forked from packetRoot: a fork draws from its parent and would move every later link's packets.
        rssiPrng: impairments.rssiNoiseDb ? new Prng(`${phase === 'reference' ? (drift?.referenceSeed ?? seed) : seed}:${phase}:rssi:${info.id}`) : null,
      });
    }
    this.links = this.#links.map((l) => l.info);
    this.#people = s.people.map((p) => new PersonTimeline(p, seed));
  }

  /**
   * The mean breathing rate of a person over [t0, t1] s (breaths per minute, breaths and parts of breaths in
   * the window over its length), from the breaths the CSI carries; null for an unknown person. The truth a
   * breathing estimate over that window is scored against.
   */
  breathingRateBetween(personId: number, t0: number, t1: number): number | null {
    const spec = this.scenario.people.find((p) => p.id === personId);
    if (!spec) return null;
    this.#breathingTruth ??= new Map();
    let pattern = this.#breathingTruth.get(personId);
    // Its own copy: the timelines forget old breaths as the run advances, the truth may look back a window.
    if (!pattern) this.#breathingTruth.set(personId, (pattern = personBreathing(spec, this.#seed)));
    return pattern.rateBetween(t0, t1);
  }

  /** Simulation time of the next tick (s). */
  get time(): number {
    return this.#index / this.rateHz;
  }

  /** The people's skeletons at time t (absent people left out). */
  skeletonsAt(t: number): { personId: number; skeleton: Skeleton; activity: GroundTruthPerson['activity'] }[] {
    const out: { personId: number; skeleton: Skeleton; activity: GroundTruthPerson['activity'] }[] = [];
    for (const p of this.#people) {
      const sample = p.sample(t);
      if (!sample.pose) continue;
      out.push({ personId: p.spec.id, skeleton: forwardKinematics(p.dim, sample.pose), activity: sample.activity });
    }
    return out;
  }

  /** The bodies as the channel sees them at time t. */
  bodiesAt(t: number): BodyState[] {
    const out: BodyState[] = [];
    for (const p of this.#people) {
      const sample = p.sample(t);
      if (!sample.pose) continue;
      out.push(bodyStateOf(p.spec.id, bodySegments(p.dim, forwardKinematics(p.dim, sample.pose))));
    }
    return out;
  }

  /** The clean channel of a link at time t (room, drift, people and distractors; no radio hardware), row-major [tx][rx][subcarrier]. */
  cleanChannel(linkIndex: number, t: number): { re: Float64Array; im: Float64Array } {
    const link = this.#link(linkIndex);
    const re = new Float64Array(link.re.length);
    const im = new Float64Array(link.im.length);
    link.channel.compute(this.bodiesAt(t), re, im, link.drift?.gainsAt(this.#driftOffsetS + t));
    if (this.#scene) link.channel.addPointScatterers(this.#scene.scatterersAt(t), re, im);
    return { re, im };
  }

  /** Every propagation path of a link at time t (between the array centres). */
  pathsAt(linkIndex: number, t: number): PathRecord[] {
    return this.#link(linkIndex).channel.describePaths(this.bodiesAt(t));
  }

  /** The link's channel model (for inspection and benchmarks). */
  linkChannel(linkIndex: number): LinkChannel {
    return this.#link(linkIndex).channel;
  }

  #link(i: number): LinkRuntime {
    const l = this.#links[i];
    if (!l) throw new RangeError(`no link ${i} (the scenario has ${this.#links.length})`);
    return l;
  }

  /** Ground truth at time t with the given events. */
  truthAt(t: number, events: GroundTruthEvent[] = []): GroundTruthFrame {
    const persons: GroundTruthPerson[] = this.skeletonsAt(t).map(({ personId, skeleton, activity }) => ({
      id: personId,
      keypoints3d: skeleton.keypoints.map((k) => [mm(k.x), mm(k.y), mm(k.z)]),
      position: { x: mm(skeleton.pelvis.x), y: mm(skeleton.pelvis.y) },
      activity,
    }));
    const truth: GroundTruthFrame = { time: this.startTimeMs + t * 1000, environmentId: this.environmentId, persons, events };
    if (this.#scene) truth.distractors = this.#scene.truthAt(t);
    return truth;
  }

  /** Advance one tick. */
  next(): SimTick {
    const index = this.#index++;
    const t = index / this.rateHz;
    const events: GroundTruthEvent[] = [];
    for (const p of this.#people) {
      for (const e of p.eventsBetween(this.#lastT, t)) events.push({ type: e.type, personId: p.spec.id, time: this.startTimeMs + e.t * 1000, ...(e.detail ? { detail: e.detail } : {}) });
      if (index % 256 === 0) p.prune(t - 10);
    }
    const truth = this.truthAt(t, events);
    this.#zoneEvents(truth);
    truth.events.sort((a, b) => a.time - b.time);
    this.#lastT = t;
    const frames: CsiFrame[] = [];
    for (const link of this.#links) {
      const frame = this.#frame(link, t, truth);
      if (frame) frames.push(frame);
    }
    return { index, t, time: truth.time, frames, truth };
  }

  /** Ticks until `durationS` of simulation time has passed (forever when omitted). */
  *run(durationS?: number): Generator<SimTick> {
    const end = durationS === undefined ? Infinity : Math.round(durationS * this.rateHz);
    for (let n = 0; n < end; n++) yield this.next();
  }

  #zoneEvents(truth: GroundTruthFrame): void {
    const zones = this.scenario.zones;
    if (!zones.length) return;
    const present = new Set<number>();
    for (const person of truth.persons) {
      present.add(person.id);
      const before = this.#zoneState.get(person.id) ?? new Set<string>();
      const now = new Set(zones.filter((z) => pointInPolygon(person.position.x, person.position.y, z.polygon)).map((z) => z.id));
      for (const id of now) if (!before.has(id)) truth.events.push({ type: 'zone_enter', personId: person.id, time: truth.time, detail: { zoneId: id } });
      for (const id of before) if (!now.has(id)) truth.events.push({ type: 'zone_exit', personId: person.id, time: truth.time, detail: { zoneId: id } });
      this.#zoneState.set(person.id, now);
    }
    for (const [id, before] of this.#zoneState) {
      if (present.has(id)) continue;
      for (const zone of before) truth.events.push({ type: 'zone_exit', personId: id, time: truth.time, detail: { zoneId: zone } });
      this.#zoneState.delete(id);
    }
  }

  #frame(link: LinkRuntime, t: number, truth: GroundTruthFrame): CsiFrame | null {
    const imp = link.impairments;
    const prng = link.prng;
    const sequence = link.sequence++;
    const limit = 0.45 * link.slotWidth;
    const jitter = imp.timingJitterUs > 0 ? Math.max(-limit, Math.min(limit, prng.normal(0, imp.timingJitterUs * 1e-6))) : 0;
    const ts = Math.max(0, t + link.slot + jitter);
    const lost = link.realism && imp.lossBurstPackets ? link.realism.lost(imp.packetLoss) : imp.packetLoss > 0 && prng.chance(imp.packetLoss);
    if (lost) return null;
    const { re, im } = link;
    link.channel.compute(this.bodiesAt(ts), re, im, link.drift?.gainsAt(this.#driftOffsetS + ts));
    if (this.#scene) link.channel.addPointScatterers(this.#scene.scatterersAt(ts), re, im);
    link.realism?.transformChannel(re, im);
    const info = link.info;
    const nsc = info.grid.indices.length;
    const rssi: number[] = [];
    const txPower = this.scenario.channel.txPowerDbm;
    const rssiStep = imp.rssiStepDb;
    for (let r = 0; r < info.nrx; r++) {
      let p = 0;
      for (let a = 0; a < info.ntx; a++) {
        const base = (a * info.nrx + r) * nsc;
        for (let k = 0; k < nsc; k++) p += re[base + k] * re[base + k] + im[base + k] * im[base + k];
      }
      const measured = txPower + 10 * Math.log10(p / (info.ntx * nsc) || 1e-30) + (link.rssiPrng ? link.rssiPrng.normal(0, imp.rssiNoiseDb!) : 0);
      rssi.push(rssiStep ? Math.round(measured / rssiStep) * rssiStep : round2(measured));
    }
    const packet = drawPacketImpairment(prng, imp, info.nrx);
    if (link.realism) packet.gain *= link.realism.agcGain();
    applyImpairments(re, im, info.ntx, info.nrx, info.grid.indices, SUBCARRIER_SPACING_HZ, packet, link.rxChainPhase, link.txChainPhase, imp, info.device, prng);
    link.realism?.glitch(re, im);
    const meanRssi = 10 * Math.log10(rssi.reduce((acc, v) => acc + Math.pow(10, v / 10), 0) / rssi.length);
    const frame: CsiFrame = {
      timestamp: this.#timestampOffsetUs + ts * 1e6,
      time: this.startTimeMs + ts * 1000,
      sourceId: info.sourceId,
      link: { tx: info.tx, rx: info.rx },
      centerFrequencyHz: this.scenario.channel.centerFrequencyHz,
      bandwidthHz: info.grid.bandwidthHz,
      subcarriers: info.grid.indices.slice(),
      ntx: info.ntx,
      nrx: info.nrx,
      nsc,
      csi: { re: Float32Array.from(re), im: Float32Array.from(im) },
      rssi,
      sequence,
      format: 'sim',
      provenance: 'simulated',
      extra: { environmentId: this.environmentId, device: info.device, grid: info.grid.name },
    };
    if (this.#attachTruth) frame.truth = truth;
    if (Number.isFinite(imp.snrDb)) frame.noiseDbm = round2(meanRssi - imp.snrDb);
    return frame;
  }
}

/** Round metres to millimetres (ground truth needs no more, and recordings stay small). */
function mm(v: number): number {
  return Math.round(v * 1000) / 1000;
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}

function parseStartTime(v: string | number | undefined): number {
  if (v === undefined) return DEFAULT_START_TIME_MS;
  if (typeof v === 'number') return v;
  const ms = Date.parse(v);
  if (!Number.isFinite(ms)) throw new RangeError(`startTime ${v} is not a date`);
  return ms;
}

/** The fields of an override that are set (a key present with `undefined` overrides nothing). */
function defined<T extends object>(o: T | undefined): Partial<T> {
  return o === undefined ? {} : Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function resolveImpairments(s: Scenario, rx: RadioSpec, override: SimulatorOptions['impairments'], reference?: Partial<ImpairmentSpec>): ImpairmentSettings {
  if (override === 'off') return { ...IMPAIRMENTS_OFF };
  // Overrides name only the fields they change (ImpairmentOverridesSchema has no defaults), so the
  // receiver keeps the scenario's other fields and the reference keeps the receiver's.
  const merged = { ...s.impairments, ...defined(rx.impairments), ...defined(reference), ...(override ?? {}) };
  return { ...merged, snrDb: merged.snrDb ?? Number.POSITIVE_INFINITY } as ImpairmentSettings;
}
