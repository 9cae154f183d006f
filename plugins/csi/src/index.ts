export { decodeCapture, openCapture, readCapture, CaptureReader, type CaptureOptions, type DecodeResult, type OnError } from './readers/capture.js';
export { detectFormat } from './readers/detect.js';
