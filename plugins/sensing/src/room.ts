import type { SensingFrame } from '@wiflow/core';

const STATE_RANK = { empty: 0, still: 1, moving: 2 } as const;

/**
 * One room's second from its links' frames of that second: present if any link sees someone, the
 * strongest state and motion, the breathing rate of the link whose spectrum is clearest, falls of every
 * link (one per 2 s, the most confident).
 */
export function combineRoomSecond(links: SensingFrame[]): SensingFrame {
  if (links.length === 0) throw new Error('combineRoomSecond: no link frames');
  let strongest = links[0];
  for (const f of links) if (STATE_RANK[f.state] > STATE_RANK[strongest.state] || (f.state === strongest.state && f.motion > strongest.motion)) strongest = f;
  let breathing: SensingFrame | null = null;
  for (const f of links) if (f.breathingBpm !== null && (!breathing || (f.breathingQuality ?? 0) > (breathing.breathingQuality ?? 0))) breathing = f;
  const falls = links.flatMap((f) => f.falls).sort((a, b) => b.confidence - a.confidence);
  const kept = falls.filter((f, i) => falls.findIndex((g) => Math.abs(g.time - f.time) < 2000) === i);
  return {
    ...strongest,
    time: Math.max(...links.map((f) => f.time)),
    scope: 'room',
    link: null,
    presence: links.some((f) => f.presence),
    motion: Math.max(...links.map((f) => f.motion)),
    breathingBpm: breathing?.breathingBpm ?? null,
    breathingQuality: breathing?.breathingQuality ?? null,
    breathingReason: breathing ? null : strongest.breathingReason,
    activity: kept.length ? 'fall' : strongest.activity,
    falls: kept,
    lostFraction: Math.min(...links.map((f) => f.lostFraction)),
  };
}
