import type { CsiFrame, PoseFrame, Provenance } from '@wiflow/core';
import { PoseErrors } from '../errors.js';
import { placePose, type PoseHypothesis } from '../eval/metrics.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import { toPersons, type DensePoseMode } from '../model/persons.js';
import { worstProvenance } from '../model/pose-estimator.js';
import { RoomImager } from './imager.js';
import { countFeatures, countProbabilities, presences, type LocatorModel } from './locator-model.js';
import { PeopleTracker } from './people-tracker.js';
import type { EmptyRoomReference } from './reference.js';

/** One estimate of a room before thresholding: hypotheses strongest first (with a tracker: confirmed tracks first), with presence. */
export interface LocatedInstant {
  environment: EnvironmentGeometry;
  time: number;
  /** `evidence`: the change the hypothesis's peak explains, noise energies summed over links (null: a track that held no peak this estimate). */
  hypotheses: (PoseHypothesis & { presence: number; trackId: number | null; evidence: number | null })[];
  countProbabilities: number[];
  features: number[];
  /** The image's peaks before tracking, strongest first, with the evidence each carries (`PeakEvidence`). */
  peaks: PeakEvidence[];
  provenance: Provenance;
  truth?: CsiFrame['truth'];
  processingTimeMs: number;
}

/** One image peak and how much of the room's change it stands for. */
export interface PeakEvidence {
  x: number;
  y: number;
  /** Natural log of the change energy left before this peak was taken against the room's empty-room noise energy. */
  aboveNoise: number;
  /** Distance to the room's nearest wall, metres. */
  wallDistance: number;
  /** Per link (the environment's order): change energy this peak explains (left before it − left after it) over the link's noise energy. */
  linkExplained: number[];
}

/** Options of a `PoseLocator`. */
export interface PoseLocatorOptions {
  densePose?: DensePoseMode;
  processingMode?: 'realtime' | 'job';
  presenceThreshold?: number;
}

interface RoomState {
  imager: RoomImager;
  firstLink: string;
  sinceLast: number;
  provenance: Set<Provenance>;
  lastTime: number;
  truth?: CsiFrame['truth'];
  frameId: number;
  /** The room's people tracker (models with a `tracker` section). */
  tracker: PeopleTracker | null;
}

/**
 * Raw CSI frames of every link of a room in, people out: every `hopPackets` packets of the
 * room's first link (once every link holds the packets to image), the room is imaged
 * (`RoomImager`), the count head turns the CLEAN energies into presences, the room's tracker
 * (models with one) turns peaks and presences into people over time, and each person gets the
 * training set's mean pose at its floor position.
 */
export class PoseLocator {
  readonly #rooms = new Map<string, RoomState>();
  readonly #byLink = new Map<string, RoomState>();

