import { describe, expect, it } from 'vitest';
import { assignRooms } from '../index.js';

const rooms = Array.from({ length: 40 }, (_, i) => `room-${i}`);

describe('assignRooms (rendezvous)', () => {
  it('gives every room exactly one of the workers, the same answer whatever the order of the member list', () => {
    const a = assignRooms(rooms, ['w1', 'w2', 'w3']);
    const b = assignRooms(rooms, ['w3', 'w1', 'w2']);
    expect([...a.keys()]).toEqual(rooms);
    expect(a).toEqual(b);
    for (const owner of a.values()) expect(['w1', 'w2', 'w3']).toContain(owner);
    // Spread: each of 3 workers holds some of 40 rooms (rendezvous is balanced in expectation).
    const counts = ['w1', 'w2', 'w3'].map((w) => [...a.values()].filter((o) => o === w).length);
    for (const c of counts) expect(c).toBeGreaterThan(5);
  });

  it('moves only the rooms of a worker that leaves, and only rooms to a worker that joins', () => {
    const three = assignRooms(rooms, ['w1', 'w2', 'w3']);
    const two = assignRooms(rooms, ['w1', 'w3']);
    for (const room of rooms) {
      if (three.get(room) !== 'w2') expect(two.get(room)).toBe(three.get(room));
      else expect(['w1', 'w3']).toContain(two.get(room));
    }
    const four = assignRooms(rooms, ['w1', 'w2', 'w3', 'w4']);
    const moved = rooms.filter((room) => four.get(room) !== three.get(room));
    expect(moved.length).toBeGreaterThan(0);
    for (const room of moved) expect(four.get(room)).toBe('w4');
  });

  it('assigns nothing without workers', () => {
    expect(assignRooms(rooms, []).size).toBe(0);
  });
});
