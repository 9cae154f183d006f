import type { BreathingNullReason, CsiFrame, LinkId, Provenance, SensingFallEvent, SensingFrame, SensingState } from '@wiflow/core';
import { SENSING_ESTIMATOR_ID, type SensingConfig, type SensingModels } from '../config.js';
import { pickFeatures, predictLogistic, type LogisticModel } from '../model/logistic.js';
import { breathingSpectrumPeak, type BreathingEstimate } from './breathing-spectrum.js';
import { chainRotation, inChainOrder } from './chain-order.js';
import type { LinkReference } from './empty-room-reference.js';
import { MotionFloor, belowFloor } from './motion-floor.js';
import { PresenceLatch, presenceRulesFromConfig } from './presence.js';
import { periodicImpulses } from './periodic-impulses.js';
import { ProfileFallDetector, profileFallsApply, type ProfileEvent } from '../falls/profile-falls.js';

/** The motion features of one second: temporal spread of the normalised amplitudes and its smoothness. */
export interface MotionFeatures {
  /** Mean over channels of the standard deviation over the window. */
  spread: number;
  /** Mean over channels of the mean absolute step between grid slots. */
  step: number;
  /** Mean over channels of the mean absolute step between consecutive packets, over √(packets per slot): the noise a slot keeps. */
  packetStep: number;
  /** Mean over subcarrier groups of the standard deviation over the window of the group's mean amplitude: averaging a group's subcarriers keeps a body's change (correlated across neighbouring subcarriers) and shrinks independent noise. */
  groupSpread: number;
  /**
   * Mean over the conjugate products of each receive chain with the first (per subcarrier group, unit phasors)
   * of their standard deviation over the window: the change of the phase between antennas, which AGC, the
   * receiver's random phase and its timing offset leave alone and a moving body does not (a body path
   * changes the whole band alike, which the per-packet normalisation takes for gain). With one receive
   * chain there is no pair and this is `groupSpread`.
   */
  pairSpread: number;
  /**
   * The link's own floor of `pairSpread`: its 10th percentile over the last `floorWindowSeconds` seconds
   * (learned online, so it settles on the still periods: noise, a fan that keeps turning, the chip's own
   * jitter). Dividing by it makes the threshold transfer across radios, rooms and steady distractors.
   */
  pairFloor: number;
}

/** A movement burst considered for a fall, with the features the fall classifier reads. */
export interface FallCandidate {
  /** Wall-clock ms and seconds since the first frame of the burst's peak. */
  time: number;
  second: number;
  /** Peak spread (the burst's strength), for picking a clip's main burst. */
  peak: number;
  features: number[];
  probability: number;
}

/** Names of the fall classifier's features, in order. */
export const FALL_FEATURES = ['log_peak', 'log_base', 'log_after_over_peak', 'active_fraction', 'log_peak_over_base', 'log_before_over_peak', 'log_change_over_floor'];
/**
 * The first four motion inputs minus the link's own quiet floor of each (`MotionFloor`; the window is
 * `SensingModels.motionFloor[family]`, the quantile the model's `floorQuantile`): an ESP32 link's inputs. Not part of `motionInputs`' vector: the
 * sensor (and the evaluation, over a session's seconds) appends them.
 */
export const MOTION_FLOOR_FEATURES = ['log_spread_minus_floor', 'log_spread_over_step_minus_floor', 'log_spread_over_packet_step_minus_floor', 'log_step_over_packet_step_minus_floor'];
/** Names of the motion classifier's features, in order. */
export const MOTION_FEATURES = ['log_spread', 'log_spread_over_step', 'log_spread_over_packet_step', 'log_step_over_packet_step', 'log_group_spread', 'log_group_spread_over_packet_step', 'log_pair_spread', 'log_pair_spread_over_packet_step', 'log_pair_spread_over_floor', ...MOTION_FLOOR_FEATURES];

/**
 * Radio family whose models apply to a frame's format: `sim` for the simulator's frames (whatever chip it
 * imitates: its amplitude statistics are its own, docs/simulator.md §7), `intel5300`, and `int8` for ESP32
 * and every other format.
 */
export function radioFamily(format: string): string {
  return format === 'intel5300' || format === 'sim' ? format : 'int8';
}

/** Motion classifier inputs from a second's features. */
export function motionInputs(features: MotionFeatures): number[] {
  return [Math.log(features.spread + 1e-6), Math.log((features.spread + 1e-6) / (features.step + 1e-6)), Math.log((features.spread + 1e-6) / (features.packetStep + 1e-6)), Math.log((features.step + 1e-6) / (features.packetStep + 1e-6)), Math.log(features.groupSpread + 1e-6), Math.log((features.groupSpread + 1e-6) / (features.packetStep + 1e-6)), Math.log(features.pairSpread + 1e-6), Math.log((features.pairSpread + 1e-6) / (features.packetStep + 1e-6)), Math.log((features.pairSpread + 1e-6) / (features.pairFloor + 1e-6))];
}

/** Options of a `LinkSensor`. */
export interface LinkSensorOptions {
  environmentId: string;
  config: SensingConfig;
  models: SensingModels;
  configHash: string;
  /** The installer's empty-room reference of this link (`EmptyRoomReferenceRecorder`): enables presence by level and, where configured, seeds the floor. */
  reference?: LinkReference | null;
  /** Called with every second's motion features (evaluation). */
  onMotionFeatures?: (second: number, features: MotionFeatures) => void;
  /** Called with every fall candidate, kept or not (evaluation). */
  onFallCandidate?: (candidate: FallCandidate) => void;
  /** Called every half second with the motion features of the last second: the series fall candidates are read from (evaluation; pilot/falls_dump.mjs). */
  onHalfSecond?: (second: number, features: MotionFeatures) => void;
  /** Called with every breathing spectrum read, kept or not (evaluation; pilot/sim_false_presence.mjs). */
  onBreathingEstimate?: (second: number, estimate: BreathingEstimate) => void;
  /** Called with every event the velocity-profile fall detector judged, kept or not (evaluation). */
  onProfileEvent?: (event: ProfileEvent) => void;
  /**
   * Called each second with the mean of its slots' breathing channels (amplitude groups, then the
   * conjugate products' re/im per group): the slow state of the static channel (pilot/sim_static_exit.mjs).
   */
  onStaticProfile?: (second: number, profile: Float64Array, amplitudeChannels: number) => void;
}

