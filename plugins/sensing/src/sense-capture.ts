import { openCapture, type CsiParseError } from '@wiflow/plugin-csi';
import type { CsiFrame, SensingFrame } from '@wiflow/core';
import { SensingConfigSchema, sensingConfigHash, type SensingConfig, type SensingModels } from './config.js';
import { DEFAULT_SENSING_MODELS } from './model/defaults.js';
import { combineRoomSecond } from './room.js';
import { EmptyRoomReferenceRecorder, referenceLinkKey, type LinkReference } from './signal/empty-room-reference.js';
import { LinkSensor, type LinkSensorOptions, type LinkSnapshot } from './signal/link-sensor.js';

/** Options of `senseCapture`. */
export interface SenseCaptureOptions {
  environmentId?: string;
  config?: Partial<SensingConfig>;
  models?: SensingModels;
  /** The empty-room reference per link key (`tx>rx`), from `readEmptyRoomReference`: links without one are sensed as without `--reference`. */
  reference?: Map<string, LinkReference>;
  /** Keep 1 packet in `thin` of each link (the evaluation's slower link: the same capture at a k-fold lower rate). */
  thin?: number;
  /** Hooks for the evaluation. */
  onMotionFeatures?: LinkSensorOptions['onMotionFeatures'];
  onFallCandidate?: LinkSensorOptions['onFallCandidate'];
  onProfileEvent?: LinkSensorOptions['onProfileEvent'];
}

/** What sensing a capture produced: one room frame per whole second, the link frames, and the reader's fault. */
export interface SenseCaptureResult {
  file: string;
  room: SensingFrame[];
  links: SensingFrame[];
  frames: number;
  /** Each link as the sensing saw it, its packet rate and empty grid slots over the whole capture (`linkReadiness` judges them). */
  linkSnapshots: LinkSnapshot[];
  /** The fault that ended reading early (frames before it were sensed), or null. */
  error: CsiParseError | null;
}

const linkKey = (frame: CsiFrame) => referenceLinkKey(frame.link);

/** Run the per-link sensing over a capture file of any format wiflow reads, and combine its links per second. */
export async function senseCapture(path: string, options: SenseCaptureOptions = {}): Promise<SenseCaptureResult> {
  const config = SensingConfigSchema.parse(options.config ?? {});
  const models = options.models ?? DEFAULT_SENSING_MODELS;
  const configHash = sensingConfigHash(config, models);
  const reader = await openCapture(path, { onError: 'stop' });
  const sensors = new Map<string, LinkSensor>();
  const links: SensingFrame[] = [];
  let frames = 0;
  const thin = Math.max(1, Math.round(options.thin ?? 1));
  const seen = new Map<string, number>();
  for await (const frame of reader) {
    frames++;
    const key = linkKey(frame);
    if (thin > 1) {
      const n = seen.get(key) ?? 0;
      seen.set(key, n + 1);
      if (n % thin !== 0) continue;
    }
    let sensor = sensors.get(key);
    if (!sensor) {
      sensor = new LinkSensor(frame.link, { environmentId: options.environmentId ?? 'default', config, models, configHash, reference: options.reference?.get(key) ?? null, onMotionFeatures: options.onMotionFeatures, onFallCandidate: options.onFallCandidate, onProfileEvent: options.onProfileEvent });
      sensors.set(key, sensor);
    }
    for (const f of sensor.push(frame)) links.push(f);
  }
  for (const sensor of sensors.values()) for (const f of sensor.finish()) links.push(f);
  const bySecond = new Map<number, SensingFrame[]>();
  for (const f of links) {
    const list = bySecond.get(f.second) ?? [];
    list.push(f);
    bySecond.set(f.second, list);
  }
  const room = [...bySecond.keys()].sort((a, b) => a - b).map((s) => combineRoomSecond(bySecond.get(s)!));
  const linkSnapshots = [...sensors.values()].map((sensor) => {
    const snapshot = sensor.snapshot();
    const { frames: received, otherKindFrames, lostSlots, slots } = sensor.stats;
    return { ...snapshot, packetsPerSecond: snapshot.seconds ? (received - otherKindFrames) / snapshot.seconds : null, lostFraction: slots ? lostSlots / slots : null };
  });
  return { file: path, room, links, frames, linkSnapshots, error: reader.error };
}

/** The per-link empty-room reference of a capture file (an installer's capture of the room with nobody in it). */
export async function readEmptyRoomReference(path: string, options: Pick<SenseCaptureOptions, 'config' | 'models'> = {}): Promise<Map<string, LinkReference>> {
  const recorder = new EmptyRoomReferenceRecorder(SensingConfigSchema.parse(options.config ?? {}), options.models ?? DEFAULT_SENSING_MODELS);
  const reader = await openCapture(path, { onError: 'stop' });
  for await (const frame of reader) recorder.push(frame);
  if (reader.error) throw reader.error;
  return recorder.build();
}
