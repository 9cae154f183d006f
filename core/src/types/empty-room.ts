import { serviceToken } from '../runtime/services.js';

// The empty-room reference desk, as a service other plugins reach by token: the pose plugin
// provides it (one reference per room that a running `pose.locate` senses); the pose API's
// /system/reference routes and the studio's Installer use it without depending on that plugin.

/** One link's quality check of an empty-room recording. */
export interface EmptyRoomLinkQuality {
  link: string;
  packets: number;
  /** Packets per second over the recording; null with fewer than two packets. */
  rateHz: number | null;
  /** Spread (max − min) of the per-second median received power, dB; null before a whole second. */
  powerSpreadDb: number | null;
  /** The automatic gain settings the receiver reported (distinct values); null when it reports none. */
  agcValues: number[] | null;
  /** Channel power over the reference's noise floor, dB; null before a whole second. */
  snrDb: number | null;
  /** Seconds (from the start) in which something moved. */
  motionSeconds: number[];
  /** Why this link fails the check (empty: it passes). */
  problems: string[];
}

/** The quality check of an empty-room recording. */
export interface EmptyRoomRecordingReport {
  environmentId: string;
  seconds: number;
  passed: boolean;
  links: EmptyRoomLinkQuality[];
}

/** Where a guided empty-room recording stands. */
export interface EmptyRoomRecordingView {
  id: string;
  environmentId: string;
  state: 'recording' | 'stored' | 'refused' | 'failed';
  seconds: number;
  /** Seconds recorded / seconds asked, 0..1. */
  progress: number;
  startedAt: number;
  finishedAt: number | null;
  /** The quality check, once the recording ended (and while it runs, what it sees so far). */
  report: EmptyRoomRecordingReport | null;
  /** Where the reference was written; null when it is kept in memory only (see `message`). */
  storedIn: string | null;
  message: string;
}

/** Held-out figures of a room-pose model (`wiflow calibrate --held-out`); null fields: no matched estimate. */
export interface RoomPoseHeldOutFigures {
  estimates: number;
  mpjpeMm: number | null;
  rootRelativeMpjpeMm: number | null;
  pck02: number | null;
  countExact: number;
  floorErrorM: number | null;
}

/** A calibrated room's choice of what it emits (`wiflow calibrate`, fallback-protocol.md). */
export interface RoomPoseChoiceView {
  use: 'located-mean-posture' | 'network-posture' | 'network';
  postureSource: 'labelled' | 'locator';
  metric: 'mpjpeMm' | 'reprojectionPx';
  heldOutSet: string;
  heldOutCount: number;
  figures: { 'located-mean-posture': number | null; 'network-posture': number | null; network: number | null };
  reason: string;
}

/**
 * Whether a room has its own trained pose model (`wiflow calibrate`), read from the room's model
 * directory: the installer sees which rooms are calibrated and how well, or how to calibrate.
 */
export interface RoomCalibrationStatus {
  calibrated: boolean;
  /** Where the room's model is (or would be written by `wiflow calibrate`). */
  modelDir: string;
  modelId: string | null;
  /** sha256 of the model files, the hash its frames carry. */
  modelHash: string | null;
  /** When `wiflow calibrate` wrote it (ms since the epoch); null when the model has no calibration record. */
  trainedAt: number | null;
  /** Minutes of labelled recording it was fine-tuned on. */
  labelledMinutes: number | null;
  /** The held-out report: the room model beside the located mean pose, on a later recording with other people. */
  heldOut: { roomModel: RoomPoseHeldOutFigures; locatedMeanPose: RoomPoseHeldOutFigures } | null;
  /** Why `heldOut` is null (null when it is given). */
  heldOutReason: string | null;
  /**
   * What the room's pipeline emits, chosen by `wiflow calibrate` on held-out labelled minutes:
   * `use` (`network`, `network-posture` or `located-mean-posture`), each candidate's held-out figure
   * (`metric`: MPJPE mm with 3D labels, reprojection px with 2D) and why. Null when not calibrated
   * or for a model written before the choice (it uses the network).
   */
  choice: RoomPoseChoiceView | null;
  /** The command that calibrates the room (null when calibrated). */
  command: string | null;
  /** One sentence for people: calibrated with what, or why not. */
  message: string;
}

/** A room a running `pose.locate` senses, as the desk lists it. */
export interface EmptyRoomDeskRoom {
  environmentId: string;
  nodeId: string;
  links: string[];
  referenceSource: string;
  referenceFile: string | null;
  recording: EmptyRoomRecordingView | null;
  /** The room's own pose model, if it was calibrated. */
  calibration: RoomCalibrationStatus;
}

/** The empty-room reference desk's service interface. */
export interface EmptyRoomReferenceDesk {
  rooms(): EmptyRoomDeskRoom[];
  start(environmentId: string, seconds?: number): EmptyRoomRecordingView;
  recording(id: string): EmptyRoomRecordingView | null;
}

/** The desk's service token. */
export const EMPTY_ROOM_REFERENCES = serviceToken<EmptyRoomReferenceDesk>('wiflow.pose.EmptyRoomReferences');
