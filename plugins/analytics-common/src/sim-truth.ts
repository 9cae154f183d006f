// Subpath entry @wiflow/analytics-common/sim: ground truth from @wiflow/plugin-sim (kept apart so the main entry does not load the simulator).
import type { GroundTruthEvent, GroundTruthFrame } from '@wiflow/core';
import { PersonTimeline, Simulator, type ScenarioInput } from '@wiflow/plugin-sim';
import type { SceneSpec, SceneStep } from './kinematic-scene.js';

type SimStep = NonNullable<NonNullable<ScenarioInput['people']>[number]['script']>[number];

/** A scene's step in the simulator's script vocabulary (it has no 'bend' or 'roll': bend becomes stand, roll is left out). */
function simStep(step: SceneStep): SimStep | null {
  switch (step.action) {
    case 'bend':
      return { action: 'stand', duration: step.duration + 2 };
    case 'roll':
      return null;
    case 'lie':
      return { action: 'lie', duration: step.duration, surfaceHeight: step.surfaceHeight ?? 0 };
    case 'leave':
      return { action: 'leave', path: step.path ?? [], speed: step.speed ?? 1.1 };
    case 'walk':
      return { action: 'walk', path: step.path, speed: step.speed ?? 1.1 };
    case 'fall':
      return { action: 'fall', type: step.type, lieDuration: step.lieDuration ?? 20, getUp: step.getUp ?? true };
    default:
      return step as SimStep;
  }
}

/** The simulator scenario of a scene: an 8 × 6 m room (or `room`) with one link along it. */
export function sceneToScenario(spec: SceneSpec, room: [number, number] = [8, 6]): ScenarioInput {
  return {
    name: 'analytics-scene',
    environmentId: spec.environmentId ?? 'sim-room',
    startTime: spec.startTime ?? Date.UTC(2026, 0, 1),
    durationS: spec.durationS,
    room: { width: room[0], depth: room[1] },
    radios: [
      { id: 'tx', role: 'tx', position: [0.2, room[1] / 2, 1.5] },
      { id: 'rx', role: 'rx', position: [room[0] - 0.2, room[1] / 2, 1.5], yawDeg: 180 },
    ],
    people: spec.people.map((p) => ({
      id: p.id,
      height: p.height ?? 1.72,
      ...(p.start ? { start: { x: p.start.x, y: p.start.y, yawDeg: p.start.yawDeg ?? 0 } } : {}),
      loop: p.loop ?? false,
      script: p.script.map(simStep).filter((s): s is SimStep => s !== null),
    })),
  };
}

/**
 * Ground truth of a scene from @wiflow/plugin-sim's articulated people (its skeletons,
 * motions and fall dynamics), without computing CSI: one frame every 1/rateHz seconds,
 * with the script's events (fall_start, fall_end, person_enter, person_leave).
 */
export function* simulatorTruth(spec: SceneSpec, room?: [number, number]): Generator<GroundTruthFrame> {
  if (!(spec.rateHz > 0)) throw new Error(`scene rateHz must be positive, got ${spec.rateHz}`);
  const sim = new Simulator(sceneToScenario(spec, room), { attachTruth: false });
  const timelines = sim.scenario.people.map((p) => new PersonTimeline(p));
  const count = Math.floor(spec.durationS * spec.rateHz);
  let prev = -Infinity;
  for (let i = 0; i <= count; i++) {
    const t = i / spec.rateHz;
    const events: GroundTruthEvent[] = [];
    for (const tl of timelines) {
      for (const e of tl.eventsBetween(prev, t)) events.push({ type: e.type, personId: tl.spec.id, time: sim.startTimeMs + Math.round(e.t * 1000), ...(e.detail ? { detail: e.detail } : {}) });
      if (i % 256 === 0) tl.prune(t - 10);
    }
    prev = t;
    events.sort((a, b) => a.time - b.time);
    yield sim.truthAt(t, events);
  }
}
