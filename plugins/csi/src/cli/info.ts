import type { CsiFrame } from '@wiflow/core';
import { openCapture, type CaptureOptions } from '../readers/capture.js';

/** Facts about one link of a capture. */
export interface LinkInfo {
  tx: string;
  rx: string;
  frames: number;
}

/** What `wiflow csi info` reports. */
export interface CaptureInfo {
  path: string;
  format: string;
  bytes: number;
  frames: number;
  links: LinkInfo[];
  /** Stream shapes seen, as `ntx×nrx` with their frame counts. */
  shapes: Record<string, number>;
  /** Subcarrier counts seen, with frame counts. */
  subcarrierCounts: Record<string, number>;
  /** Lowest and highest physical subcarrier index over all frames. */
  subcarrierRange: [number, number] | null;
  centerFrequenciesHz: number[];
  bandwidthsHz: number[];
  /** Device-clock duration, first to last frame, in seconds. */
  durationSeconds: number;
  /** Frames per second over the device clock (frames − 1 over the duration), per link averaged. */
  rateHz: number | null;
  /** Median inter-frame interval within links, in milliseconds. */
  medianIntervalMs: number | null;
  /** RSSI statistics over every chain value reported (device units, dBm for most devices). */
  rssi: { min: number; mean: number; max: number; count: number } | null;
  noiseDbm: { min: number; max: number } | null;
  /** How a Nexmon chip encoding was chosen, when it was guessed. */
  notes: string[];
  /** The fault that ended reading early, if any. */
  error: { code: string; offset: number; message: string } | null;
  skipped: number;
}

/** Read a capture through and collect its facts (streaming: constant memory). */
export async function captureInfo(path: string, options: CaptureOptions = {}): Promise<CaptureInfo> {
  const reader = await openCapture(path, { ...options, onError: options.onError === 'skip' ? 'skip' : 'stop' });
  const links = new Map<string, LinkInfo>();
  const shapes: Record<string, number> = {};
  const counts: Record<string, number> = {};
  const centres = new Set<number>();
  const bandwidths = new Set<number>();
  const lastByLink = new Map<string, number>();
  const intervals: number[] = [];
  const encodings = new Set<string>();
  const encodingSources = new Set<string>();
  let frames = 0;
  let low = Number.POSITIVE_INFINITY;
  let high = Number.NEGATIVE_INFINITY;
  let first = Number.NaN;
  let last = Number.NaN;
  let rssiMin = Number.POSITIVE_INFINITY;
  let rssiMax = Number.NEGATIVE_INFINITY;
  let rssiSum = 0;
  let rssiCount = 0;
  let noiseMin = Number.POSITIVE_INFINITY;
  let noiseMax = Number.NEGATIVE_INFINITY;
  const note = (frame: CsiFrame) => {
    const key = `${frame.link.tx}\u0000${frame.link.rx}`;
    let link = links.get(key);
    if (!link) links.set(key, (link = { tx: frame.link.tx, rx: frame.link.rx, frames: 0 }));
    link.frames++;
    const previous = lastByLink.get(key);
    if (previous !== undefined && intervals.length < 1_000_000) intervals.push(frame.timestamp - previous);
    lastByLink.set(key, frame.timestamp);
    shapes[`${frame.ntx}x${frame.nrx}`] = (shapes[`${frame.ntx}x${frame.nrx}`] ?? 0) + 1;
    counts[frame.nsc] = (counts[frame.nsc] ?? 0) + 1;
    for (let i = 0; i < frame.subcarriers.length; i++) {
      if (frame.subcarriers[i] < low) low = frame.subcarriers[i];
      if (frame.subcarriers[i] > high) high = frame.subcarriers[i];
    }
    if (frame.centerFrequencyHz !== null) centres.add(frame.centerFrequencyHz);
    if (frame.bandwidthHz !== null) bandwidths.add(frame.bandwidthHz);
    if (Number.isNaN(first) || frame.timestamp < first) first = frame.timestamp;
    if (Number.isNaN(last) || frame.timestamp > last) last = frame.timestamp;
    for (const v of frame.rssi ?? []) {
      if (!Number.isFinite(v)) continue;
      rssiMin = Math.min(rssiMin, v);
      rssiMax = Math.max(rssiMax, v);
      rssiSum += v;
      rssiCount++;
    }
    if (frame.noiseDbm !== undefined && Number.isFinite(frame.noiseDbm)) {
      noiseMin = Math.min(noiseMin, frame.noiseDbm);
      noiseMax = Math.max(noiseMax, frame.noiseDbm);
    }
    if (frame.format === 'nexmon' && typeof frame.extra?.encoding === 'string') {
      encodings.add(frame.extra.encoding);
      encodingSources.add(String(frame.extra.encodingSource));
    }
  };
  for await (const frame of reader) {
    frames++;
    note(frame);
  }
  intervals.sort((a, b) => a - b);
  const duration = frames > 1 ? (last - first) / 1e6 : 0;
  const perLink = [...links.values()];
  const rates = perLink.filter((l) => l.frames > 1).map((l) => l.frames);
  const notes: string[] = [];
  if (encodings.size && !options.chip) {
    const how = [...encodingSources].map((s) => (s === 'content' ? 'guessed from the content (the chip id is not a known chip)' : s === 'chip-id' ? 'taken from the chip id in the packets' : s)).join(', ');
    notes.push(`Nexmon CSI encoding ${[...encodings].join(', ')} ${how}; set --chip to be sure`);
  }
  if (frames > 1 && last === first) notes.push('the device timestamps do not advance, so the rate is unknown');
  return {
    path,
    format: reader.format,
    bytes: reader.size,
    frames,
    links: perLink,
    shapes,
    subcarrierCounts: counts,
    subcarrierRange: frames ? [low, high] : null,
    centerFrequenciesHz: [...centres].sort((a, b) => a - b),
    bandwidthsHz: [...bandwidths].sort((a, b) => a - b),
    durationSeconds: duration,
    rateHz: duration > 0 && rates.length ? (frames - perLink.length) / duration : null,
    medianIntervalMs: intervals.length ? intervals[intervals.length >> 1] / 1000 : null,
    rssi: rssiCount ? { min: rssiMin, mean: rssiSum / rssiCount, max: rssiMax, count: rssiCount } : null,
    noiseDbm: Number.isFinite(noiseMin) ? { min: noiseMin, max: noiseMax } : null,
    notes,
    error: reader.error ? { code: reader.error.code, offset: reader.error.offset, message: reader.error.message } : null,
    skipped: reader.skipped.length,
  };
}

