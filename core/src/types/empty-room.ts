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

/** A room a running `pose.locate` senses, as the desk lists it. */
export interface EmptyRoomDeskRoom {
  environmentId: string;
  nodeId: string;
  links: string[];
  referenceSource: string;
  referenceFile: string | null;
  recording: EmptyRoomRecordingView | null;
}

/** The empty-room reference desk's service interface. */
export interface EmptyRoomReferenceDesk {
  rooms(): EmptyRoomDeskRoom[];
  start(environmentId: string, seconds?: number): EmptyRoomRecordingView;
  recording(id: string): EmptyRoomRecordingView | null;
}

/** The desk's service token. */
export const EMPTY_ROOM_REFERENCES = serviceToken<EmptyRoomReferenceDesk>('wiflow.pose.EmptyRoomReferences');
