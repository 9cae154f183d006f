import type { CsiFrame, EmptyRoomLinkQuality, EmptyRoomRecordingReport } from '@wiflow/core';
import { z } from 'zod';
import { PoseErrors } from '../errors.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import { ChannelBlockMeter, changePower, type ChannelBlock } from './channel-block.js';
import { linkKey } from './reference-check.js';
import { chooseGainModel, ReferenceRecorder, type EmptyRoomReference } from './reference.js';

/** Thresholds of the quality check of an empty-room recording. */
export const RecordingQualitySchema = z.object({
  /** Packets per link at least (a reference averages them; fewer leave its own noise in every change). */
  minPackets: z.number().int().positive().default(100),
  /** Packets per second per link at least. */
  minRateHz: z.number().positive().default(10),
  /** Largest spread of the per-second received power (dB): an AGC that steps during the recording leaves two rooms in one. */
  maxPowerSpreadDb: z.number().positive().default(3),
  /** Channel power over the reference's own noise floor (dB) at least. */
  minSnrDb: z.number().default(6),
  /**
   * A second is moving when its change is smooth over subcarriers (coherence, see
   * `ChannelBlock`) above this: noise gives about 0.05, a person walking 0.2 to 0.9.
   */
  motionCoherence: z.number().positive().default(0.15),
  /** A second is moving when its dynamic power exceeds the recording's median second by this factor. */
  motionPowerFactor: z.number().positive().default(2),
  /** The room changed during the recording when a second's mean differs from the whole recording's by this many noise floors (someone standing, then leaving). */
  maxStepNoiseFloors: z.number().positive().default(2),
});

/** Thresholds of the quality check. */
export type RecordingQuality = z.output<typeof RecordingQualitySchema>;

/** One link's quality check (core's type: the pose API and the studio read it too). */
export type LinkQuality = EmptyRoomLinkQuality;

/** The quality check of a recording. */
export type RecordingReport = EmptyRoomRecordingReport;

/** Packets a link's quality meter waits for to choose the gain model (as the reference recorder does). */
const GAIN_DECISION_PACKETS = 10;

interface LinkRecording {
  /** Null until `GAIN_DECISION_PACKETS` packets came (they wait in `held`). */
  meter: ChannelBlockMeter | null;
  held: CsiFrame[];
  blocks: ChannelBlock[];
  packets: number;
  first: number;
  last: number;
  agc: Set<number>;
}

const blockMedian = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
};

/**
 * Records an empty room for one environment and checks the recording before it becomes a
 * reference: enough packets per link at a steady rate, a receiver gain that did not step, a
 * noise floor well under the channel, and nothing moving (a person still in the room, walking
 * out late, a door swinging). Frames of links the environment does not have are ignored.
 */
export class EmptyRoomRecording {
  readonly #recorder: ReferenceRecorder;
  readonly #links = new Map<string, LinkRecording>();
  readonly #wanted: Set<string>;
  readonly quality: RecordingQuality;

  constructor(readonly environment: EnvironmentGeometry, source: string, quality: Partial<RecordingQuality> = {}) {
    this.#recorder = new ReferenceRecorder(environment.id, source);
    this.#wanted = new Set(environment.links.map(linkKey));
    this.quality = RecordingQualitySchema.parse(quality);
  }

