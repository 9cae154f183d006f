// Public entry of @wiflow/plugin-csi: readers, recordings, signal processing, node types, CLI commands.
import { definePlugin } from '@wiflow/core';
import { registerCsiCommands } from './cli/commands.js';
import { fileSourceNode, recordNode, replayNode } from './nodes/file-nodes.js';
import { receiverNodes } from './nodes/receiver-nodes.js';
import { signalNodes } from './nodes/signal-nodes.js';

export { CsiParseError, CsiErrorCodes, csiErrorCatalogue, type CsiErrorLocation } from './errors.js';
export { decodeCapture, openCapture, readCapture, CaptureReader, type CaptureOptions, type DecodeResult, type OnError } from './readers/capture.js';
export { detectFormat, DETECT_HEAD_BYTES } from './readers/detect.js';
export { CAPTURE_FORMATS, NEXMON_CHIPS, type CaptureFormat, type NexmonChip, type NexmonEncoding, type DecoderOptions } from './readers/decoder.js';
export { INTEL_HT20_GROUPED, INTEL_HT40_GROUPED, HT20_TONES, HT40_TONES, fftBinToIndex, isOccupiedTone } from './readers/subcarriers.js';
export { intelScaledCsi, intelTotalRss, unpackIntel5300 } from './readers/intel5300.js';
export { unpackAtheros } from './readers/atheros.js';
export { Esp32LineParser, wifiChannelFrequencyHz } from './readers/esp32.js';
export { NexmonPayloadDecoder, decodeChanspec, NEXMON_UDP_PORT, unpackNexmonFloat, unpackNexmonInt16, type Chanspec } from './readers/nexmon.js';
export { encodeRecording, RecordingWriter, RecordingEncoder, RecordingDecoder, WIFLOW_RECORDING_MAGIC, WIFLOW_RECORDING_VERSION, type RecordingMetadata } from './recording/format.js';
export { CANONICAL_GRIDS, resolveGrid, planResample, resampleFrame, resampleStream, type CanonicalGridName, type ResamplePlan } from './signal/grid.js';
export { unwrapPhase, removeLinearPhase, sanitizedPhase, sanitizePhase } from './signal/phase.js';
export { hampelFilter, HampelState, hampelFrame, MAD_SCALE } from './signal/hampel.js';
export { conjugateMultiply } from './signal/conjugate.js';
export { normalizeAmplitude, normalizeInPlace, type AmplitudeNormalization } from './signal/normalize.js';
export { CsiWindower, LinkWindower, linkKey, sumWindowerStats, type WindowerStats, type WindowOptions } from './signal/window.js';
export { dopplerSpectrum, type DopplerSpectrum, type DopplerOptions } from './signal/doppler.js';
export { SignalChain, type SignalChainOptions, type SignalChainStats } from './signal/chain.js';
export { resampleNode, sanitizePhaseNode, hampelNode, conjugateNode, normalizeNode, windowNode, dopplerNode, signalChainNode, signalNodes, SignalChainConfig, DOPPLER_SPECTRUM_TYPE } from './nodes/signal-nodes.js';
export { fileSourceNode, replayNode, recordNode, FileSourceConfig, ReplayConfig, RecordConfig } from './nodes/file-nodes.js';
export { nexmonUdpNode, esp32UdpNode, esp32SerialNode, receiverNodes, NexmonUdpConfig, Esp32UdpConfig, Esp32SerialConfig } from './nodes/receiver-nodes.js';
export { RateMeter, SequenceTracker, ReceiverStats } from './nodes/live-stats.js';
export { captureInfo, formatCaptureInfo, type CaptureInfo, type LinkInfo } from './cli/info.js';
export { convertCapture, frameToJson, type ConvertOptions } from './cli/convert.js';
export { recordFlow, runRecord, runReplay, type RecordSource } from './cli/record-replay.js';
export { registerCsiCommands } from './cli/commands.js';

/** The plugin's name, used when tapping hooks. */
export const PLUGIN_NAME = '@wiflow/plugin-csi';

/** Every node type this plugin registers. */
export const csiNodes = [...signalNodes, fileSourceNode, replayNode, recordNode, ...receiverNodes];

/** The CSI plugin: capture readers and live receivers as sources, the recorder, the signal nodes and the CLI commands. */
export default definePlugin({
  name: PLUGIN_NAME,
  setup(ctx) {
    for (const node of csiNodes) ctx.registerNode(node);
    ctx.registerCommand((program, cli) => registerCsiCommands(program, cli));
  },
});
