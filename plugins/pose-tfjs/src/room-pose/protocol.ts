import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CsiFrame, GroundTruthFrame, GroundTruthPerson } from '@wiflow/core';
import { encodeRecording } from '@wiflow/plugin-csi';
import type * as SimPackage from '@wiflow/plugin-sim';
import { PoseErrors } from '../errors.js';
import type { LocatorModel } from '../locate/locator-model.js';
import { simulateReference } from '../locate/simulated.js';
import { writeReference } from '../locate/reference.js';
import { projectPoint, type EnvironmentGeometry } from '../model/environment.js';
import { environmentFromScenario } from '../sim/environment-from-scenario.js';
import type { LabelledInstant } from '../calibrate/coco-labels.js';
import { RoomPoseEstimator, type RoomPoseInstant } from './room-pose-estimator.js';

type Sim = typeof SimPackage;
type RandomRoom = SimPackage.RandomRoom;

/** Load the simulator (the protocol is simulation; inference never needs it). */
export async function loadSimulator(): Promise<Sim> {
  try {
    return (await import('@wiflow/plugin-sim')) as Sim;
  } catch (error) {
    throw PoseErrors.simulatorMissing(`the calibration protocol simulates its rooms: ${(error as Error).message}`);
  }
}

/** The default radios of the issue: one transmitter and three 3-antenna receivers (Intel 5300), 20 packets a second. */
export const PROTOCOL_RANGES = { receivers: [3, 3] as [number, number], rateHz: 20 };

/**
 * A user's room and its simulated twin. The real room is a drawn room (materials, clutter);
 * its sessions add realism v2 (distractors, drift against the reference, radio hardware). The
 * twin is what the user declares: the same size and radios as placed on the plan, each radio
 * 0–10 cm off where it really is per axis, guessed materials (plasterboard walls and ceiling,
 * concrete floor), no furniture, a mid-range body reflectivity and no hardware draws. Both
 * share the environment id; the pipeline only ever sees the declared geometry.
 */
export interface RoomPair {
  environmentId: string;
  /** Realism of the real room's sessions: 'v2' (the protocol) or 'none' (a diagnostic: the real room's clutter, materials and radio offsets only). */
  realism?: 'none' | 'v2';
  real: RandomRoom;
  twin: RandomRoom;
  /** The declared environment (twin radios, default camera): what the locator and the network are given. */
  environment: EnvironmentGeometry;
}

/** Draw a room pair from a seed; `radioOffsetM` bounds how far (per axis) each declared radio is from the real one. */
export function drawRoomPair(sim: Sim, seed: string | number, radioOffsetM = 0.1): RoomPair {
  const prng = new sim.Prng(`room-pair:${seed}`);
  const ranges = { ...sim.DEFAULT_RANDOM_RANGES, ...PROTOCOL_RANGES };
  const real = sim.randomRoom(prng.fork('real'), ranges, `room-${String(seed)}`);
  const off = prng.fork('declared');
  const r2 = (v: number) => Math.round(v * 100) / 100;
  const twin: RandomRoom = {
    ...real,
    room: { ...real.room!, materials: { walls: 'plasterboard', floor: 'concrete', ceiling: 'plasterboard' } },
    clutter: [],
    radios: real.radios!.map((radio) => ({ ...radio, position: radio.position.map((v, axis) => (axis < 3 ? r2(v + off.uniform(-radioOffsetM, radioOffsetM)) : v)) as [number, number, number] })),
    propagation: { ...real.propagation, bodyReflectivity: 0.6 },
  };
  const environment = environmentFromScenario(sim.randomScenario({ seed: 'declared', durationS: 1, room: twin, ranges: { ...PROTOCOL_RANGES, people: [1, 1] } }) as never);
  return { environmentId: real.roomId, real, twin, environment };
}

/** What a session is for: the twin's pre-training, the labelled minutes in the real room, or the held-out test. */
export type SessionRole = 'twin' | 'labelled' | 'test';

/** One simulated session of the protocol. */
export interface SessionPlan {
  role: SessionRole;
  seed: string;
  seconds: number;
  /** People in the session: a range for twin and labelled sessions, an exact count for test sessions. */
  people: [number, number];
  /** Statures (m): labelled people are 1.60–1.80 m; test people are shorter or taller (new people). */
  personHeight: [number, number];
}

/** The scenario of a session: the twin room (no realism) or the real room (realism v2), new scripts per seed. */
export function sessionScenario(sim: Sim, pair: RoomPair, plan: SessionPlan): SimPackage.Scenario {
  const real = plan.role !== 'twin';
  return sim.randomScenario({
    seed: `${pair.environmentId}:${plan.role}:${plan.seed}`,
    durationS: plan.seconds,
    room: real ? pair.real : pair.twin,
    ranges: { ...PROTOCOL_RANGES, people: plan.people, personHeight: plan.personHeight, realism: real ? (pair.realism ?? 'v2') : 'none' },
  });
}

/** An estimate of a session with what was true: the simulator's truth, and the camera's labels at that instant (labelled sessions). */
export interface ProtocolInstant {
  instant: RoomPoseInstant;
  truth: GroundTruthPerson[];
  label: LabelledInstant | null;
}

/** Labels the room's camera would give at an instant: COCO 2D keypoints through the declared camera, and 3D. */
export function cameraLabel(environment: EnvironmentGeometry, truth: GroundTruthFrame): LabelledInstant {
  return {
    time: truth.time,
    persons: truth.persons.map((p) => ({
      keypoints2d: p.keypoints3d.map((k) => { const q = projectPoint(environment.camera, k); return q.visible ? [q.x, q.y, 2] : [0, 0, 0]; }) as [number, number, number][],
      keypoints3d: p.keypoints3d.map((k) => [...k]),
    })),
  };
}

