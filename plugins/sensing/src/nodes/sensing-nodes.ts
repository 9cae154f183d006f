import { DataTypes, defineNode, type CsiFrame, type SensingFrame } from '@wiflow/core';
import { z } from 'zod';
import { SensingConfigSchema, sensingConfigHash } from '../config.js';
import { DEFAULT_SENSING_MODELS } from '../model/defaults.js';
import { combineRoomSecond } from '../room.js';
import { LinkSensor, type LinkSnapshot } from '../signal/link-sensor.js';
import { linkReadiness, type LinkReadiness } from '../signal/readiness.js';
import { senseAlertsNode } from './sense-alerts.js';

/** Config of `sense.link`: the room the links belong to, and the sensing settings. */
export const SenseLinkConfig = SensingConfigSchema.extend({
  environmentId: z.string().min(1).default('default').describe("Room the links belong to: the same id as the room's environment in pose.locate, the pose API and healthcare (frames with another id are another room's; pose.locate's room port counts them as ignored)"),
});

/** Config of `sense.room` (nothing to set: the room id comes with the frames). */
export const SenseRoomConfig = z.object({});

/** Links whose details `sense.link` lists (a node may see more; its stats' `links` counts them all). */
const MAX_LINK_DETAILS = 32;

/** What `sense.link`'s `details()` gives: its room and, per link, the snapshot and its readiness. */
export interface SenseLinkDetails {
  environmentId: string;
  links: (LinkSnapshot & LinkReadiness)[];
  /** Links seen beyond the MAX_LINK_DETAILS listed. */
  moreLinks: number;
}

const sensingOut = { sensing: { type: DataTypes.SensingFrame, description: 'One sensing frame per link (or room) per second' } };

/** Per-link sensing: CSI frames in, one `SensingFrame` per link per second out. */
export const senseLinkNode = defineNode({
  type: 'sense.link',
  title: 'Sense (per link)',
  category: 'sensing',
  description: 'Presence (still people included), still/moving state, motion score, breathing rate, activity and falls per second on each link, from CSI alone (no geometry). Irregular packet rates are averaged onto a time grid; amplitudes are normalised per packet (AGC).',
  inputs: { frames: { type: DataTypes.CsiFrame, description: 'CSI frames of any number of links' } },
  outputs: sensingOut,
  config: SenseLinkConfig,
  create(ctx) {
    const { environmentId, ...rest } = ctx.config;
    const config = SensingConfigSchema.parse(rest);
    const configHash = sensingConfigHash(config, DEFAULT_SENSING_MODELS);
    const sensors = new Map<string, LinkSensor>();
    return {
      async receive(_port, value) {
        const frame = value as CsiFrame;
        const key = `${frame.link.tx}>${frame.link.rx}`;
        let sensor = sensors.get(key);
        if (!sensor) sensors.set(key, (sensor = new LinkSensor(frame.link, { environmentId, config, models: DEFAULT_SENSING_MODELS, configHash })));
        for (const out of sensor.push(frame)) await ctx.emit('sensing', out);
      },
      async flush() {
        for (const sensor of sensors.values()) for (const out of sensor.finish()) await ctx.emit('sensing', out);
      },
      stats() {
        let frames = 0;
        let lostSlots = 0;
        let otherKindFrames = 0;
        for (const s of sensors.values()) {
          frames += s.stats.frames;
          lostSlots += s.stats.lostSlots;
          otherKindFrames += s.stats.otherKindFrames;
        }
        return { links: sensors.size, frames, lostSlots, otherKindFrames };
      },
      /** Each link's radio, packet rate, losses and what it gives each capability (the studio's Installer page). */
      details(): SenseLinkDetails {
        const links = [...sensors.values()].slice(0, MAX_LINK_DETAILS).map((sensor) => {
          const snapshot = sensor.snapshot();
          return { ...snapshot, ...linkReadiness(snapshot) };
        });
        return { environmentId, links, moreLinks: Math.max(0, sensors.size - MAX_LINK_DETAILS) };
      },
    };
  },
});

/** What `sense.room` holds per room. */
interface RoomState {
  open: Map<number, SensingFrame[]>;
  newest: Map<string, number>;
  emittedUpTo: number;
  firstSecond: number;
}

/** Combines link frames into one room frame per second (presence if any link sees someone). */
export const senseRoomNode = defineNode({
  type: 'sense.room',
  title: 'Sense (per room)',
  category: 'sensing',
  description: 'Combines the per-link sensing frames of each room into one frame per second: presence if any link sees someone, the strongest state, the clearest breathing rate, every fall once.',
  inputs: { sensing: { type: DataTypes.SensingFrame, description: 'Per-link sensing frames' } },
  outputs: sensingOut,
  config: SenseRoomConfig,
  create(ctx) {
    // Per room: the link frames of the wall-clock seconds not yet emitted, and each link's newest second.
    // A second is emitted once every link seen in the room has reached it (after the room's first 10 s), or 10 s later (a link fell silent; a
    // link's first frames come a few seconds late while it locks its packet kind). Later frames of an emitted
    // second are counted as late and dropped, so every room second is emitted once.
    const rooms = new Map<string, RoomState>();
    let late = 0;
    const emitReady = async (room: RoomState, all: boolean) => {
      const newest = [...room.newest.values()];
      const everyLink = Math.min(...newest);
      const anyLink = Math.max(...newest);
      // For its first 10 s a room may not have seen all its links yet: wait for the 10 s lag then.
      const settled = anyLink - room.firstSecond >= 10;
      for (const second of [...room.open.keys()].sort((a, b) => a - b)) {
        if (!all && !(settled && second <= everyLink) && second > anyLink - 10) break;
        await ctx.emit('sensing', combineRoomSecond(room.open.get(second)!));
        room.open.delete(second);
        room.emittedUpTo = Math.max(room.emittedUpTo, second);
      }
    };
    return {
      async receive(_port, value) {
        const frame = value as SensingFrame;
        if (frame.scope !== 'link') return ctx.emit('sensing', frame);
        let room = rooms.get(frame.environmentId);
        if (!room) rooms.set(frame.environmentId, (room = { open: new Map(), newest: new Map(), emittedUpTo: -Infinity, firstSecond: Math.floor(frame.time / 1000) }));
        // Links start at different instants: their seconds meet on the wall clock.
        const second = Math.floor(frame.time / 1000);
        if (second <= room.emittedUpTo) {
          late++;
          return;
        }
        const list = room.open.get(second) ?? [];
        list.push(frame);
        room.open.set(second, list);
        const key = `${frame.link?.tx}>${frame.link?.rx}`;
        room.newest.set(key, Math.max(room.newest.get(key) ?? -Infinity, second));
        await emitReady(room, false);
      },
      async flush() {
        for (const room of rooms.values()) await emitReady(room, true);
      },
      stats: () => ({ rooms: rooms.size, lateFrames: late }),
    };
  },
});

/** Every node type this plugin registers. */
export const sensingNodes = [senseLinkNode, senseRoomNode, senseAlertsNode];
