import type { Prng } from '../random/prng.js';
import type { ScenarioInput } from './schema.js';

const round = (v: number) => Math.round(v * 100) / 100;

/**
 * What an installer's empty room holds besides furniture: a ceiling fan running over the room's
 * middle (60–200 rpm), a cat walking between three spots and resting 20–120 s, and a door on the
 * west wall swung open and shut every 60–180 s from 20–60 s on. Drawn from `prng` in a fixed
 * order, so callers that drew these inline before keep their sessions (the sensing evaluation's
 * empty rooms; eval-e2e's phantom rows use the same room).
 */
export function emptyRoomDistractors(prng: Prng, room: { width: number; depth: number; height: number }, seconds: number): NonNullable<ScenarioInput['distractors']> {
  const { width, depth, height } = room;
  const spot = () => [round(prng.uniform(0.9, width - 0.9)), round(prng.uniform(0.9, depth - 0.9))] as [number, number];
  const swings = [];
  for (let t = 20 + prng.uniform(0, 40); t < seconds - 10; t += prng.uniform(60, 180)) swings.push({ at: round(t), toDeg: swings.length % 2 === 0 ? 80 : 0, durationS: 1.5 });
  const hingeY = round(prng.uniform(0.3, Math.max(0.4, depth - 1.3)));
  return [
    { kind: 'fan', id: 'fan', position: [round(width / 2), round(depth / 2), round(height - 0.3)], rpm: round(prng.uniform(60, 200)) },
    { kind: 'pet', id: 'cat', species: 'cat', path: [spot(), spot(), spot()], speed: 0.4, restS: round(prng.uniform(20, 120)) },
    { kind: 'door', id: 'door', hinge: [0, hingeY], closedYawDeg: 90, swings },
  ];
}
