export { CsiParseError, CsiErrorCodes, csiErrorCatalogue } from './errors.js';
export { decodeCapture, openCapture, readCapture, CaptureReader, type CaptureOptions, type DecodeResult, type OnError } from './readers/capture.js';
export { detectFormat } from './readers/detect.js';
export { encodeRecording, RecordingWriter, RecordingEncoder, RecordingDecoder, WIFLOW_RECORDING_MAGIC, WIFLOW_RECORDING_VERSION, type RecordingMetadata } from './recording/format.js';
export type { CaptureFormat } from './readers/decoder.js';