  /** Seconds recorded so far (the slowest link's span). */
  get seconds(): number {
    if (this.#links.size < this.#wanted.size) return 0;
    return Math.min(...[...this.#links.values()].map((l) => (l.last - l.first) / 1000));
  }

  /** Add one frame (any link; others than the environment's are ignored). */
  push(frame: CsiFrame): void {
    const key = linkKey(frame.link);
    if (!this.#wanted.has(key)) return;
    this.#recorder.push(frame);
    let link = this.#links.get(key);
    if (!link) {
      link = { meter: null, held: [], blocks: [], packets: 0, first: frame.time, last: frame.time, agc: new Set() };
      this.#links.set(key, link);
    }
    link.packets++;
    link.last = frame.time;
    if (typeof frame.agc === 'number') link.agc.add(frame.agc);
    if (!link.meter) {
      link.held.push(frame);
      if (link.held.length >= GAIN_DECISION_PACKETS) this.#startMeter(link);
      return;
    }
    const block = link.meter.push(frame.csi, frame.time);
    if (block) link.blocks.push(block);
  }

  /**
   * Blocks of a second, every packet aligned to the link's first (timing and gain only), with
   * the gain model the reference will use: radios whose receive chains jump phase from packet
   * to packet would otherwise look like motion.
   */
  #startMeter(link: LinkRecording): void {
    const [first] = link.held;
    const gain = chooseGainModel(link.held.map((f) => f.csi), first.subcarriers, first.nrx);
    link.meter = new ChannelBlockMeter({ re: Float64Array.from(first.csi.re), im: Float64Array.from(first.csi.im) }, first.subcarriers, 1000, 5, Infinity, { nrx: first.nrx, gain });
    for (const frame of link.held.splice(0)) {
      const block = link.meter.push(frame.csi, frame.time);
      if (block) link.blocks.push(block);
    }
  }

  /** The quality check of what was recorded so far. */
  report(): RecordingReport {
    const q = this.quality;
    const links: LinkQuality[] = [];
    for (const key of this.#wanted) {
      const link = this.#links.get(key);
      if (!link) {
        links.push({ link: key, packets: 0, rateHz: null, powerSpreadDb: null, agcValues: null, snrDb: null, motionSeconds: [], problems: ['no packets: is this receiver on and on the right channel?'] });
        continue;
      }
      if (!link.meter) this.#startMeter(link);
      const problems: string[] = [];
      const span = (link.last - link.first) / 1000;
      const rateHz = link.packets > 1 && span > 0 ? (link.packets - 1) / span : null;
      if (link.packets < q.minPackets) problems.push(`${link.packets} packets, at least ${q.minPackets} needed (record longer)`);
      if (rateHz !== null && rateHz < q.minRateHz) problems.push(`${rateHz.toFixed(1)} packets/s, at least ${q.minRateHz} needed (check the packet injection rate)`);
      let powerSpreadDb: number | null = null, snrDb: number | null = null;
      const motionSeconds: number[] = [];
      if (link.blocks.length) {
        const powers = link.blocks.map((b) => blockMedian(b.powerDb));
        powerSpreadDb = Math.max(...powers) - Math.min(...powers);
        if (powerSpreadDb > q.maxPowerSpreadDb) problems.push(`received power moved by ${powerSpreadDb.toFixed(1)} dB (AGC not stable, at most ${q.maxPowerSpreadDb} dB): fix the receiver's gain or keep it still`);
        const floor = blockMedian(link.blocks.map((b) => b.dynamicPower));
        const n = link.blocks[0].mean.re.length;
        const mean = { re: new Float64Array(n), im: new Float64Array(n) };
        for (const b of link.blocks) for (let j = 0; j < n; j++) { mean.re[j] += b.mean.re[j] / link.blocks.length; mean.im[j] += b.mean.im[j] / link.blocks.length; }
        const channel = changePower(mean, { re: new Float64Array(n), im: new Float64Array(n) });
        snrDb = floor > 0 ? 10 * Math.log10(channel / floor) : null;
        if (snrDb !== null && snrDb < q.minSnrDb) problems.push(`the reference's noise floor is only ${snrDb.toFixed(1)} dB under the channel (at least ${q.minSnrDb} dB): move the radios closer or raise the transmit power`);
        link.blocks.forEach((b, i) => {
          const moving = b.coherence > q.motionCoherence || b.dynamicPower > floor * q.motionPowerFactor;
          // A second whose mean sits apart from the rest: something stood there, then moved (the block mean's own noise is floor / packets).
          const step = floor > 0 ? (changePower(b.mean, mean) - floor / b.packets) / floor : 0;
          if (moving || step > q.maxStepNoiseFloors) motionSeconds.push(i);
        });
        if (motionSeconds.length) problems.push(`motion in the room during second${motionSeconds.length > 1 ? 's' : ''} ${motionSeconds.join(', ')} of the recording: everybody must leave the room (doors, fans and pets still) and the recording be made again`);
      }
      links.push({ link: key, packets: link.packets, rateHz, powerSpreadDb, agcValues: link.agc.size ? [...link.agc].sort((a, b) => a - b) : null, snrDb, motionSeconds, problems });
    }
    return { environmentId: this.environment.id, seconds: this.seconds, passed: links.every((l) => l.problems.length === 0), links };
  }

  /**
   * The reference, when the recording passes its quality check; else
   * `WIFLOW_POSE_REFERENCE_REFUSED` naming every link's problems (nothing is written).
   */
  finish(): { reference: EmptyRoomReference; report: RecordingReport } {
    const report = this.report();
    if (!report.passed) throw PoseErrors.referenceRefused(this.environment.id, report.links.filter((l) => l.problems.length).map((l) => `link ${l.link}: ${l.problems.join('; ')}`).join(' | '));
    return { reference: this.#recorder.build(this.quality.minPackets), report };
  }
}