  constructor(readonly model: LocatorModel, environments: readonly EnvironmentGeometry[], references: readonly EmptyRoomReference[], readonly options: PoseLocatorOptions = {}) {
    for (const environment of environments) {
      // A locator fitted on one room's twin is that room's only: in another room its correction is wrong.
      if (model.spec.environmentId && environment.id !== model.spec.environmentId) throw PoseErrors.modelInvalid(model.directory, `it was fitted for environment ${model.spec.environmentId} (wiflow locate twin-fit), not ${environment.id}: give each room its own locator`);
      const reference = references.find((r) => r.environmentId === environment.id);
      if (!reference) throw PoseErrors.datasetInvalid(`no empty-room reference for environment ${environment.id}: record one with \`wiflow locate reference\``);
      const imager = new RoomImager(environment, reference, model.spec.imaging);
      const state: RoomState = { imager, firstLink: `${environment.links[0].tx}->${environment.links[0].rx}`, sinceLast: 0, provenance: new Set(), lastTime: 0, frameId: 0, tracker: model.spec.tracker ? new PeopleTracker(model.spec.tracker, model.spec.imaging.maxPersons) : null };
      this.#rooms.set(environment.id, state);
      for (const l of environment.links) {
        const key = `${l.tx}->${l.rx}`;
        if (this.#byLink.has(key)) throw PoseErrors.datasetInvalid(`link ${key} belongs to two environments`);
        this.#byLink.set(key, state);
      }
    }
  }

  /**
   * Locate a room against another empty-room reference from now on (an automatic refresh): its
   * imager starts again (its packet history fills anew), its tracker and frame numbers go on.
   */
  useReference(reference: EmptyRoomReference): void {
    const room = this.#rooms.get(reference.environmentId);
    if (!room) throw PoseErrors.environmentUnknown(`${reference.environmentId} (no environment of this locator has it)`);
    room.imager = new RoomImager(room.imager.environment, reference, this.model.spec.imaging);
    room.sinceLast = 0;
  }

  /** Add a frame; returns the room's estimate when one is due. */
  locate(frame: CsiFrame): LocatedInstant | null {
    const key = `${frame.link.tx}->${frame.link.rx}`;
    const room = this.#byLink.get(key);
    if (!room) throw PoseErrors.environmentUnknown(`for link ${key} (no environment of pose.locate has it)`);
    const kept = room.imager.push(frame);
    room.provenance.add(frame.provenance);
    room.lastTime = Math.max(room.lastTime, frame.time);
    if (frame.truth) room.truth = frame.truth;
    if (key !== room.firstLink || !kept) return null;
    room.sinceLast++;
    if (room.sinceLast < this.model.spec.hopPackets || !room.imager.ready()) return null;
    room.sinceLast = 0;
    const started = performance.now();
    const image = room.imager.image();
    const features = countFeatures(image, this.model.spec.imaging.maxPersons);
    const { width, depth } = room.imager.environment.room;
    const peaks: PeakEvidence[] = image.peaks.map((p, i) => ({
      x: p.x, y: p.y,
      wallDistance: Math.min(p.x, width - p.x, p.y, depth - p.y),
      aboveNoise: Math.log((image.energies[i] + 1e-30) / (image.noiseEnergy + 1e-30)),
      linkExplained: image.linkNoiseEnergies.map((noise, l) => (image.linkEnergies[i][l] - image.linkEnergies[i + 1][l]) / (noise + 1e-30)),
    }));
    const { hypotheses, countProbabilities: probabilities } = hypothesesFromEvidence(this.model.spec, room.tracker, room.lastTime / 1000, peaks, features, room.imager.environment.room);
    const provenance = worstProvenance(room.provenance);
    room.provenance.clear();
    return { environment: room.imager.environment, time: room.lastTime, hypotheses, countProbabilities: probabilities, features, peaks, provenance, truth: room.truth, processingTimeMs: performance.now() - started };
  }

  /** Add a frame; returns a PoseFrame when the room's estimate is due. */
  push(frame: CsiFrame): PoseFrame | null {
    const instant = this.locate(frame);
    return instant ? this.toPoseFrame(instant) : null;
  }

  /** The PoseFrame of an estimate: people above the presence threshold, with honest metadata. */
  toPoseFrame(instant: LocatedInstant): PoseFrame {
    const room = this.#rooms.get(instant.environment.id)!;
    room.frameId++;
    const spec = this.model.spec;
    const threshold = this.options.presenceThreshold ?? spec.presenceThreshold;
    const densePose = this.options.densePose ?? 'parts';
    const decoded = instant.hypotheses.map((h, slot) => ({ slot, presence: h.presence, position: h.position, keypoints3d: h.keypoints3d, trackId: h.trackId, evidence: h.evidence }));
    const frame: PoseFrame = {
      timestamp: instant.time,
      frameId: room.frameId,
      environmentId: instant.environment.id,
      processingTimeMs: instant.processingTimeMs,
      persons: toPersons(decoded, instant.environment, threshold, densePose),
      metadata: {
        modelId: spec.modelId,
        modelHash: this.model.hash,
        modelVersion: spec.version,
        processingMode: this.options.processingMode ?? 'realtime',
        provenance: instant.provenance,
        csiQuality: null,
        linkCount: instant.environment.links.length,
        pipeline: `raw CSI → aligned to the empty-room reference${spec.imaging.staticChainGain ? ` (a gain per receive chain held over ${spec.imaging.staticChainGain.windowS} s)` : ''}${spec.imaging.liveNoise ? ' (noise floor measured on the recording)' : ''} → coherent back-projection (angle of departure × angle of arrival × delay${spec.imaging.scatterer === 'body' ? `; forward model: a body's scattering at ${spec.imaging.heightsM.join(', ')} m` : ''}${spec.imaging.diffuseWhitening ? `; peaks scored on the change whitened by a ${spec.imaging.diffuseWhitening.decayNs} ns diffuse tail` : ''}) → CLEAN → count head${spec.tracker ? ' → people tracker (confirmed tracks are the people)' : ''} → ${spec.modelId}@${this.model.hash.slice(0, 12)} → skeleton: training mean pose at each position (posture not estimated)${densePose === 'none' ? '' : ' → dense pose derived from skeleton'}`,
      },
    };
    if (instant.truth) frame.truth = instant.truth;
    return frame;
  }
}

/**
 * An estimate's people from its image evidence: the count head turns the features into
 * presences, the room's tracker (when the model has one) turns peaks and presences into people,
 * and each gets the training mean pose at its floor position. Apart from `locate` so that a
 * replay of cached evidence (a count-head correction, a tracker setting) needs no re-imaging.
 */
export function hypothesesFromEvidence(spec: LocatorModel['spec'], tracker: PeopleTracker | null, timeS: number, peaks: readonly PeakEvidence[], features: readonly number[], room: { width: number; depth: number }): { hypotheses: LocatedInstant['hypotheses']; countProbabilities: number[] } {
  const probabilities = countProbabilities(spec.countHead, features);
  const presence = presences(probabilities, peaks.length);
  const hypotheses = (tracker ? tracked(tracker, timeS, peaks, presence, spec.imaging.maxPersons, spec.presenceThreshold) : peaks.map((p, i) => ({ x: p.x, y: p.y, presence: presence[i], trackId: null, evidence: peakEvidence(p) })))
    .map((h) => ({ ...placePose(spec.meanPose, { x: Math.min(room.width, Math.max(0, h.x)), y: Math.min(room.depth, Math.max(0, h.y)) }), presence: h.presence, trackId: h.trackId, evidence: h.evidence }));
  return { hypotheses, countProbabilities: probabilities };
}

/** The change a peak explains, in noise energies summed over links (a person's `evidence`). */
export function peakEvidence(peak: PeakEvidence): number {
  return peak.linkExplained.reduce((a, b) => a + b, 0);
}

/**
 * The hypotheses of a tracked estimate: confirmed tracks (presence above the threshold, by
 * their recent support), then tentative ones (below it), then peaks no track is near (presence
 * 0), up to `maxPersons`: only confirmed tracks are people; the rest keep the estimate's other
 * candidates visible to evaluation, as v1's peaks were.
 */
function tracked(tracker: PeopleTracker, time: number, peaks: readonly PeakEvidence[], presence: readonly number[], maxPersons: number, threshold: number): { x: number; y: number; presence: number; trackId: number | null; evidence: number | null }[] {
  const tracks = tracker.update(time, peaks.map((p, i) => ({ x: p.x, y: p.y, presence: presence[i], aboveNoise: p.aboveNoise, wallDistance: p.wallDistance, linkExplained: p.linkExplained })));
  // Confirmed tracks carry their person's id: downstream (tracker.track, analytics) follow it rather than track again.
  const out = tracks.map((t) => ({ x: t.x, y: t.y, presence: t.confirmed ? threshold + (1 - threshold) * Math.max(0.02, t.support) : threshold * t.support * 0.99, trackId: t.confirmed ? t.id : null, evidence: t.peak >= 0 ? peakEvidence(peaks[t.peak]) : null }));
  for (const p of peaks) if (out.every((h) => Math.hypot(h.x - p.x, h.y - p.y) >= tracker.settings.mergeM)) out.push({ x: p.x, y: p.y, presence: 0, trackId: null, evidence: peakEvidence(p) });
  return out.slice(0, Math.max(maxPersons, tracks.filter((t) => t.confirmed).length));
}