/** Counters of what the sensor did with its input. */
export interface LinkSensorStats {
  frames: number;
  /** Frames of another packet kind than the link's locked one (other shape or PHY mode). */
  otherKindFrames: number;
  /** Grid slots with no packet. */
  lostSlots: number;
  slots: number;
  /** Packets whose receive chains came rotated (an antenna-switching glitch) and were read back in order. */
  rotatedPackets: number;
}

function kindOf(frame: CsiFrame): string {
  const extra = frame.extra ?? {};
  return `${frame.ntx}x${frame.nrx}x${frame.nsc}:${frame.subcarriers[0]}:${frame.subcarriers[frame.nsc - 1]}:${String(extra.sigMode ?? '')}:${String(extra.bandwidth ?? '')}`;
}

/**
 * The largest share of empty 10-Hz grid slots (over the last RECENT_SECONDS) at which a slow-link motion model reads
 * a link: the thinned captures they were fitted on reach 0.50 (Intel 5300, 1 in 4) and 0.63 (ESP32, 1 in 20). A
 * burstier link (the public ESP32-CSI-Tool sample: 88 %, bursts 4 s apart) keeps the family's own model.
 */
export const SLOW_MODEL_MAX_EMPTY = 0.7;
/** Seconds a link's snapshot reads its packet rate and lost slots over. */
export const RECENT_SECONDS = 10;
/** Seconds of states a link's snapshot lists (an installer's walk test reads them). */
export const RECENT_STATES = 60;

/** A link as the sensing sees it now (`LinkSensor.snapshot`): its radio, packet rate, losses and newest state. */
export interface LinkSnapshot {
  link: LinkId;
  /** The capture format of the link's packets (`esp32-csi-tool`, `intel5300`, `sim`, ...); null until its kind locks (40 frames). */
  format: string | null;
  /** Whose motion model reads it (`radioFamily`). */
  family: string | null;
  transmitChains: number | null;
  receiveChains: number | null;
  subcarriers: number | null;
  frames: number;
  /** Frames of another packet kind, passed over. */
  otherKindFrames: number;
  /** Whole seconds sensed. */
  seconds: number;
  /** Packets per second over the last RECENT_SECONDS (null before a whole second). */
  packetsPerSecond: number | null;
  /** Share of the 10-Hz grid's slots with no packet over the last RECENT_SECONDS. */
  lostFraction: number | null;
  /** Which fall detector this link runs. */
  fallDetector: 'velocity-profile' | 'burst' | null;
  provenance: Provenance | null;
  /** Which motion model read the newest second: the family's own (fitted at its captures' rate) or its slow links' one (`SensingModels.motionSlow`). */
  motionModel: 'captures-rate' | 'slow-link' | null;
  /**
   * The link's own quiet floor, where the newest second's model reads its inputs against it (`SensingModels.motionFloor`):
   * the seconds it holds, the window it reads and the quantile; null otherwise.
   */
  motionFloor: { seconds: number; window: number; quantile: number } | null;
  /** The newest second (seconds since the link's first frame), or null before one. */
  lastSecond: number | null;
  /** The states of the last RECENT_STATES seconds up to `lastSecond`, oldest first, one letter each: `e`mpty, `s`till, `m`oving. */
  recentStates: string;
  state: SensingState | null;
  motion: number | null;
  presence: boolean | null;
}

/** A ring of fixed-width rows of float64. */
class Ring {
  readonly data: Float64Array;
  count = 0;
  head = 0;
  constructor(readonly width: number, readonly capacity: number) {
    this.data = new Float64Array(width * capacity);
  }
  push(row: Float64Array): void {
    this.data.set(row, this.head * this.width);
    this.head = (this.head + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }
  /** Row `i` back from the newest (0 = newest). */
  offset(i: number): number {
    return ((this.head - 1 - i + this.capacity * 2) % this.capacity) * this.width;
  }
}

/**
 * Sensing on one link, frame by frame: packets are normalised (each stream to mean amplitude 1, which
 * cancels AGC steps), averaged onto a time grid (lost slots hold the previous slot and are counted), and
 * each whole second yields a `SensingFrame`. Multi-antenna receivers add conjugate products between chains
 * (which cancel the shared random phase) to the breathing channels.
 */
export class LinkSensor {
  readonly stats: LinkSensorStats = { frames: 0, otherKindFrames: 0, lostSlots: 0, slots: 0, rotatedPackets: 0 };
  #kind: string | null = null;
  #probe: CsiFrame[] = [];
  #originUs = 0;
  #originMs = 0;
  #slotUs: number;
  #current = -1;
  #sum: Float64Array = new Float64Array(0);
  #count = 0;
  #motionRing: Ring | null = null;
  #breathRing: Ring | null = null;
  #lostRing: Uint8Array;
  /** Per slot, the mean absolute change of the amplitude breathing channels from the slot before (same indexing as `#lostRing`). */
  #slotStepRing: Float64Array;
  #lastRow: Float64Array | null = null;
  #previousPacket: Float64Array = new Float64Array(0);
  /** This packet's amplitudes, each stream normalised to mean 1 (scratch). */
  #packetAmplitudes: Float64Array = new Float64Array(0);
  #hasPrevious = false;
  #slotStepSum = 0;
  #slotSteps = 0;
  #stepRing: Float64Array = new Float64Array(0);
  #stepCountRing: Float64Array = new Float64Array(0);
  #packetRing: Float64Array = new Float64Array(0);
  #packetsPerSecond: Float64Array;
  #streams = 0;
  #ntx = 0;
  #nrx = 0;
  #nsc = 0;
  #groups: number[][] = [];
  #conjPairs = 0;
  #format = '';
  #provenance: Provenance = 'replay';
  // Per-second history.
  #halfSpread: { second: number; spread: number }[] = [];
  #evaluated = new Set<number>();
  #pendingFalls: SensingFallEvent[] = [];
  /** Where it applies (see `#setup`), the velocity-profile detector gives this link's falls instead of the burst detector. */
  #profileFalls: ProfileFallDetector | null = null;
  #stillRun = 0;
  #movingRun = 0;
  /** Seconds whose state read `moving`, recent ones only (the movement guard reads them). */
  #movingSeconds: number[] = [];
  /** Seconds whose output motion read ≥ 0.5, recent ones only (the motion guard reads them). */
  #motionSeconds: number[] = [];
  #out: SensingFrame[] = [];
  /** The pair spread's own floor (`MotionFeatures.pairFloor`), over the last `floorWindowSeconds`. */
  #pairHistory: MotionFloor;
  #pairHistoryCount = 0;
  #lastPairFloor = 0;
  /** Whether the floor's history began with an empty-room reference (then it is trusted from the first second). */
  #floorSeeded = false;
  #presence: PresenceLatch;
  /** The newest second's frame (what `snapshot` reports as the link's state now). */
  #lastFrame: SensingFrame | null = null;
  /** Whether the newest second's motion came from the family's slow-link model. */
  #slowModel = false;
  /** The link's own quiet floor of its first four motion inputs (`SensingModels.motionFloor`); null when its family reads none. */
  #motionFloor: MotionFloor | null = null;
  /** The quantile the newest second's model read the floor at (null when it read none). */
  #floorRead: number | null = null;
  /** The state of each of the last RECENT_STATES seconds, oldest first (`snapshot`'s `recentStates`). */
  #recentStates: SensingState[] = [];

