import { createWriteStream, type WriteStream } from 'node:fs';
import type { CsiFrame, GroundTruthFrame } from '@wiflow/core';
import { RecordingWriter } from '@wiflow/plugin-csi';
import { SimErrors } from '../errors.js';

/** Where simulated frames (with their truth) are written. */
export interface RecordingSink {
  /** 'wfr': plugin-csi's wiflow recording; 'jsonl': JSON lines for inspection with text tools. */
  readonly format: RecordingFormat;
  readonly file: string;
  /** Frames written. */
  readonly frames: number;
  /** Append a frame; its `truth`, when set, is written with it. */
  write(frame: CsiFrame): Promise<void>;
  close(): Promise<void>;
}

/** Recording formats `openRecordingSink` writes. */
export type RecordingFormat = 'wfr' | 'jsonl';

/**
 * Open a recording for simulated frames.
 * - 'wfr' (default): the project's recording format (plugin-csi's `RecordingWriter`), which
 *   `wiflow csi info`, `readCapture` and the replay node read; truth travels in truth records.
 * - 'jsonl': line 1 `{"type":"header","format":"wiflow-sim-jsonl","version":1,"metadata":{...}}`,
 *   then one `{"type":"frame", ...CsiFrame}` per line with csi.re / csi.im / subcarriers as
 *   number arrays and the ground truth in `truth`.
 */
export async function openRecordingSink(file: string, metadata: Record<string, unknown>, format: RecordingFormat = 'wfr'): Promise<RecordingSink> {
  if (format === 'jsonl') return JsonLinesSink.open(file, metadata);
  let inner: RecordingWriter;
  try {
    inner = await RecordingWriter.create(file, metadata);
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

/** The JSON-lines recording. */
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

/** Read a JSON-lines recording back into frames (tests, tools). */
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
