import type { SensingFrame } from '@wiflow/core';
import { runNode } from '@wiflow/core/testing';
import { describe, expect, it } from 'vitest';
import { senseLinkNode, senseRoomNode } from '../index.js';
import { syntheticLinkFrames } from '../testing/synthetic-link.js';

describe('sense.link and sense.room nodes', () => {
  it('turn two links of one room into one room frame per second: present if any link is, the strongest motion', async () => {
    const story = [{ kind: 'still' as const, seconds: 6, bpm: 15 }, { kind: 'moving' as const, seconds: 8 }];
    const a = syntheticLinkFrames(story, { rateHz: 30, loss: 0.1, seed: 1 });
    const b = syntheticLinkFrames(story, { rateHz: 15, loss: 0.1, seed: 2 }).map((f) => ({ ...f, link: { tx: 'tx', rx: 'rx2' } }));
    const frames = [...a, ...b].sort((x, y) => x.time - y.time);
    const link = await runNode(senseLinkNode, { config: { environmentId: 'living-room' }, inputs: { frames } });
    expect(link.status).toBe('completed');
    const linkFrames = link.outputs.sensing as SensingFrame[];
    expect(new Set(linkFrames.map((f) => f.link?.rx))).toEqual(new Set(['rx', 'rx2']));
    const room = await runNode(senseRoomNode, { inputs: { sensing: linkFrames } });
    const roomFrames = room.outputs.sensing as SensingFrame[];
    expect(room.counters?.errors ?? 0).toBe(0);
    expect((room.counters?.stats as { lateFrames: number }).lateFrames).toBe(0);
    expect(roomFrames.every((f) => f.scope === 'room' && f.link === null && f.environmentId === 'living-room')).toBe(true);
    // Each wall-clock second once: the links' own seconds straddle wall-clock seconds differently.
    const seconds = roomFrames.map((f) => Math.floor(f.time / 1000));
    expect(new Set(seconds).size).toBe(seconds.length);
    expect(roomFrames.length).toBeGreaterThanOrEqual(13);
    for (const room of roomFrames) {
      const second = Math.floor(room.time / 1000);
      const links = linkFrames.filter((f) => Math.floor(f.time / 1000) === second);
      expect(links.length).toBeGreaterThanOrEqual(1);
      expect(room.presence).toBe(links.some((f) => f.presence));
      expect(room.motion).toBe(Math.max(...links.map((f) => f.motion)));
    }
  });
});
