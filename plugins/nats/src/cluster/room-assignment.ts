import { createHash } from 'node:crypto';

/** Rendezvous weight of a worker for a room: a hash of both names, the same in every process. */
function weight(worker: string, room: string): number {
  return createHash('sha1').update(worker).update('\u0000').update(room).digest().readUInt32BE(0);
}

/**
 * Which worker owns each room: the one with the highest rendezvous (highest-random-weight)
 * weight. Every worker computes the same answer from the same member list, with no
 * coordinator; when a worker joins or leaves, only the rooms it gains or held move (about
 * rooms / workers of them), so the other rooms keep their per-room state (empty-room
 * reference, tracker). Ties (a hash collision) go to the smaller name.
 */
export function assignRooms(rooms: readonly string[], workers: readonly string[]): Map<string, string> {
  const owners = new Map<string, string>();
  if (workers.length === 0) return owners;
  for (const room of rooms) {
    let best = '', bestWeight = -1;
    for (const worker of workers) {
      const w = weight(worker, room);
      if (w > bestWeight || (w === bestWeight && worker < best)) { best = worker; bestWeight = w; }
    }
    owners.set(room, best);
  }
  return owners;
}
