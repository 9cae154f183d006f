import { randomUUID } from 'node:crypto';
import { WiflowError, serviceToken, type CsiFrame, type EmptyRoomRecordingView, type EmptyRoomReferenceDesk, type RoomCalibrationStatus } from '@wiflow/core';
import { roomCalibrationStatus } from '../room-pose/calibration-record.js';
import { PoseErrors } from '../errors.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import { EmptyRoomRecording, type RecordingQuality, type RecordingReport } from './reference-recording.js';
import { checkReferenceFitsEnvironment } from './reference-check.js';
import type { LinkStaleness } from './reference-staleness.js';
import { writeReference, type EmptyRoomReference } from './reference.js';

/**
 * The token under which the pose plugin registers its `ReferenceDesk`, typed by the class (this
 * package's own users); other packages use core's `EMPTY_ROOM_REFERENCES`, the same service.
 */
export const REFERENCE_DESK = serviceToken<ReferenceDesk>('wiflow.pose.EmptyRoomReferences');

/** Seconds of empty room an installer records unless told otherwise. */
export const DEFAULT_RECORDING_SECONDS = 30;

/** Finished recordings kept for their status. */
const KEPT_RECORDINGS = 20;

/** A room that a running `pose.locate` node senses, as it offers itself to the desk. */
export interface RoomBinding {
  environment: EnvironmentGeometry;
  /** The node that senses it. */
  nodeId: string;
  /** Where its reference came from: a file, or the simulator. */
  referenceSource: string;
  /** The file a new reference replaces (the flow's `references` entry), or null when there is none or it may not be written. */
  referenceFile: string | null;
  /** Every link's stale-reference state now. */
  staleness(): LinkStaleness[];
  /** Put a new reference to use in the running pipeline. */
  use(reference: EmptyRoomReference): void;
}

/** Where a recording stands (core's type: the pose API and the studio read it too). */
export type RecordingView = EmptyRoomRecordingView;

interface Recording {
  view: RecordingView;
  recording: EmptyRoomRecording;
  binding: RoomBinding;
  firstTime: number | null;
}

/**
 * The empty-room references of the rooms running `pose.locate` nodes sense, for APIs: which
 * rooms there are and how fresh their references are, and guided recordings of a new one
 * from the live CSI (the installer leaves the room; the node feeds its frames here; the
 * recording is checked, then written over the flow's reference file and put to use). One
 * desk per runtime (registered as a service), never module state.
 */
export class ReferenceDesk implements EmptyRoomReferenceDesk {
  /**
   * @param roomModelsDir where `wiflow calibrate` writes room models by default
   * (`<data dir>/room-pose`): each room is listed as calibrated or not from it. Null: no
   * directory to look in, and every room says so.
   */
  constructor(readonly roomModelsDir: string | null = null) {}

  readonly #rooms = new Map<string, RoomBinding>();
  readonly #recordings = new Map<string, Recording>();
  readonly #active = new Map<string, Recording>();

