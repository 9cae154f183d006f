import { z } from 'zod';
import { EMPTY_ROOM_REFERENCES, type EmptyRoomReferenceDesk, type EmptyRoomRecordingView, type RoomCalibrationStatus, type RoomPoseHeldOutFigures } from '@wiflow/core';
import type { PoseApiHost } from '../host.js';
import { defineRoute, iso, type RouteDefinition } from '../http/route.js';
import type { ApiServices } from '../services.js';
import { ApiErrors } from '../errors.js';
import { ReferenceLinkSchema, ReferenceRefreshSchema, referenceStatus } from '../system/reference-status.js';


/** The pose plugin's reference desk (core's token); without that plugin the routes answer 503. */
function desk(host: Pick<PoseApiHost, 'services'>): EmptyRoomReferenceDesk {
  try {
    return host.services.get(EMPTY_ROOM_REFERENCES);
  } catch {
    throw ApiErrors.referencesUnavailable();
  }
}

const LinkQuality = z.object({
  link: z.string(),
  packets: z.number().int(),
  rate_hz: z.number().nullable(),
  power_spread_db: z.number().nullable().describe('spread of the per-second received power: an AGC step shows here'),
  agc_values: z.array(z.number()).nullable().describe('gain settings the receiver reported (null: it reports none)'),
  snr_db: z.number().nullable().describe("channel power over the recording's noise floor"),
  motion_seconds: z.array(z.number().int()).describe('seconds of the recording in which something moved'),
  problems: z.array(z.string()),
});
const Recording = z.object({
  recording_id: z.string(),
  environment_id: z.string(),
  state: z.enum(['recording', 'stored', 'refused', 'failed']),
  seconds: z.number(),
  progress: z.number().min(0).max(1),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  quality: z.object({ passed: z.boolean(), seconds: z.number(), links: z.array(LinkQuality) }).nullable().describe('the quality check (while recording: of what was recorded so far)'),
  stored_in: z.string().nullable().describe('the reference file written (null: kept in memory only, see message)'),
  message: z.string(),
});
const HeldOutFigures = z.object({
  estimates: z.number().int(),
  mpjpe_mm: z.number().nullable(),
  root_relative_mpjpe_mm: z.number().nullable().describe('posture alone: the skeleton moved onto the true root'),
  pck02: z.number().nullable(),
  count_exact: z.number(),
  floor_error_m: z.number().nullable(),
});
const Calibration = z.object({
  calibrated: z.boolean(),
  model_dir: z.string().describe('where the room model is, or where `wiflow calibrate` writes it'),
  model_id: z.string().nullable(),
  model_hash: z.string().nullable().describe('sha256 of the model files: the hash its frames carry'),
  trained_at: z.string().nullable().describe('null: the model has no calibration record (see held_out_reason)'),
  labelled_minutes: z.number().nullable(),
  held_out: z.object({ room_model: HeldOutFigures, located_mean_pose: HeldOutFigures }).nullable().describe('a later labelled recording with other people: the room model beside the located mean pose'),
  held_out_reason: z.string().nullable().describe('why held_out is null'),
  choice: z.object({
    uses: z.enum(['located-mean-posture', 'network-posture', 'network']).describe('what the room emits: the located labelled mean posture, the network\'s posture at the located position, or the network'),
    metric: z.enum(['mpjpe_mm', 'reprojection_px']),
    held_out_set: z.string(),
    held_out_count: z.number().int(),
    figures: z.object({ located_mean_posture: z.number().nullable(), network_posture: z.number().nullable(), network: z.number().nullable() }),
    reason: z.string(),
  }).nullable().describe('chosen by `wiflow calibrate` on held-out labelled minutes; null when not calibrated or written before the choice (the network is used)'),
  command: z.string().nullable().describe('the command that calibrates the room (null when calibrated)'),
  message: z.string(),
});
const Room = z.object({
  environment_id: z.string(),
  node_id: z.string(),
  links: z.array(ReferenceLinkSchema),
  refresh: ReferenceRefreshSchema.nullable().describe("the room's automatic reference refresh (null from a pose.locate that does not report it)"),
  reference_source: z.string(),
  reference_file: z.string().nullable().describe('the file a new recording replaces (null: none, or not writable: the new reference is used until the pipeline stops)'),
  recording: Recording.nullable(),
  calibration: Calibration.describe("the room's own pose model (`wiflow calibrate`), read from the pose plugin's room-model directory"),
});

function recordingBody(view: EmptyRoomRecordingView): z.output<typeof Recording> {
  return {
    recording_id: view.id,
    environment_id: view.environmentId,
    state: view.state,
    seconds: view.seconds,
    progress: view.progress,
    started_at: iso(view.startedAt),
    finished_at: view.finishedAt === null ? null : iso(view.finishedAt),
    quality: view.report && {
      passed: view.report.passed,
      seconds: view.report.seconds,
      links: view.report.links.map((l) => ({ link: l.link, packets: l.packets, rate_hz: l.rateHz, power_spread_db: l.powerSpreadDb, agc_values: l.agcValues, snr_db: l.snrDb, motion_seconds: l.motionSeconds, problems: l.problems })),
    },
    stored_in: view.storedIn,
    message: view.message,
  };
}

