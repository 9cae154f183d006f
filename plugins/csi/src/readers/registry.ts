import type { GroundTruthFrame } from '@wiflow/core';
import { DecodeFault } from '../errors.js';
import { RecordingDecoder } from '../recording/format.js';
import { AtherosDecoder } from './atheros.js';
import type { CaptureFormat, DecoderOptions, FrameDecoder } from './decoder.js';
import { Esp32CsvDecoder } from './esp32.js';
import { Intel5300Decoder } from './intel5300.js';
import { NexmonPcapDecoder, NexmonPcapngDecoder } from './pcap.js';
import { PicoScenesDecoder } from './picoscenes.js';

/** Create the decoder for a format; `head` is the first bytes of the content (some formats need them to set up). */
export function createDecoder(format: CaptureFormat, head: Uint8Array, options: DecoderOptions, onTruth?: (truth: GroundTruthFrame) => void): FrameDecoder {
  switch (format) {
    case 'intel5300': return new Intel5300Decoder(options);
    case 'atheros': return new AtherosDecoder(head, options);
    case 'esp32-csi-tool':
    case 'esp-csi': return new Esp32CsvDecoder(format, options);
    case 'nexmon-pcap': return new NexmonPcapDecoder(options);
    case 'nexmon-pcapng': return new NexmonPcapngDecoder(options);
    case 'picoscenes': return new PicoScenesDecoder(options);
    case 'wiflow': return new RecordingDecoder(onTruth);
    default: throw new DecodeFault('unsupported', 0, `unknown format ${String(format)}`);
  }
}
