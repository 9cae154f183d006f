import { createWriteStream, type WriteStream } from 'node:fs';
import type { CsiFrame, GroundTruthFrame } from '@wiflow/core';
import { SimErrors } from '../errors.js';

/** Where simulated frames (with their truth) are written. */
export interface RecordingSink {
  /** 'wfr': plugin-csi's wiflow recording; 'jsonl': this package's JSON-lines fallback. */
  readonly format: 'wfr' | 'jsonl';
  readonly file: string;
  /** Frames written. */
  readonly frames: number;
  /** Append a frame; its `truth`, when set, is written with it. */
  write(frame: CsiFrame): Promise<void>;
  close(): Promise<void>;
}

/** Recording formats `openRecordingSink` can write. */
export type RecordingFormat = 'wfr' | 'jsonl' | 'auto';

interface CsiRecordingWriter {
  frames: number;
  write(frame: CsiFrame): Promise<void>;
  close(): Promise<void>;
}

interface CsiRecordingModule {
  RecordingWriter?: { create(path: string, metadata?: Record<string, unknown>): Promise<CsiRecordingWriter> };
}

/** plugin-csi's recording writer, when that package is installed and exports it. */
async function csiRecordingWriter(): Promise<CsiRecordingModule['RecordingWriter'] | undefined> {
  try {
    const mod = (await import('@wiflow/plugin-csi' as string)) as CsiRecordingModule;
    return typeof mod.RecordingWriter?.create === 'function' ? mod.RecordingWriter : undefined;
  } catch {
    return undefined;
  }
}

/** The concrete format 'auto' stands for here: 'wfr' when plugin-csi's writer is installed, else 'jsonl'. */
export async function resolveRecordingFormat(format: RecordingFormat = 'auto'): Promise<'wfr' | 'jsonl'> {
  if (format !== 'auto') return format;
  return (await csiRecordingWriter()) ? 'wfr' : 'jsonl';
}

/**
 * Open a recording for simulated frames. 'wfr' (the project's recording format, read by
 * `wiflow csi info` and the replay node) needs @wiflow/plugin-csi; 'auto' falls back to
 * JSON lines when it is missing; 'jsonl' always writes JSON lines:
 *   line 1: {"type":"header","format":"wiflow-sim-jsonl","version":1,"metadata":{...}}
 *   then:   {"type":"frame", ...CsiFrame with csi.re/csi.im/subcarriers as number arrays, "truth": {...}}
 */
export async function openRecordingSink(file: string, metadata: Record<string, unknown>, format: RecordingFormat = 'auto'): Promise<RecordingSink> {
  if (format !== 'jsonl') {
    const writer = await csiRecordingWriter();
    if (writer) {
      let inner: CsiRecordingWriter;
      try {
        inner = await writer.create(file, metadata);
      } catch (error) {
        throw SimErrors.outputUnwritable(file, (error as Error).message);
      }
      return {
        format: 'wfr',
        file,
        get frames() {
          return inner.frames;
        },
        write: (frame) => inner.write(frame),
        close: () => inner.close(),
      };
    }
    if (format === 'wfr') throw SimErrors.outputUnwritable(file, 'the wiflow recording format needs @wiflow/plugin-csi (install it, or use --format jsonl)');
  }
  return JsonLinesSink.open(file, metadata);
}

/** The JSON-lines fallback recording. */
class JsonLinesSink implements RecordingSink {
  readonly format = 'jsonl' as const;
  readonly file: string;
  frames = 0;
  readonly #stream: WriteStream;
  #error: Error | null = null;

  private constructor(file: string, stream: WriteStream) {
    this.file = file;
    this.#stream = stream;
    stream.on('error', (error) => {
      this.#error = error;
    });
  }

  static async open(file: string, metadata: Record<string, unknown>): Promise<JsonLinesSink> {
    const stream = createWriteStream(file);
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', (error) => reject(SimErrors.outputUnwritable(file, error.message)));
    });
    const sink = new JsonLinesSink(file, stream);
    await sink.#line({ type: 'header', format: 'wiflow-sim-jsonl', version: 1, metadata });
    return sink;
  }

  async #line(value: unknown): Promise<void> {
    if (this.#error) throw SimErrors.outputUnwritable(this.file, this.#error.message);
    if (!this.#stream.write(JSON.stringify(value) + '\n')) await new Promise<void>((resolve) => this.#stream.once('drain', resolve));
  }

  async write(frame: CsiFrame): Promise<void> {
    await this.#line({
      type: 'frame',
      ...frame,
      subcarriers: Array.from(frame.subcarriers),
      csi: { re: Array.from(frame.csi.re), im: Array.from(frame.csi.im) },
      ...(frame.scaled ? { scaled: { re: Array.from(frame.scaled.re), im: Array.from(frame.scaled.im) } } : {}),
    });
    this.frames++;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.#stream.end((error?: Error | null) => (error ? reject(SimErrors.outputUnwritable(this.file, error.message)) : resolve())));
  }
}

/** Read a JSON-lines fallback recording back into frames (tests, tools). */
export function parseJsonLinesRecording(text: string): { metadata: Record<string, unknown>; frames: CsiFrame[] } {
  const lines = text.split('\n').filter((l) => l.trim());
  if (!lines.length) throw new Error('empty recording');
  const header = JSON.parse(lines[0]) as { type?: string; format?: string; metadata?: Record<string, unknown> };
  if (header.type !== 'header' || header.format !== 'wiflow-sim-jsonl') throw new Error('not a wiflow-sim-jsonl recording');
  const frames = lines.slice(1).map((line) => {
    const raw = JSON.parse(line) as Omit<CsiFrame, 'subcarriers' | 'csi'> & { subcarriers: number[]; csi: { re: number[]; im: number[] }; truth?: GroundTruthFrame; type?: string };
    const { type: _type, ...rest } = raw;
    return { ...rest, subcarriers: Int16Array.from(raw.subcarriers), csi: { re: Float32Array.from(raw.csi.re), im: Float32Array.from(raw.csi.im) } } as CsiFrame;
  });
  return { metadata: header.metadata ?? {}, frames };
}
