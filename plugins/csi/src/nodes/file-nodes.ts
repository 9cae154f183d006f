import { DataTypes, defineNode, type CsiFrame, type GroundTruthFrame } from '@wiflow/core';
import { z } from 'zod';
import { openCapture, type CaptureReader } from '../readers/capture.js';
import { CAPTURE_FORMATS, NEXMON_CHIPS, type CaptureFormat } from '../readers/decoder.js';
import { RecordingWriter } from '../recording/format.js';
import { invalidArgument } from '../errors.js';
import { LoopClock, Pacer } from './pacing.js';

const chips = ['auto', ...Object.keys(NEXMON_CHIPS)] as [string, ...string[]];

/** Config of `csi.file`. */
export const FileSourceConfig = z.object({
  path: z.string().min(1).describe('Capture file (any supported format)'),
  format: z.enum(CAPTURE_FORMATS).optional().describe('Force a format instead of detecting it'),
  chip: z.enum(chips).default('auto').describe('Nexmon chip (decides the CSI encoding)'),
  speed: z.number().min(0).max(1000).default(0).describe('1 = recorded rate, 2 = twice as fast, 0 = as fast as possible'),
  loop: z.boolean().default(false),
  onError: z.enum(['stop', 'skip']).default('stop').describe('At bad content: stop there and fail with the file and byte offset, or pass over bad records (content cut short still fails)'),
  sourceId: z.string().optional(),
});

interface PlaybackState {
  frames: number;
  passes: number;
  skipped: number;
  error: string | null;
  format: string | null;
}

type PlayOptions = { format?: CaptureFormat; chip?: string; speed: number; loop: boolean; onError: 'stop' | 'skip'; sourceId?: string; onTruth?: (truth: GroundTruthFrame) => void };

const openFor = (path: string, options: PlayOptions): Promise<CaptureReader> =>
  openCapture(path, { format: options.format, chip: options.chip as never, onError: options.onError, sourceId: options.sourceId, onTruth: options.onTruth });

/**
 * Play `first` (a reader opened when the node was created, so a missing, unreadable or unknown file
 * fails the pipeline's start, and a deploy answers with the failure) and, when looping, the file again.
 */
async function play(
  first: CaptureReader,
  options: PlayOptions,
  signal: AbortSignal,
  emit: (frame: CsiFrame) => void | Promise<void>,
  state: PlaybackState,
): Promise<void> {
  const pacer = new Pacer(options.speed, signal);
  const clock = new LoopClock();
  const path = first.path;
  let next: CaptureReader | null = first;
  do {
    const reader: CaptureReader = next ?? (await openFor(path, options));
    next = null;
    state.format = reader.format;
    for await (const raw of reader) {
      if (signal.aborted) return;
      const frame = clock.apply(raw);
      await pacer.wait(frame);
      if (signal.aborted) return;
      state.frames++;
      await emit(frame);
    }
    state.skipped += reader.skipped.length;
    if (reader.error) {
      state.error = reader.error.message;
      // A capture cut short is a failed read, not a finished one: the job (or pipeline) fails
      // with the file and byte offset instead of completing as if the file had ended there.
      throw reader.error;
    }
    state.passes++;
    clock.nextPass();
    if (options.loop && state.frames === 0) throw invalidArgument(`${path}: no frames to loop over`);
  } while (options.loop && !signal.aborted);
}

/** Read a capture file of any supported format. */
export const fileSourceNode = defineNode({
  type: 'csi.file',
  title: 'CSI capture file',
  category: 'sources',
  description: 'Streams the frames of a capture file (Intel 5300, Atheros, ESP32 CSV, Nexmon pcap/pcapng, PicoScenes, wiflow recording), as fast as possible or at the recorded rate.',
  inputs: {},
  outputs: { frames: { type: DataTypes.CsiFrame, description: 'CSI frames' } },
  config: FileSourceConfig,
  capabilities: ['fs.read'],
  source: true,
  async create(ctx) {
    const state: PlaybackState = { frames: 0, passes: 0, skipped: 0, error: null, format: null };
    const first = await openFor(await ctx.files.resolve(ctx.config.path, 'read'), ctx.config);
    const started = performance.now();
    return {
      run: async () => play(first, { ...ctx.config }, ctx.signal, (frame) => ctx.emit('frames', frame), state),
      stats: () => ({ ...state, framesPerSecond: Math.round(state.frames / Math.max(1e-3, (performance.now() - started) / 1000)) }),
    };
  },
});

/** Config of `csi.replay`. */
export const ReplayConfig = z.object({
  path: z.string().min(1).describe('wiflow recording (.wfr)'),
  speed: z.number().min(0).max(1000).default(1).describe('1 = real time, 2 = twice as fast, 0 = as fast as possible'),
  loop: z.boolean().default(false),
});

/** Replay a wiflow recording, with its ground truth. */
export const replayNode = defineNode({
  type: 'csi.replay',
  title: 'Replay recording',
  category: 'sources',
  description: 'Replays a wiflow recording in real time, at a scaled speed or as fast as possible, optionally looping; ground-truth records come out on `truth` and stay attached to their frames.',
  inputs: {},
  outputs: { frames: { type: DataTypes.CsiFrame, description: 'CSI frames' }, truth: { type: DataTypes.Json, description: 'Ground-truth records (simulator recordings)' } },
  config: ReplayConfig,
  capabilities: ['fs.read'],
  source: true,
  async create(ctx) {
    const state: PlaybackState = { frames: 0, passes: 0, skipped: 0, error: null, format: null };
    let truths = 0;
    const pendingTruth: GroundTruthFrame[] = [];
    const options: PlayOptions = { format: 'wiflow', speed: ctx.config.speed, loop: ctx.config.loop, onError: 'stop', onTruth: (truth) => pendingTruth.push(truth) };
    const first = await openFor(await ctx.files.resolve(ctx.config.path, 'read'), options);
    return {
      run: async () =>
        play(first, options, ctx.signal, async (frame) => {
          while (pendingTruth.length) {
            truths++;
            await ctx.emit('truth', pendingTruth.shift());
          }
          await ctx.emit('frames', frame);
        }, state),
      stats: () => ({ ...state, truths }),
    };
  },
});

/** Config of `csi.record`. */
export const RecordConfig = z.object({
  path: z.string().min(1).describe('Recording file to create (.wfr)'),
  source: z.string().optional().describe('What is being recorded (stored in the header)'),
});

/** Record frames (and the ground truth they carry) into a wiflow recording. */
export const recordNode = defineNode({
  type: 'csi.record',
  title: 'Record CSI',
  category: 'sinks',
  description: 'Writes every frame it receives (with the ground truth it carries) into a wiflow recording; `truth` input values are written as standalone truth records.',
  inputs: { frames: { type: DataTypes.CsiFrame, description: 'CSI frames' }, truth: { type: DataTypes.Json, description: 'Ground-truth records' } },
  outputs: {},
  config: RecordConfig,
  capabilities: ['fs.write'],
  async create(ctx) {
    const writer = await RecordingWriter.create(await ctx.files.resolve(ctx.config.path, 'write'), { source: ctx.config.source ?? 'csi.record' });
    let closed = false;
    return {
      async receive(port, value) {
        if (port === 'truth') await writer.writeTruth(value as GroundTruthFrame);
        else await writer.write(value as CsiFrame);
      },
      async flush() {
        await writer.flush();
      },
      async close() {
        if (closed) return;
        closed = true;
        await writer.close();
      },
      stats: () => ({ frames: writer.frames, bytes: writer.bytes }),
    };
  },
});
