import { openCapture, type CsiParseError } from '@wiflow/plugin-csi';
import type { CsiFrame, SensingFrame } from '@wiflow/core';
import { SensingConfigSchema, sensingConfigHash, type SensingConfig, type SensingModels } from './config.js';
import { DEFAULT_SENSING_MODELS } from './model/defaults.js';
import { combineRoomSecond } from './room.js';
import { LinkSensor, type LinkSensorOptions } from './signal/link-sensor.js';

/** Options of `senseCapture`. */
export interface SenseCaptureOptions {
  environmentId?: string;
  config?: Partial<SensingConfig>;
  models?: SensingModels;
  /** Empty-room spread per link key (`tx>rx`), from `referenceSpread`. */
  emptySpread?: Map<string, number>;
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
  /** The fault that ended reading early (frames before it were sensed), or null. */
  error: CsiParseError | null;
}

const linkKey = (frame: CsiFrame) => `${frame.link.tx}>${frame.link.rx}`;

/** Run the per-link sensing over a capture file of any format wiflow reads, and combine its links per second. */
export async function senseCapture(path: string, options: SenseCaptureOptions = {}): Promise<SenseCaptureResult> {
  const config = SensingConfigSchema.parse(options.config ?? {});
  const models = options.models ?? DEFAULT_SENSING_MODELS;
  const configHash = sensingConfigHash(config, models);
  const reader = await openCapture(path, { onError: 'stop' });
  const sensors = new Map<string, LinkSensor>();
  const links: SensingFrame[] = [];
  let frames = 0;
  for await (const frame of reader) {
    frames++;
    const key = linkKey(frame);
    let sensor = sensors.get(key);
    if (!sensor) {
      sensor = new LinkSensor(frame.link, { environmentId: options.environmentId ?? 'default', config, models, configHash, emptySpread: options.emptySpread?.get(key) ?? null, onMotionFeatures: options.onMotionFeatures, onFallCandidate: options.onFallCandidate, onProfileEvent: options.onProfileEvent });
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
  return { file: path, room, links, frames, error: reader.error };
}

/** Median motion spread of an empty-room capture per link: the level a still person must exceed to count by level. */
export async function referenceSpread(path: string, options: SenseCaptureOptions = {}): Promise<Map<string, number>> {
  const spreads = new Map<string, number[]>();
  const reader = await openCapture(path, { onError: 'stop' });
  const config = SensingConfigSchema.parse(options.config ?? {});
  const models = options.models ?? DEFAULT_SENSING_MODELS;
  const sensors = new Map<string, LinkSensor>();
  for await (const frame of reader) {
    const key = linkKey(frame);
    let sensor = sensors.get(key);
    if (!sensor) {
      const list: number[] = [];
      spreads.set(key, list);
      sensor = new LinkSensor(frame.link, { environmentId: 'reference', config, models, configHash: '', onMotionFeatures: (_s, f) => list.push(f.spread) });
      sensors.set(key, sensor);
    }
    sensor.push(frame);
  }
  for (const sensor of sensors.values()) sensor.finish();
  if (reader.error) throw reader.error;
  const out = new Map<string, number>();
  for (const [key, list] of spreads) {
    if (!list.length) continue;
    const sorted = [...list].sort((a, b) => a - b);
    out.set(key, sorted[sorted.length >> 1]);
  }
  return out;
}
