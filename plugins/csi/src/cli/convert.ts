import { createWriteStream } from 'node:fs';
import type { CsiFrame } from '@wiflow/core';
import { invalidArgument } from '../errors.js';
import { openCapture, type CaptureOptions } from '../readers/capture.js';
import { RecordingWriter } from '../recording/format.js';

/** The JSON object `csi convert --to json` writes per frame. */
export function frameToJson(frame: CsiFrame): Record<string, unknown> {
  const shape = [frame.ntx, frame.nrx, frame.nsc];
  const out: Record<string, unknown> = {
    timestamp: frame.timestamp,
    time: frame.time,
    sourceId: frame.sourceId,
    link: frame.link,
    format: frame.format,
    provenance: frame.provenance,
    centerFrequencyHz: frame.centerFrequencyHz,
    bandwidthHz: frame.bandwidthHz,
    ntx: frame.ntx,
    nrx: frame.nrx,
    nsc: frame.nsc,
    subcarriers: Array.from(frame.subcarriers),
    csi: { shape, re: Array.from(frame.csi.re), im: Array.from(frame.csi.im) },
  };
  if (frame.scaled) out.csi_scaled = { shape, re: Array.from(frame.scaled.re), im: Array.from(frame.scaled.im) };
  if (frame.rssi) out.rssi = frame.rssi.map((v) => (Number.isFinite(v) ? v : null));
  if (frame.noiseDbm !== undefined) out.noiseDbm = frame.noiseDbm;
  if (frame.agc !== undefined) out.agc = frame.agc;
  if (frame.sequence !== undefined) out.sequence = frame.sequence;
  if (frame.extra) out.extra = frame.extra;
  if (frame.truth) out.truth = frame.truth;
  return out;
}

/** Options of `convertCapture`. */
export interface ConvertOptions extends CaptureOptions {
  to: 'json' | 'wiflow';
  /** Output file; json goes to `write` when absent; wiflow requires it. */
  output?: string;
}

/** Convert a capture to JSON lines or a wiflow recording; returns the number of frames written. */
export async function convertCapture(path: string, options: ConvertOptions, write: (line: string) => void = (l) => process.stdout.write(l + '\n')): Promise<{ frames: number; error: string | null }> {
  // JSON keeps what the device reported: all Nexmon bins in device order.
  const reader = await openCapture(path, { nullSubcarriers: options.to === 'json' ? 'keep' : 'drop', ...options, onError: options.onError ?? 'throw' });
  let frames = 0;
  if (options.to === 'wiflow') {
    if (!options.output) throw invalidArgument('convert --to wiflow needs --output <file.wfr>');
    const writer = await RecordingWriter.create(options.output, { source: path, sourceFormat: reader.format });
    try {
      for await (const frame of reader) {
        await writer.write(frame);
        frames++;
      }
    } finally {
      await writer.close();
    }
    return { frames, error: reader.error?.message ?? null };
  }
  if (options.to !== 'json') throw invalidArgument(`unknown conversion target ${String(options.to)} (json or wiflow)`);
  if (options.output) {
    const stream = createWriteStream(options.output);
    try {
      for await (const frame of reader) {
        if (!stream.write(JSON.stringify(frameToJson(frame)) + '\n')) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
        frames++;
      }
    } finally {
      await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    }
  } else {
    for await (const frame of reader) {
      write(JSON.stringify(frameToJson(frame)));
      frames++;
    }
  }
  return { frames, error: reader.error?.message ?? null };
}
