/** Where a figure came from: a live receiver, a replayed recording or upload, or the simulator. */
export type Provenance = 'live' | 'replay' | 'simulated';

/** Identifies one radio link: a transmitter and a receiver. */
export interface LinkId {
  tx: string;
  rx: string;
}

/** Complex values as two parallel Float32 arrays, row-major over [tx][rx][subcarrier]. */
export interface ComplexArray {
  re: Float32Array;
  im: Float32Array;
}

/**
 * One CSI measurement from one packet, in the canonical form every reader, receiver and
 * the simulator produce (ARCHITECTURE §4).
 */
export interface CsiFrame {
  /** Device or source timestamp in microseconds, monotonic per source (may be fractional). */
  timestamp: number;
  /** Wall-clock time of the capture in milliseconds since the Unix epoch. */
  time: number;
  /** Which receiver, file or simulation produced the frame. */
  sourceId: string;
  /** Transmitter and receiver of this measurement. */
  link: LinkId;
  /** Centre frequency in Hz, or null when the device does not report it. */
  centerFrequencyHz: number | null;
  /** Channel bandwidth in Hz, or null when unknown. */
  bandwidthHz: number | null;
  /** Physical subcarrier indices (multiples of 312.5 kHz from the centre), length nsc. */
  subcarriers: Int16Array;
  /** Number of transmit streams. */
  ntx: number;
  /** Number of receive chains. */
  nrx: number;
  /** Number of subcarriers. */
  nsc: number;
  /** CSI as the device reports it, row-major over [tx][rx][subcarrier]. */
  csi: ComplexArray;
  /** CSI in the device's own physical scaling (for example √SNR on the Intel 5300), where it defines one. */
  scaled?: ComplexArray;
  /** Per receive chain RSSI in dBm (or the device's unit, see `format`), where reported. */
  rssi?: number[];
  /** Noise floor in dBm, where reported. */
  noiseDbm?: number;
  /** Automatic gain control setting, where reported. */
  agc?: number;
  /** Sequence number of the packet, where reported. */
  sequence?: number;
  /** Raw format tag: 'intel5300', 'atheros', 'esp32', 'nexmon', 'picoscenes', 'wiflow', 'sim'. */
  format: string;
  /** Live, replay or simulated. */
  provenance: Provenance;
  /** Device-specific fields that have no canonical place (rate flags, MAC, chanspec...). */
  extra?: Record<string, unknown>;
  /** Ground truth at this frame's instant, when the source is the simulator or a recording of it. */
  truth?: import('./truth.js').GroundTruthFrame;
}

/**
 * A window of consecutive frames of one link after the signal chain, the model's input.
 * Arrays are row-major over [time][tx][rx][subcarrier].
 */
export interface CsiWindow {
  sourceId: string;
  link: LinkId;
  /** Environment (room) the link belongs to. */
  environmentId: string;
  /** Timestamps (µs) of the first and last frame (time grid: of the first and last slot, on the link's clock). */
  startTimestamp: number;
  endTimestamp: number;
  /** Wall-clock time (ms since epoch) of the last frame (time grid: the grid instant the window ends at, shared by all links). */
  time: number;
  /** Frames (time slots) in the window. */
  length: number;
  ntx: number;
  nrx: number;
  nsc: number;
  /** Canonical subcarrier grid (physical indices). */
  subcarriers: Int16Array;
  centerFrequencyHz: number | null;
  /** Amplitude, normalised as the signal chain says in `features`. */
  amplitude: Float32Array;
  /** Sanitised phase in radians. */
  phase: Float32Array;
  /** Description of the processing steps applied, in order. */
  features: string[];
  provenance: Provenance;
  /**
   * Windows cut on a time grid: how many of the `length` time slots had no packet (lost) and
   * hold a neighbouring frame instead. Absent on windows cut by counting frames.
   */
  filledSlots?: number;
  /** Ground truth of the last frame when the source is the simulator. */
  truth?: import('./truth.js').GroundTruthFrame;
}
