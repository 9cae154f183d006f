import type { Scenario, ScenarioInput } from '@wiflow/plugin-sim';

/**
 * Three people crossing a room: two walk the diagonals and one walks across the middle, so
 * all three paths meet near the centre at about the same time; each stands 2 s at the far
 * side and walks back, forever. Placed in a room of the recipe's held-out split, this is the
 * tracking test in the goal layout (one transmitter, three 1×3 receivers at 20 Hz) on a room
 * no part of the system was fitted or tuned on; docs/model.md says so beside the figures.
 */
export function threePeopleCrossing(room: Scenario): ScenarioInput {
  const { width: w, depth: d } = room.room;
  const at = (fx: number, fy: number): [number, number] => [Math.round(fx * w * 100) / 100, Math.round(fy * d * 100) / 100];
  const person = (id: number, height: number, speed: number, from: [number, number], to: [number, number]) => ({
    id,
    height,
    start: { x: from[0], y: from[1], yawDeg: (Math.atan2(to[1] - from[1], to[0] - from[0]) * 180) / Math.PI },
    loop: true,
    script: [
      { action: 'walk' as const, path: [to], speed },
      { action: 'stand' as const, duration: 2 },
      { action: 'walk' as const, path: [from], speed },
      { action: 'stand' as const, duration: 2 },
    ],
  });
  return {
    ...room,
    name: `${room.name}: three people crossing`,
    people: [
      person(1, 1.78, 1.0, at(0.15, 0.15), at(0.85, 0.85)),
      person(2, 1.62, 0.9, at(0.15, 0.85), at(0.85, 0.15)),
      person(3, 1.9, 1.05, at(0.1, 0.5), at(0.9, 0.5)),
    ],
  } as ScenarioInput;
}