function round(value: number, digits = 2): string {
  return Number(value.toFixed(digits)).toString();
}

/** The lines `wiflow csi info` prints. */
export function formatCaptureInfo(info: CaptureInfo): string[] {
  const lines = [
    `file:         ${info.path}`,
    `format:       ${info.format}`,
    `size:         ${info.bytes} bytes`,
    `frames:       ${info.frames}`,
    `duration:     ${round(info.durationSeconds, 3)} s`,
    `rate:         ${info.rateHz === null ? 'n/a' : `${round(info.rateHz)} frames/s`}${info.medianIntervalMs === null ? '' : ` (median interval ${round(info.medianIntervalMs, 3)} ms)`}`,
    `links:        ${info.links.length}`,
    ...info.links.map((l) => `  ${l.tx} -> ${l.rx}: ${l.frames} frames`),
    `streams:      ${Object.entries(info.shapes).map(([s, n]) => `${s} (${n})`).join(', ') || 'n/a'}`,
    `subcarriers:  ${Object.entries(info.subcarrierCounts).map(([s, n]) => `${s} (${n} frames)`).join(', ') || 'n/a'}${info.subcarrierRange ? `, indices ${info.subcarrierRange[0]}..${info.subcarrierRange[1]}` : ''}`,
    `channel:      ${info.centerFrequenciesHz.map((f) => `${round(f / 1e6, 1)} MHz`).join(', ') || 'n/a'}, bandwidth ${info.bandwidthsHz.map((b) => `${b / 1e6} MHz`).join(', ') || 'n/a'}`,
    `rssi:         ${info.rssi ? `min ${round(info.rssi.min)}, mean ${round(info.rssi.mean)}, max ${round(info.rssi.max)} (${info.rssi.count} values)` : 'n/a'}`,
    `noise:        ${info.noiseDbm ? `${info.noiseDbm.min}..${info.noiseDbm.max} dBm` : 'n/a'}`,
  ];
  if (info.skipped) lines.push(`skipped:      ${info.skipped} bad records`);
  for (const note of info.notes) lines.push(`note:         ${note}`);
  if (info.error) lines.push(`error:        ${info.error.message}`);
  return lines;
}
