// The pose API's empty-room reference routes (GET /system/references, POST /system/reference, GET /system/reference/{id}).
import { api, unwrap } from './client';

/** One link's reference as the pipeline judges it. */
export interface ReferenceLink {
  environment_id: string;
  link: string;
  status: 'unchecked' | 'fresh' | 'stale';
  /** fine, replugged (the locator aligns the new chain phases: no action) or stale; absent from servers before it. */
  verdict?: 'unchecked' | 'fine' | 'replugged' | 'stale';
  change_noise_floors: number | null;
  /** The change with a gain per receive chain, as the locator aligns packets (null without it). */
  chain_aligned_change_noise_floors?: number | null;
  still_seconds: number;
  checked_at: string | null;
  /** Why an unchecked link is not judged yet ("not judged yet: never still ..."); absent from servers before it. */
  unchecked_reason?: string | null;
}

/** A room's automatic reference refresh. */
export interface ReferenceRefresh {
  enabled: boolean;
  version: number;
  refreshed_at: string | null;
  reason: string;
  judges: ('locator' | 'sensing')[];
  links: { link: string; stretch_seconds: number; refreshed_at: string | null }[];
  history: { version: number; at: string | null; links: string[]; reason: string }[];
}

/** The quality check of one link of a recording. */
export interface LinkQuality {
  link: string;
  packets: number;
  rate_hz: number | null;
  power_spread_db: number | null;
  agc_values: number[] | null;
  snr_db: number | null;
  motion_seconds: number[];
  problems: string[];
}

/** A recording of an empty room. */
export interface ReferenceRecording {
  recording_id: string;
  environment_id: string;
  state: 'recording' | 'stored' | 'refused' | 'failed';
  seconds: number;
  progress: number;
  quality: { passed: boolean; seconds: number; links: LinkQuality[] } | null;
  stored_in: string | null;
  message: string;
}

/** Held-out figures of a room model (a later labelled recording with other people). */
export interface HeldOutFigures {
  estimates: number;
  mpjpe_mm: number | null;
  root_relative_mpjpe_mm: number | null;
  pck02: number | null;
  count_exact: number;
  floor_error_m: number | null;
}

/** Whether a room has its own pose model (`wiflow calibrate`). */
export interface RoomCalibration {
  calibrated: boolean;
  model_dir: string;
  model_id: string | null;
  model_hash: string | null;
  trained_at: string | null;
  labelled_minutes: number | null;
  held_out: { room_model: HeldOutFigures; located_mean_pose: HeldOutFigures } | null;
  held_out_reason: string | null;
  /** What the room emits, chosen on held-out labelled minutes; null: not calibrated, or written before the choice (the network). */
  choice: { uses: 'located-mean-posture' | 'network-posture' | 'network'; metric: 'mpjpe_mm' | 'reprojection_px'; held_out_set: string; held_out_count: number; figures: { located_mean_posture: number | null; network_posture: number | null; network: number | null }; reason: string } | null;
  command: string | null;
  message: string;
}

/** A room a running pose.locate node senses. */
export interface ReferenceRoom {
  environment_id: string;
  node_id: string;
  links: ReferenceLink[];
  /** Absent (or null) from servers before the automatic refresh. */
  refresh?: ReferenceRefresh | null;
  reference_source: string;
  reference_file: string | null;
  recording: ReferenceRecording | null;
  calibration: RoomCalibration;
}

/** The rooms of the running pipeline and their references. */
export async function listReferenceRooms(): Promise<ReferenceRoom[]> {
  return unwrap<{ rooms: ReferenceRoom[] }>(await api('/api/v1/system/references')).rooms;
}

/** Start recording an environment's empty room (operator or admin). */
export async function startReferenceRecording(environmentId: string, seconds: number): Promise<ReferenceRecording> {
  return unwrap<ReferenceRecording>(await api('/api/v1/system/reference', { method: 'POST', json: { environment_id: environmentId, seconds } }));
}

/** A recording's progress and quality check. */
export async function getReferenceRecording(id: string): Promise<ReferenceRecording> {
  return unwrap<ReferenceRecording>(await api(`/api/v1/system/reference/${encodeURIComponent(id)}`));
}