  constructor(readonly link: LinkId, readonly options: LinkSensorOptions) {
    this.#slotUs = 1e6 / options.config.gridRateHz;
    this.#lostRing = new Uint8Array(Math.ceil(options.config.breathingWindowSeconds * options.config.gridRateHz) + 1);
    this.#slotStepRing = new Float64Array(this.#lostRing.length);
    this.#packetsPerSecond = new Float64Array(Math.ceil(options.config.breathingWindowSeconds) + 2);
    this.#pairHistory = new MotionFloor(1, Math.round(options.config.floorWindowSeconds));
    const { config } = options;
    // The empty room's seconds are the floor's first history: the room's quiet level is known before sensing starts.
    if (config.presenceReferenceFloor && options.reference?.pairSpreads.length) {
      for (const pairSpread of options.reference.pairSpreads.slice(-this.#pairHistory.seconds)) this.#pairFloor(pairSpread);
      this.#floorSeeded = true;
    }
    this.#presence = new PresenceLatch(presenceRulesFromConfig(config));
    checkMotionFloors(options.models);
  }

  /** Add one frame; returns the sensing frames of the seconds it completed (usually none or one). */
  push(frame: CsiFrame): SensingFrame[] {
    this.stats.frames++;
    if (this.#kind === null) {
      this.#probe.push(frame);
      if (this.#probe.length < this.options.config.kindProbeFrames) return [];
      this.#lockKind();
      return this.#drain();
    }
    this.#accept(frame);
    return this.#drain();
  }

  /** End of input: close the open slot and second, flush pending fall candidates. */
  finish(): SensingFrame[] {
    if (this.#kind === null && this.#probe.length > 0) this.#lockKind();
    if (this.#current >= 0 && this.#count > 0) this.#closeSlot();
    this.#evaluateFalls(true);
    if (this.#profileFalls) {
      this.#profileFalls.finish();
      this.#pendingFalls = this.#profileFalls.takeFalls();
    }
    const out = this.#drain();
    if (this.#pendingFalls.length && out.length) out[out.length - 1].falls.push(...this.#guardFalls(this.#pendingFalls.splice(0)));
    return out;
  }

  #drain(): SensingFrame[] {
    const out = this.#out;
    this.#out = [];
    return out;
  }

  #lockKind(): void {
    const counts = new Map<string, number>();
    for (const f of this.#probe) counts.set(kindOf(f), (counts.get(kindOf(f)) ?? 0) + 1);
    let best = '';
    let most = -1;
    for (const [k, c] of counts) if (c > most) [best, most] = [k, c];
    this.#kind = best;
    const probe = this.#probe;
    this.#probe = [];
    for (const f of probe) this.#accept(f);
  }

  #setup(frame: CsiFrame): void {
    const { config } = this.options;
    this.#streams = frame.ntx * frame.nrx;
    this.#ntx = frame.ntx;
    this.#nrx = frame.nrx;
    this.#nsc = frame.nsc;
    this.#format = frame.format;
    this.#provenance = frame.provenance;
    const groups = Math.min(config.groupsPerStream, frame.nsc);
    this.#groups = Array.from({ length: groups }, (_, g) => {
      const from = Math.floor((g * frame.nsc) / groups);
      const to = Math.floor(((g + 1) * frame.nsc) / groups);
      return [from, to];
    });
    this.#conjPairs = frame.nrx > 1 ? frame.ntx * (frame.nrx - 1) : 0;
    const motionWidth = this.#streams * frame.nsc;
    const breathWidth = this.#streams * groups + this.#conjPairs * groups * 2;
    this.#sum = new Float64Array(motionWidth + breathWidth);
    this.#motionRing = new Ring(motionWidth, Math.ceil(config.motionWindowSeconds * config.gridRateHz));
    this.#previousPacket = new Float64Array(motionWidth);
    this.#packetAmplitudes = new Float64Array(motionWidth);
    this.#stepRing = new Float64Array(this.#motionRing.capacity);
    this.#stepCountRing = new Float64Array(this.#motionRing.capacity);
    this.#packetRing = new Float64Array(this.#motionRing.capacity);
    this.#breathRing = new Ring(breathWidth, Math.ceil(config.breathingWindowSeconds * config.gridRateHz));
    this.#originUs = frame.timestamp;
    this.#originMs = frame.time;
    this.#current = 0;
    // Falls from the time–velocity profile where its model was fitted and checked: Intel 5300 links with several
    // receive chains (docs/sensing.md, "Falls from the velocity profile"); other radios keep the burst detector.
    const profileModel = this.options.models.profileFall;
    if (profileModel && radioFamily(frame.format) === 'intel5300' && profileFallsApply(frame)) this.#profileFalls = new ProfileFallDetector({ model: profileModel, onEvent: this.options.onProfileEvent, fullContext: this.options.config.fallFullContext });
  }

  #accept(frame: CsiFrame): void {
    if (kindOf(frame) !== this.#kind) {
      this.stats.otherKindFrames++;
      return;
    }
    if (this.#current < 0) this.#setup(frame);
    const rotation = this.#chainRotation(frame);
    // The profile detector reads the phase between chains, so it gets the packet in the true chain order too.
    this.#profileFalls?.push(rotation ? inChainOrder(frame, rotation) : frame);
    let slot = Math.floor((frame.timestamp - this.#originUs) / this.#slotUs);
    if (slot < this.#current - 2 * this.options.config.gridRateHz) {
      // The device clock went back by more than 2 s (a reboot, a wrapped counter): carry on from the open
      // slot on the new clock instead of holding every later packet in it.
      this.#originUs = frame.timestamp - this.#current * this.#slotUs;
      slot = this.#current;
    }
    if (slot < this.#current) slot = this.#current; // a late or reordered packet joins the open slot
    while (slot > this.#current) this.#closeSlot();
    this.#addPacket(frame, rotation);
  }

  /** The packet's normalised amplitudes into `#packetAmplitudes`, and the rotation of its chains (chain-order.ts). */
  #chainRotation(frame: CsiFrame): number {
    const { re, im } = frame.csi;
    const nsc = this.#nsc;
    const amplitudes = this.#packetAmplitudes;
    for (let s = 0; s < this.#streams; s++) {
      const o = s * nsc;
      let mean = 0;
      for (let k = 0; k < nsc; k++) {
        const a = Math.hypot(re[o + k], im[o + k]);
        amplitudes[o + k] = a;
        mean += a;
      }
      mean = mean / nsc || 1;
      for (let k = 0; k < nsc; k++) amplitudes[o + k] /= mean;
    }
    // An antenna-switching glitch is read back in the true chain order.
    const rotation = this.#hasPrevious ? chainRotation(amplitudes, this.#previousPacket, frame.ntx, frame.nrx, nsc) : 0;
    if (rotation) this.stats.rotatedPackets++;
    return rotation;
  }

  #addPacket(frame: CsiFrame, rotation: number): void {
    const { re, im } = frame.csi;
    const nsc = this.#nsc;
    const sum = this.#sum;
    const groups = this.#groups;
    const base = this.#streams * nsc;
    const previous = this.#previousPacket;
    const amplitudes = this.#packetAmplitudes;
    const nrx = frame.nrx;
    const source = (stream: number) => (rotation ? stream - (stream % nrx) + (((stream % nrx) + rotation) % nrx) : stream);
    let step = 0;
    for (let s = 0; s < this.#streams; s++) {
      const o = s * nsc;
      const from = source(s) * nsc;
      for (let g = 0; g < groups.length; g++) {
        let acc = 0;
        for (let k = groups[g][0]; k < groups[g][1]; k++) {
          const a = amplitudes[from + k];
          sum[o + k] += a;
          acc += a;
          step += Math.abs(a - previous[o + k]);
          previous[o + k] = a;
        }
        sum[base + s * groups.length + g] += acc / (groups[g][1] - groups[g][0]);
      }
    }
    if (this.#hasPrevious) {
      this.#slotStepSum += step / base;
      this.#slotSteps++;
    }
    this.#hasPrevious = true;
    if (this.#conjPairs > 0) {
      let c = base + this.#streams * groups.length;
      for (let t = 0; t < frame.ntx; t++) {
        const ref = source(t * nrx) * nsc;
        for (let r = 1; r < nrx; r++) {
          const o = source(t * nrx + r) * nsc;
          for (let g = 0; g < groups.length; g++) {
            let zr = 0;
            let zi = 0;
            for (let k = groups[g][0]; k < groups[g][1]; k++) {
              zr += re[o + k] * re[ref + k] + im[o + k] * im[ref + k];
              zi += im[o + k] * re[ref + k] - re[o + k] * im[ref + k];
            }
            const m = Math.hypot(zr, zi) || 1;
            sum[c++] += zr / m;
            sum[c++] += zi / m;
          }
        }
      }
    }
    this.#count++;
  }

  #closeSlot(): void {
    const motionRing = this.#motionRing!;
    const breathRing = this.#breathRing!;
    const width = this.#sum.length;
    let row: Float64Array;
    const lost = this.#count === 0;
    const previousRow = this.#lastRow;
    if (lost) {
      row = this.#lastRow ?? new Float64Array(width);
      this.stats.lostSlots++;
    } else {
      row = new Float64Array(width);
      for (let i = 0; i < width; i++) row[i] = this.#sum[i] / this.#count;
      this.#lastRow = row;
    }
    this.stats.slots++;
    this.#stepRing[motionRing.head] = this.#slotStepSum;
    this.#stepCountRing[motionRing.head] = this.#slotSteps;
    this.#packetRing[motionRing.head] = this.#count;
    this.#slotStepSum = 0;
    this.#slotSteps = 0;
    motionRing.push(row.subarray(0, motionRing.width));
    breathRing.push(row.subarray(motionRing.width));
    this.#lostRing[this.#current % this.#lostRing.length] = lost ? 1 : 0;
    let slotStep = 0;
    const amplitudeChannels = this.#streams * this.#groups.length;
    if (previousRow && !lost) {
      for (let c = 0; c < amplitudeChannels; c++) slotStep += Math.abs(row[motionRing.width + c] - previousRow[motionRing.width + c]);
      slotStep /= amplitudeChannels;
    }
    this.#slotStepRing[this.#current % this.#slotStepRing.length] = slotStep;
    const rate = this.options.config.gridRateHz;
    const second = Math.floor(this.#current / rate);
    const perSecond = this.#packetsPerSecond;
    if (this.#current % rate === 0) perSecond[second % perSecond.length] = 0;
    perSecond[second % perSecond.length] += this.#count;
    this.#sum.fill(0);
    this.#count = 0;
    const closed = this.#current;
    this.#current++;
    const half = Math.max(1, Math.round(rate / 2));
    if ((closed + 1) % half === 0) this.#halfStep(closed + 1);
    if ((closed + 1) % rate === 0) this.#endSecond(second);
  }

  /** Spread over the last second, every half second: the series fall candidates are read from. */
  #halfStep(slotEnd: number): void {
    const rate = this.options.config.gridRateHz;
    const features = this.#spread(Math.min(rate, this.#motionRing!.count));
    this.options.onHalfSecond?.(slotEnd / rate, features);
    // The phase between chains is read against the link's own floor, so a burst's size means the same in every room.
    const spread = this.options.models.fallSignalByFamily?.[radioFamily(this.#format)] === 'pairSpread' ? features.pairSpread / (this.#lastPairFloor || features.pairSpread || 1) : features.spread;
    this.#halfSpread.push({ second: slotEnd / rate, spread });
    if (this.#halfSpread.length > 64) {
      const dropped = this.#halfSpread.shift()!;
      this.#evaluated.delete(Math.round(dropped.second * 2)); // bounded memory on endless streams
    }
    this.#evaluateFalls(false);
  }

  #spread(slots: number): MotionFeatures {
    const ring = this.#motionRing!;
    const width = ring.width;
    const n = Math.min(slots, ring.count);
    if (n < 2) return { spread: 0, step: 0, packetStep: 0, groupSpread: 0, pairSpread: 0, pairFloor: 0 };
    let stepSum = 0;
    let stepCount = 0;
    let packets = 0;
    for (let i = 0; i < n; i++) {
      const slot = (ring.head - 1 - i + ring.capacity * 2) % ring.capacity;
      stepSum += this.#stepRing[slot];
      stepCount += this.#stepCountRing[slot];
      packets += this.#packetRing[slot];
    }
    // The packet-to-packet step measures the noise of one packet; a slot averages `packets / n` of them,
    // which shrinks that noise by the square root: scaled so the feature reads the same at 10 and 100 Hz.
    const perSlot = Math.max(1, packets / n);
    let spread = 0;
    let step = 0;
    const data = ring.data;
    const offsets = new Array<number>(n);
    for (let i = 0; i < n; i++) offsets[i] = ring.offset(n - 1 - i);
    for (let c = 0; c < width; c++) {
      let mean = 0;
      for (let i = 0; i < n; i++) mean += data[offsets[i] + c];
      mean /= n;
      let v = 0;
      let d = 0;
      for (let i = 0; i < n; i++) {
        const x = data[offsets[i] + c];
        v += (x - mean) ** 2;
        if (i > 0) d += Math.abs(x - data[offsets[i - 1] + c]);
      }
      spread += Math.sqrt(v / n);
      step += d / (n - 1);
    }
    const breath = this.#breathRing!;
    const amplitudeChannels = this.#streams * this.#groups.length;
    const breathOffsets = new Array<number>(n);
    for (let i = 0; i < n; i++) breathOffsets[i] = breath.offset(i);
    const channelSpread = (c: number) => {
      let mean = 0;
      for (let i = 0; i < n; i++) mean += breath.data[breathOffsets[i] + c];
      mean /= n;
      let v = 0;
      for (let i = 0; i < n; i++) v += (breath.data[breathOffsets[i] + c] - mean) ** 2;
      return Math.sqrt(v / n);
    };
    let groupSpread = 0;
    for (let c = 0; c < amplitudeChannels; c++) groupSpread += channelSpread(c);
    groupSpread /= Math.max(1, amplitudeChannels);
    let pairSpread = 0;
    for (let c = amplitudeChannels; c < breath.width; c++) pairSpread += channelSpread(c);
    pairSpread = breath.width > amplitudeChannels ? pairSpread / (breath.width - amplitudeChannels) : groupSpread;
    return { spread: spread / width, step: step / width, packetStep: stepCount ? stepSum / stepCount / Math.sqrt(perSlot) : 0, groupSpread, pairSpread, pairFloor: pairSpread };
  }

  #evaluateFalls(final: boolean): void {
    // Where the velocity profile gives the link's falls, burst candidates are worked out only for an observer
    // (the evaluations score both detectors on the same captures); nothing else reads them there.
    if (this.#profileFalls && !this.options.onFallCandidate) return;
    const series = this.#halfSpread;
    const { config, models } = this.options;
    const after = 8; // half-second steps of context after the peak (4 s)
    const before = 16; // 8 s
    for (let p = 0; p < series.length; p++) {
      const key = Math.round(series[p].second * 2);
      if (this.#evaluated.has(key)) continue;
      if (!final && series.length - 1 - p < after) break;
      const from = Math.max(0, p - before);
      const to = Math.min(series.length - 1, p + after);
      // Judged once, with its context complete: a point looked at again after older points left the bounded
      // history could become a "maximum" late and raise a fall long after it happened.
      this.#evaluated.add(key);
      // Full context: a peak without the 8 s its base is read over (or, at end of input, the 4 s after it) is not judged.
      if (config.fallFullContext && (key <= before || series.length - 1 - p < after)) continue;
      let isMax = true;
      for (let i = Math.max(0, p - 8); i <= to; i++) if (series[i].spread > series[p].spread) isMax = false;
      if (!isMax) continue;
      const context = series.slice(from, to + 1).map((s) => s.spread);
      const sorted = [...context].sort((a, b) => a - b);
      const base = sorted[Math.floor(0.2 * (sorted.length - 1))] || 1e-6;
      const peak = series[p].spread;
      if (peak < config.fallPeakRatio * base || context.length < 5) continue;
      const tail = series.slice(p + 2, to + 1).map((s) => s.spread).sort((a, b) => a - b);
      const afterLevel = tail.length ? tail[tail.length >> 1] : series[to].spread;
      const active = context.filter((v) => v > base + 0.5 * (peak - base)).length / context.length;
      // What came before: a fall interrupts walking or standing, a fidget or a turn in bed interrupts stillness.
      const lead = series.slice(Math.max(0, p - 8), Math.max(0, p - 2)).map((x) => x.spread).sort((a, b) => a - b);
      const beforeLevel = lead.length ? lead[lead.length >> 1] : base;
      const change = this.#stateChange(Math.round(series[p].second * config.gridRateHz));
      const features = [Math.log(peak + 1e-6), Math.log(base + 1e-6), Math.log(afterLevel + 1e-6) - Math.log(peak + 1e-6), active, Math.log((peak + 1e-6) / (base + 1e-6)), Math.log(beforeLevel + 1e-6) - Math.log(peak + 1e-6), Math.log((change + 1e-6) / (this.#lastPairFloor + 1e-6))];
      const fallModel = models.fallByFamily?.[radioFamily(this.#format)] ?? models.fall;
      const probability = predictLogistic(fallModel, pickFeatures(fallModel, FALL_FEATURES, features));
      const second = series[p].second;
      const candidate: FallCandidate = { time: this.#originMs + second * 1000, second, peak, features, probability };
      this.options.onFallCandidate?.(candidate);
      if (probability >= fallModel.threshold) this.#pendingFalls.push({ time: candidate.time, confidence: probability });
    }
  }

  #endSecond(second: number): void {
    const { config, models } = this.options;
    const rate = config.gridRateHz;
    const features = this.#spread(Math.round(config.motionWindowSeconds * rate));
    features.pairFloor = this.#pairFloor(features.pairSpread);
    this.options.onMotionFeatures?.(second, features);
    const model = this.#motionModel(second);
    const motion = predictLogistic(model, pickFeatures(model, MOTION_FEATURES, this.#motionVector(features, model, this.#packetsPerSecond[second % this.#packetsPerSecond.length] > 0)));
    const moving = motion >= model.threshold;
    if (moving) {
      this.#movingRun++;
      this.#stillRun = 0;
    } else {
      this.#stillRun++;
      this.#movingRun = 0;
    }
    // Breathing: only over seconds without movement, long enough, dense enough.
    let breathingBpm: number | null = null;
    let breathingReason: BreathingNullReason | null = null;
    let breathingQuality: number | null = null;
    const stillSeconds = Math.min(this.#stillRun, config.breathingWindowSeconds);
    const recentRate = this.#packetRate(second, Math.max(1, stillSeconds));
    let breathingSeen = false;
    let faintBreathing = false;
    /** The spectrum's peak however weak (a steady one keeps someone present: `PresenceRules.steadyKeepSeconds`). */
    let peakBpm: number | null = null;
    if (moving) breathingReason = 'moving';
    else if (recentRate < config.minPacketRateHz) breathingReason = 'rate_too_low';
    else if (stillSeconds < config.breathingMinSeconds) breathingReason = 'too_short';
    else {
      const slots = Math.min(Math.round(stillSeconds * rate), this.#breathRing!.count);
      let lost = 0;
      for (let i = 0; i < slots; i++) lost += this.#lostRing[(this.#current - 1 - i + this.#lostRing.length * 4) % this.#lostRing.length];
      if (lost / slots > 0.5) breathingReason = 'too_many_gaps';
      else {
        const channels = this.#breathChannels(slots);
        const estimate = breathingSpectrumPeak(channels, slots, rate, config.breathingMinBpm, config.breathingMaxBpm);
        if (estimate) this.options.onBreathingEstimate?.(second, estimate);
        peakBpm = estimate?.bpm ?? null;
        faintBreathing = estimate !== null && !estimate.edge && estimate.quality >= config.presenceFaintQuality;
        if (!estimate || estimate.quality < config.breathingMinQuality || estimate.edge) breathingReason = 'no_periodicity';
        else if (estimate.comb || this.#impulseHarmonic(slots, estimate.bpm)) breathingReason = 'periodic_interference';
        else {
          breathingBpm = Math.round(estimate.bpm * 10) / 10;
          breathingQuality = Math.round(estimate.quality * 100) / 100;
          breathingSeen = true;
        }
      }
    }
    if (this.options.onStaticProfile) {
      const ring = this.#breathRing!;
      const slots = Math.min(rate, ring.count);
      const profile = new Float64Array(ring.width);
      for (let back = 0; back < slots; back++) for (let c = 0; c < ring.width; c++) profile[c] += ring.data[ring.offset(back) + c] / slots;
      this.options.onStaticProfile(second, profile, this.#streams * this.#groups.length);
    }
    const reference = this.options.reference;
    const aboveEmpty = reference != null && config.presenceReferenceLevel !== 'off' && features.spread > config.presenceReferenceLevelRatio * reference.spread;
    const byLevel = aboveEmpty && config.presenceReferenceLevel === 'start';
    // How large the movement is against the link's own quiet level; unknown (any size) while the floor is young.
    const size = !this.#floorSeeded && this.#pairHistoryCount <= config.presenceFloorWarmupSeconds ? Infinity : features.pairSpread / (features.pairFloor || 1e-9);
    const levelKeeps = aboveEmpty && config.presenceReferenceLevel === 'keep';
    const presence = this.#presence.update(second, moving, breathingSeen, byLevel, faintBreathing, { size, breathingBpm, peakBpm, levelKeeps }) !== 'none';
    // A weak line still counts for presence (above), but is not shown as the person's rate: null is better than a guess.
    if (breathingBpm !== null && breathingQuality !== null && breathingQuality < config.breathingReportQuality) {
      breathingBpm = null;
      breathingQuality = null;
      breathingReason = 'no_periodicity';
    }
    const state: SensingState = !presence ? 'empty' : moving ? 'moving' : 'still';
    if (!presence && breathingSeen) {
      // A periodicity nobody was seen arrive for (a fan's aliased blade rate, a resting pet): not a person's.
      breathingBpm = null;
      breathingQuality = null;
      breathingReason = 'empty';
    }
    if (state === 'moving') this.#movingSeconds.push(second);
    while (this.#movingSeconds.length && this.#movingSeconds[0] < second - 16) this.#movingSeconds.shift();
    const motionOut = Math.round(motion * 1000) / 1000;
    if (motionOut >= 0.5) this.#motionSeconds.push(second);
    while (this.#motionSeconds.length && this.#motionSeconds[0] < second - 16) this.#motionSeconds.shift();
    const burstFalls = this.#pendingFalls.splice(0); // emptied on every link; on profile links only an observer's run fills it
    const falls = this.#guardFalls(this.#profileFalls ? this.#profileFalls.takeFalls() : burstFalls);
    // Movement nobody was seen arrive for (a door, a pet) is no person's activity: the second is `empty`.
    const activity = falls.length ? 'fall' : presence && moving ? (this.#movingRun >= 3 ? 'walking' : 'other') : null;
    let lostSlots = 0;
    const windowSlots = Math.min(rate, this.#lostRing.length);
    for (let i = 0; i < windowSlots; i++) lostSlots += this.#lostRing[(this.#current - 1 - i + this.#lostRing.length * 4) % this.#lostRing.length];
    this.#lastFrame = {
      time: this.#originMs + (second + 1) * 1000,
      second,
      scope: 'link',
      environmentId: this.options.environmentId,
      link: this.link,
      presence,
      state,
      motion: motionOut,
      breathingBpm,
      breathingReason,
      breathingQuality,
      activity,
      falls,
      lostFraction: lostSlots / windowSlots,
      estimatorId: SENSING_ESTIMATOR_ID,
      configHash: this.options.configHash,
      provenance: this.#provenance,
    };
    this.#out.push(this.#lastFrame);
    this.#recentStates.push(state);
    if (this.#recentStates.length > RECENT_STATES) this.#recentStates.shift();
  }

  /**
   * What this link gives the sensing now, for an installer (`linkReadiness` judges it): its radio, packet rate
   * and lost grid slots over the last `RECENT_SECONDS`, packets of another kind, and its newest second's state.
   * Before the first 40 frames lock the link's kind, the radio fields are null.
   */
  snapshot(): LinkSnapshot {
    const rate = this.options.config.gridRateHz;
    const completed = this.#current >= 0 ? Math.floor(this.#current / rate) : 0;
    const seconds = Math.min(RECENT_SECONDS, completed);
    const { lost, slots } = this.#recentLost(seconds);
    const locked = this.#current >= 0;
    return {
      link: this.link,
      format: locked ? this.#format : null,
      family: locked ? radioFamily(this.#format) : null,
      transmitChains: locked ? this.#ntx : null,
      receiveChains: locked ? this.#nrx : null,
      subcarriers: locked ? this.#nsc : null,
      frames: this.stats.frames,
      otherKindFrames: this.stats.otherKindFrames,
      seconds: completed,
      packetsPerSecond: seconds ? this.#packetRate(completed - 1, seconds) : null,
      lostFraction: slots ? lost / slots : null,
      fallDetector: locked ? (this.#profileFalls ? 'velocity-profile' : 'burst') : null,
      provenance: locked ? this.#provenance : null,
      motionModel: this.#lastFrame ? (this.#slowModel ? 'slow-link' : 'captures-rate') : null,
      motionFloor: this.#lastFrame && this.#floorRead !== null && this.#motionFloor ? { seconds: this.#motionFloor.size, window: this.#motionFloor.seconds, quantile: this.#floorRead } : null,
      lastSecond: this.#lastFrame?.second ?? null,
      recentStates: this.#recentStates.map((state) => state[0]).join(''),
      state: this.#lastFrame?.state ?? null,
      motion: this.#lastFrame?.motion ?? null,
      presence: this.#lastFrame?.presence ?? null,
    };
  }

  /**
   * The fall guards: with `fallMovementGuard`, only falls of a link whose state read `moving`, and with
   * `fallMotionGuard`, only falls of a link whose motion read ≥ 0.5 (no presence needed), in a second from 2 s
   * before to 3 s after the fall; every detector judges a peak at least 4 s late, so those seconds are known.
   */
  #guardFalls(falls: SensingFallEvent[]): SensingFallEvent[] {
    const { fallMovementGuard, fallMotionGuard } = this.options.config;
    if ((!fallMovementGuard && !fallMotionGuard) || !falls.length) return falls;
    return falls.filter((fall) => {
      const at = (fall.time - this.#originMs) / 1000;
      const near = (s: number) => s + 1 > at - 2 && s < at + 3;
      return (!fallMovementGuard || this.#movingSeconds.some(near)) && (!fallMotionGuard || this.#motionSeconds.some(near));
    });
  }

  /**
   * How far the channel settled from where it was: the RMS over the conjugate-product channels (amplitude
   * groups with one chain) of the mean 1.5–3.5 s after slot `at` minus the mean 1–3 s before it. A fall
   * leaves the body somewhere else (on the floor); a fidget returns to where it was.
   */
  #stateChange(at: number): number {
    const ring = this.#breathRing!;
    const rate = this.options.config.gridRateHz;
    const amplitudeChannels = this.#streams * this.#groups.length;
    const from = ring.width > amplitudeChannels ? amplitudeChannels : 0;
    const to = ring.width > amplitudeChannels ? ring.width : amplitudeChannels;
    const mean = (start: number, end: number, c: number) => {
      let sum = 0;
      let n = 0;
      for (let slot = start; slot < end; slot++) {
        const back = this.#current - 1 - slot;
        if (back < 0 || back >= ring.count) continue;
        sum += ring.data[ring.offset(back) + c];
        n++;
      }
      return n ? sum / n : NaN;
    };
    let total = 0;
    let channels = 0;
    for (let c = from; c < to; c++) {
      const d = mean(at + Math.round(1.5 * rate), at + Math.round(3.5 * rate), c) - mean(at - 3 * rate, at - rate, c);
      if (Number.isFinite(d)) {
        total += d * d;
        channels++;
      }
    }
    return channels ? Math.sqrt(total / channels) : 0;
  }

  /** Add a second's pair spread to the link's history and return the history's 10th percentile. */
  #pairFloor(pairSpread: number): number {
    this.#pairHistory.push([pairSpread]);
    this.#pairHistoryCount++;
    this.#lastPairFloor = this.#pairHistory.orderStatistic(0.1)[0];
    return this.#lastPairFloor;
  }

  /**
   * Whether `bpm` is a harmonic of a train of short disturbances in the last `slots` slot steps (see
   * `periodicImpulses`): such a train puts a comb at multiples of 60 / period, and a peak on one of its teeth
   * is the radio, not a chest. Only the rate the train explains is withheld, so a breathing rate beside an
   * unrelated disturbance stays.
   */
  #impulseHarmonic(slots: number, bpm: number): boolean {
    const ring = this.#slotStepRing;
    const steps = new Float64Array(slots);
    for (let i = 0; i < slots; i++) steps[i] = ring[(this.#current - slots + i + ring.length * 4) % ring.length];
    const train = periodicImpulses(steps, slots, this.options.config.gridRateHz);
    if (!train) return false;
    const fundamental = 60 / train.periodSeconds;
    const k = Math.max(1, Math.round(bpm / fundamental));
    // The period is read to about ±0.1 s of ~6 s; the k-th tooth's position is k times as uncertain.
    return Math.abs(bpm - k * fundamental) <= 0.5 + 0.02 * k * fundamental;
  }

  /** The motion model for this second: the family's, or its slow links' one when the last 10 s brought fewer packets than it needs. */
  #motionModel(second: number) {
    const { models } = this.options;
    const family = radioFamily(this.#format);
    const slow = models.motionSlow?.[family];
    const below = models.motionSlowBelow?.[family];
    const recent = Math.min(RECENT_SECONDS, second + 1);
    const { lost, slots } = this.#recentLost(recent);
    // Only on links as even as the thinned captures it was fitted on: a bursty link's seconds swing between full and empty.
    this.#slowModel = Boolean(slow && below !== undefined && this.#packetRate(second, recent) < below && lost <= SLOW_MODEL_MAX_EMPTY * slots);
    return this.#slowModel ? slow! : (models.motion[family] ?? models.motion.int8);
  }

  /**
   * The second's motion inputs; with the link's floor kept (its family has `motionFloor`), every second that brought
   * a packet is added to it, and the four inputs minus their floor are appended when the model reads them.
   */
  #motionVector(features: MotionFeatures, model: LogisticModel, observed: boolean): number[] {
    const inputs = motionInputs(features);
    const floorSettings = this.options.models.motionFloor?.[radioFamily(this.#format)];
    this.#floorRead = null;
    if (!floorSettings) return inputs;
    this.#motionFloor ??= new MotionFloor(MOTION_FLOOR_FEATURES.length, floorSettings.seconds);
    // A second without a packet says nothing of the room's quiet level (its held slots read as no change at all).
    if (observed) this.#motionFloor.push(inputs);
    if (model.floorQuantile === undefined) return inputs;
    this.#floorRead = model.floorQuantile;
    // Before any second brought a packet the floor is empty: the second is its own level.
    const floor = this.#motionFloor.size ? this.#motionFloor.floor(model.floorQuantile) : inputs.slice(0, MOTION_FLOOR_FEATURES.length);
    return [...inputs, ...belowFloor(inputs, floor)];
  }

  /** Empty grid slots among the last `seconds` seconds' slots. */
  #recentLost(seconds: number): { lost: number; slots: number } {
    let lost = 0;
    const slots = Math.min(seconds * this.options.config.gridRateHz, this.#lostRing.length);
    for (let i = 0; i < slots; i++) lost += this.#lostRing[(this.#current - 1 - i + this.#lostRing.length * 4) % this.#lostRing.length];
    return { lost, slots };
  }

  #packetRate(second: number, seconds: number): number {
    let packets = 0;
    const perSecond = this.#packetsPerSecond;
    const n = Math.min(seconds, perSecond.length - 1, second + 1);
    for (let s = second - n + 1; s <= second; s++) packets += perSecond[s % perSecond.length];
    return packets / Math.max(1, n);
  }

  #breathChannels(slots: number): Float64Array[] {
    const ring = this.#breathRing!;
    const amplitudeChannels = this.#streams * this.#groups.length;
    const pairsOnly = this.options.models.breathingChannelsByFamily?.[radioFamily(this.#format)] === 'pairs' && ring.width > amplitudeChannels;
    const from = pairsOnly ? amplitudeChannels : 0;
    const channels = Array.from({ length: ring.width - from }, () => new Float64Array(slots));
    for (let i = 0; i < slots; i++) {
      const o = ring.offset(slots - 1 - i);
      for (let c = from; c < ring.width; c++) channels[c - from][i] = ring.data[o + c];
    }
    return channels;
  }
}

/**
 * Check that every motion model reading the link's floor says which quantile it reads and that its family keeps a
 * floor (`SensingModels.motionFloor`): a model that does not would read its inputs against nothing.
 */
export function checkMotionFloors(models: SensingModels): void {
  const all = [...Object.entries(models.motion), ...Object.entries(models.motionSlow ?? {})];
  for (const [family, model] of all) {
    const reads = model.features.some((name) => MOTION_FLOOR_FEATURES.includes(name));
    if (reads && (model.floorQuantile === undefined || !(model.floorQuantile >= 0 && model.floorQuantile <= 1))) throw new Error(`sensing models: the ${family} motion model reads the link's floor (${model.features.filter((n) => MOTION_FLOOR_FEATURES.includes(n)).join(', ')}) but has no floorQuantile in [0, 1]`);
    if (reads && !models.motionFloor?.[family]) throw new Error(`sensing models: the ${family} motion model reads the link's floor but motionFloor.${family} (the seconds it keeps) is not set`);
  }
}