  /** A node offers a room while it runs; the returned function withdraws it. */
  attach(binding: RoomBinding): () => void {
    this.#rooms.set(binding.environment.id, binding);
    return () => {
      if (this.#rooms.get(binding.environment.id) !== binding) return;
      this.#rooms.delete(binding.environment.id);
      const active = this.#active.get(binding.environment.id);
      if (active) this.#end(active, 'failed', 'the pipeline stopped before the recording ended; nothing was stored');
    };
  }

  /** The rooms offered now, with their links' stale-reference states. */
  rooms(): { environmentId: string; nodeId: string; links: string[]; referenceSource: string; referenceFile: string | null; staleness: LinkStaleness[]; recording: RecordingView | null; calibration: RoomCalibrationStatus }[] {
    return [...this.#rooms.values()].map((b) => ({
      environmentId: b.environment.id,
      nodeId: b.nodeId,
      links: b.environment.links.map((l) => `${l.tx}->${l.rx}`),
      referenceSource: b.referenceSource,
      referenceFile: b.referenceFile,
      staleness: b.staleness(),
      recording: this.#active.get(b.environment.id)?.view ?? null,
      calibration: this.#calibration(b.environment.id),
    }));
  }

  /** Read from the model directory on each call: `wiflow calibrate` runs in another process, and the page must see its model without a restart (files are a few hundred kB). */
  #calibration(environmentId: string): RoomCalibrationStatus {
    if (this.roomModelsDir) return roomCalibrationStatus(this.roomModelsDir, environmentId);
    return { calibrated: false, modelDir: '', modelId: null, modelHash: null, trainedAt: null, labelledMinutes: null, heldOut: null, heldOutReason: null, choice: null, command: null, message: 'not known: this desk has no room-model directory to look in' };
  }

  /** Start recording an environment's empty room from the frames its node sees. */
  start(environmentId: string, seconds = DEFAULT_RECORDING_SECONDS, quality: Partial<RecordingQuality> = {}): RecordingView {
    const binding = this.#rooms.get(environmentId);
    if (!binding) {
      const error = PoseErrors.referenceMissing(`environment ${environmentId}`, `no running pose.locate node senses it (running: ${[...this.#rooms.keys()].join(', ') || 'none'}); start the pipeline first`);
      throw new WiflowError(error.code, error.message, error.status, { field: 'environment_id', environment_id: environmentId });
    }
    if (this.#active.has(environmentId)) throw PoseErrors.referenceBusy(environmentId);
    const view: RecordingView = { id: randomUUID(), environmentId, state: 'recording', seconds, progress: 0, startedAt: Date.now(), finishedAt: null, report: null, storedIn: null, message: 'leave the room: recording the empty room' };
    const entry: Recording = { view, recording: new EmptyRoomRecording(binding.environment, `live: ${binding.nodeId}, ${seconds} s`, quality), binding, firstTime: null };
    this.#recordings.set(view.id, entry);
    // Finished recordings stay readable for a while; the oldest go first.
    for (const [id, old] of this.#recordings) if (this.#recordings.size > KEPT_RECORDINGS && old.view.state !== 'recording') this.#recordings.delete(id);
    this.#active.set(environmentId, entry);
    return { ...view };
  }

  /** A recording by id (null when unknown). */
  recording(id: string): RecordingView | null {
    const entry = this.#recordings.get(id);
    if (!entry) return null;
    // While it runs, the check of what was recorded so far: the installer sees problems early.
    return { ...entry.view, report: entry.view.state === 'recording' ? entry.recording.report() : entry.view.report };
  }

  /** Frames of a room (the node calls this with each frame it receives). */
  offer(environmentId: string, frame: CsiFrame): void {
    const entry = this.#active.get(environmentId);
    if (!entry) return;
    entry.firstTime ??= frame.time;
    entry.recording.push(frame);
    const done = (frame.time - entry.firstTime) / 1000 >= entry.view.seconds;
    entry.view.progress = Math.min(1, entry.recording.seconds / entry.view.seconds);
    if (!done) return;
    try {
      const { reference, report } = entry.recording.finish();
      entry.view.report = report;
      // The environment's antenna arrays must take it before it replaces anything.
      checkReferenceFitsEnvironment(entry.binding.environment, reference);
      if (entry.binding.referenceFile) writeReference(entry.binding.referenceFile, reference);
      entry.binding.use(reference);
      entry.view.storedIn = entry.binding.referenceFile;
      entry.view.progress = 1;
      this.#end(entry, 'stored', entry.binding.referenceFile
        ? `stored in ${entry.binding.referenceFile} and in use`
        : `in use until the pipeline stops; not written to a file: the flow's reference of ${environmentId} is ${entry.binding.referenceSource}`);
    } catch (error) {
      entry.view.report = entry.recording.report();
      const refused = (error as { code?: string }).code === PoseErrors.referenceRefused.code;
      this.#end(entry, refused ? 'refused' : 'failed', (error as Error).message);
    }
  }

  #end(entry: Recording, state: RecordingView['state'], message: string): void {
    entry.view.state = state;
    entry.view.message = message;
    entry.view.finishedAt = Date.now();
    if (state !== 'stored') entry.view.report ??= entry.recording.report();
    this.#active.delete(entry.view.environmentId);
  }
}