/**
 * Run one session through the room's pipeline (locator + probe, no room model): every estimate
 * with the truth of its instant and, every `labelEvery` ticks, a camera label (the estimate
 * takes the label nearest in time, within `labelToleranceMs`).
 */
export function* runSession(sim: Sim, pair: RoomPair, plan: SessionPlan, locator: LocatorModel, options: { labelEvery?: number; labelToleranceMs?: number } = {}): Generator<ProtocolInstant> {
  const scenario = sessionScenario(sim, pair, plan);
  const reference = simulateReference(sim as never, scenario as never);
  const estimator = new RoomPoseEstimator(locator, pair.environment, reference, null);
  const labelEvery = options.labelEvery ?? 2;
  const tolerance = options.labelToleranceMs ?? 60;
  let lastLabel: LabelledInstant | null = null;
  for (const tick of new sim.Simulator(scenario).run(plan.seconds)) {
    if (plan.role === 'labelled' && tick.index % labelEvery === 0) lastLabel = cameraLabel(pair.environment, tick.truth);
    for (const frame of tick.frames as CsiFrame[]) {
      const instant = estimator.locate(frame);
      if (!instant) continue;
      const truth = instant.located.truth?.persons ?? [];
      const label = lastLabel && Math.abs(lastLabel.time - instant.located.time) <= tolerance ? lastLabel : null;
      yield { instant, truth, label };
    }
  }
}

/** Sizes of a protocol run. */
export interface ProtocolSizes {
  twinSessions: number;
  twinSeconds: number;
  /** Seconds of labelled recording that stand for one "minute" (60, or fewer in --small, said in the report). */
  secondsPerMinute: number;
  /** Largest budget, minutes (sessions of `secondsPerMinute` each). */
  labelledMinutes: number;
  testSeconds: number;
  /** Test sessions per person count (alternating short and tall people). */
  testSessionsPerCount: number;
}

/** Full protocol: 10 twin minutes, 10 labelled minutes, 6 test minutes. */
export const FULL_PROTOCOL: ProtocolSizes = { twinSessions: 10, twinSeconds: 60, secondsPerMinute: 60, labelledMinutes: 10, testSeconds: 60, testSessionsPerCount: 2 };
/** --small: the same steps in about a fifth of the simulated time (one "minute" is 12 s). */
export const SMALL_PROTOCOL: ProtocolSizes = { twinSessions: 4, twinSeconds: 20, secondsPerMinute: 12, labelledMinutes: 10, testSeconds: 20, testSessionsPerCount: 1 };

/** The sessions of a protocol: twin, labelled (one per "minute"), test (per count, new people and scripts). */
export function protocolSessions(sizes: ProtocolSizes): SessionPlan[] {
  const plans: SessionPlan[] = [];
  for (let i = 0; i < sizes.twinSessions; i++) plans.push({ role: 'twin', seed: `t${i}`, seconds: sizes.twinSeconds, people: [1, 3], personHeight: [1.45, 1.95] });
  for (let i = 0; i < sizes.labelledMinutes; i++) plans.push({ role: 'labelled', seed: `l${i}`, seconds: sizes.secondsPerMinute, people: [1, 3], personHeight: [1.6, 1.8] });
  for (const count of [1, 2, 3]) {
    for (let i = 0; i < sizes.testSessionsPerCount; i++) plans.push({ role: 'test', seed: `e${count}-${i}`, seconds: sizes.testSeconds, people: [count, count], personHeight: i % 2 === 0 ? [1.45, 1.6] : [1.8, 1.95] });
  }
  return plans;
}

/**
 * Write a labelled session of the "real" room as a user's recording directory
 * (`environment.json`, `reference.json`, `csi.wfr`, `labels.json`: what `wiflow calibrate` reads),
 * labels from the room's camera every `labelEvery` ticks; `labels: '2d'` leaves out
 * `keypoints_3d`, as a user with one ordinary camera gives them. A stand-in for a real room.
 */
export function writeLabelledSession(sim: Sim, pair: RoomPair, plan: SessionPlan, directory: string, options: { labelEvery?: number; labels?: '2d' | '3d' } = {}): string {
  const scenario = sessionScenario(sim, pair, plan);
  const frames: CsiFrame[] = [];
  const images: { id: number; timestamp: number }[] = [];
  const annotations: { image_id: number; category_id: number; keypoints: number[]; keypoints_3d?: number[] }[] = [];
  const labelEvery = options.labelEvery ?? 2;
  for (const tick of new sim.Simulator(scenario).run(plan.seconds)) {
    frames.push(...(tick.frames as CsiFrame[]).map((f) => ({ ...f, truth: undefined })));
    if (tick.index % labelEvery !== 0) continue;
    const label = cameraLabel(pair.environment, tick.truth);
    const id = images.length + 1;
    images.push({ id, timestamp: label.time });
    for (const p of label.persons) annotations.push({ image_id: id, category_id: 1, keypoints: p.keypoints2d.flat(), ...(options.labels === '2d' ? {} : { keypoints_3d: p.keypoints3d!.flat() }) });
  }
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, 'environment.json'), JSON.stringify(pair.environment));
  writeReference(path.join(directory, 'reference.json'), simulateReference(sim as never, scenario as never));
  writeFileSync(path.join(directory, 'csi.wfr'), encodeRecording(frames, { source: `simulated stand-in for a real room (${pair.environmentId}, ${plan.role} ${plan.seed})` }));
  writeFileSync(path.join(directory, 'labels.json'), JSON.stringify({ images, annotations, categories: [{ id: 1, name: 'person' }] }));
  return directory;
}