function figuresBody(f: RoomPoseHeldOutFigures): z.output<typeof HeldOutFigures> {
  return { estimates: f.estimates, mpjpe_mm: f.mpjpeMm, root_relative_mpjpe_mm: f.rootRelativeMpjpeMm, pck02: f.pck02, count_exact: f.countExact, floor_error_m: f.floorErrorM };
}

function calibrationBody(c: RoomCalibrationStatus): z.output<typeof Calibration> {
  return {
    calibrated: c.calibrated,
    model_dir: c.modelDir,
    model_id: c.modelId,
    model_hash: c.modelHash,
    trained_at: c.trainedAt === null ? null : iso(c.trainedAt),
    labelled_minutes: c.labelledMinutes,
    held_out: c.heldOut && { room_model: figuresBody(c.heldOut.roomModel), located_mean_pose: figuresBody(c.heldOut.locatedMeanPose) },
    held_out_reason: c.heldOutReason,
    choice: c.choice && {
      uses: c.choice.use,
      metric: c.choice.metric === 'mpjpeMm' ? 'mpjpe_mm' : 'reprojection_px',
      held_out_set: c.choice.heldOutSet,
      held_out_count: c.choice.heldOutCount,
      figures: { located_mean_posture: c.choice.figures['located-mean-posture'], network_posture: c.choice.figures['network-posture'], network: c.choice.figures.network },
      reason: c.choice.reason,
    },
    command: c.command,
    message: c.message,
  };
}

/**
 * The installer's empty-room references (extensions, not in the spec): which rooms the running
 * pipeline senses with how fresh each link's reference is, and a guided recording of a new
 * one from the live CSI. Here and not in the flow service because this API runs the system
 * pipeline whose `pose.locate` node owns the environments and uses the reference, and it
 * already reports the system's state (/system/status).
 */
export function referenceRoutes(services: ApiServices): RouteDefinition[] {
  const list = defineRoute({
    method: 'get',
    path: '/system/references',
    summary: 'Empty-room references of the running pipeline (extension)',
    description: 'Every environment a running pose.locate node senses, with each link\'s stale-reference state, any recording in progress, and whether the room has its own pose model (`wiflow calibrate`).',
    tags: ['system'],
    spec: false,
    access: 'viewer',
    category: 'pose_read',
    success: { status: 200, description: 'Rooms and their references', A: z.object({ rooms: z.array(Room) }), B: z.object({ rooms: z.array(Room) }) },
    errors: [503],
    async handler() {
      const { links, refresh } = referenceStatus(services.system.components(), services.system.running);
      const rooms = desk(services.host).rooms().map((r) => ({
        environment_id: r.environmentId,
        node_id: r.nodeId,
        links: links.filter((l) => l.environment_id === r.environmentId),
        refresh: refresh.find((x) => x.environment_id === r.environmentId) ?? null,
        reference_source: r.referenceSource,
        reference_file: r.referenceFile,
        recording: r.recording && recordingBody(r.recording),
        calibration: calibrationBody(r.calibration),
      }));
      return { body: { rooms } };
    },
  });

  const start = defineRoute({
    method: 'post',
    path: '/system/reference',
    summary: 'Record an empty-room reference from the live CSI (extension)',
    description: 'Starts a guided recording of an environment: everybody leaves the room for `seconds`; the recording is checked (packets, rate, AGC, noise floor, motion) and, when it passes, written over the flow\'s reference file and used at once. Poll GET /system/reference/{recording_id}.',
    tags: ['system'],
    spec: false,
    access: 'operator',
    category: 'config',
    body: z.object({
      environment_id: z.string().min(1).max(200).describe('the environment to record (GET /system/references lists them)'),
      seconds: z.number().min(5).max(300).default(30).describe('seconds of empty room'),
    }).strict(),
    success: { status: 202, description: 'Recording started', A: Recording, B: Recording },
    errors: [409, 422, 503],
    async handler({ body }) {
      if (!services.system.running) throw ApiErrors.systemNotReady(services.system.state);
      const view = desk(services.host).start(body.environment_id, body.seconds);
      return { status: 202, body: recordingBody(view) };
    },
  });

  const get = defineRoute({
    method: 'get',
    path: '/system/reference/{recording_id}',
    summary: 'A recording of an empty-room reference: progress and quality check (extension)',
    tags: ['system'],
    spec: false,
    access: 'viewer',
    category: 'pose_read',
    params: z.object({ recording_id: z.string().min(1).max(100) }),
    success: { status: 200, description: 'The recording', A: Recording, B: Recording },
    errors: [404, 503],
    async handler({ params }) {
      const view = desk(services.host).recording(params.recording_id);
      if (!view) throw ApiErrors.notFound('recording', params.recording_id);
      return { body: recordingBody(view) };
    },
  });

  return [list, start, get];
}
