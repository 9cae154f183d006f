import type { CsiFrame, Provenance } from '@wiflow/core';

/** The capture formats the readers understand. */
export const CAPTURE_FORMATS = ['intel5300', 'atheros', 'esp32-csi-tool', 'esp-csi', 'nexmon-pcap', 'nexmon-pcapng', 'picoscenes', 'wiflow'] as const;

/** A capture format id. */
export type CaptureFormat = (typeof CAPTURE_FORMATS)[number];

/** How Nexmon CSI words are encoded; the chip decides it. */
export type NexmonEncoding = 'int16' | 'float-9-5' | 'float-12-6';

/** Nexmon chips and the encodings they use; 'auto' picks per file from the chip id or the content. */
export const NEXMON_CHIPS = { bcm4339: 'int16', bcm43455c0: 'int16', bcm4358: 'float-9-5', bcm4366c0: 'float-12-6' } as const satisfies Record<string, NexmonEncoding>;

/** A Nexmon chip name. */
export type NexmonChip = keyof typeof NEXMON_CHIPS;

/** Options every decoder understands (each uses the ones that apply to it). */
export interface DecoderOptions {
  /** Source id put on every frame (default: the file's base name, or 'buffer'). */
  sourceId: string;
  /** Receiver id used in `link.rx` (default: the source id). */
  receiverId: string;
  /** Wall-clock ms of device time zero, for formats without a wall clock. */
  baseTime: number;
  provenance: Provenance;
  /** Nexmon chip (decides the CSI word encoding); 'auto' uses the chip id, else the content. */
  chip: NexmonChip | 'auto';
  /** Nexmon: 'drop' (default) keeps occupied tones in ascending order; 'keep' all FFT bins in device order. */
  nullSubcarriers: 'drop' | 'keep';
  /** ESP32: which training field becomes the frame's CSI; 'auto' prefers HT-LTF when present. */
  esp32Field: 'auto' | 'lltf' | 'ht-ltf';
  /** ESP32-CSI-Tool: the first four bytes are invalid (original ESP32); default true. */
  esp32FirstWordInvalid: boolean;
}

/**
 * A synchronous, incremental decoder: the driver hands it the unread bytes of its buffer,
 * it decodes whole records only. Decoders throw `DecodeFault` on bad content.
 */
export interface FrameDecoder {
  readonly format: CaptureFormat;
  /** When `decode` returned 0: how many bytes from `pos` it needs before it can go on. */
  need: number;
  /**
   * Decode from `buf[pos, end)`, pushing frames onto `out`. Returns the bytes consumed (> 0),
   * or 0 when the next record is incomplete (then `need` says how much is wanted). With
   * `eof`, no more bytes will come: a partial record is a fault, trailing bytes too.
   */
  decode(buf: Buffer, pos: number, end: number, eof: boolean, out: CsiFrame[]): number;
}

/** A decoder that also passes side records (ground truth) of the project's own format. */
export interface SideRecordSink {
  onTruth?(truth: import('@wiflow/core').GroundTruthFrame): void;
}
