import type { Router } from 'express';
import { defineRoute } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { flowServiceRouter } from '../http/route-kit.js';

/** A radio on the floor plan (metres; x, y on the floor). */
export interface RoomRadio {
  id: string;
  role: 'tx' | 'rx';
  x: number;
  y: number;
}

/** A named floor zone (metres). */
export interface RoomZone {
  id: string;
  name: string;
  polygon: [number, number][];
  /** The node whose config named it. */
  node: string;
}

/** One environment's floor plan as the running pipelines describe it. */
export interface RoomView {
  environment_id: string;
  deployment_id: string;
  flow_id: string | null;
  width: number;
  depth: number;
  radios: RoomRadio[];
  zones: RoomZone[];
  /** Where the geometry came from: a node and the scenario or `environments` entry it names. */
  source: string;
}

const RoomRadioSchema = z.object({ id: z.string(), role: z.enum(['tx', 'rx']), x: z.number(), y: z.number() });
const RoomZoneSchema = z.object({ id: z.string(), name: z.string(), polygon: z.array(z.tuple([z.number(), z.number()])), node: z.string() });
/** A RoomView, for the route's declared response. */
const RoomViewSchema = z.object({
  environment_id: z.string(),
  deployment_id: z.string(),
  flow_id: z.string().nullable(),
  width: z.number(),
  depth: z.number(),
  radios: z.array(RoomRadioSchema),
  zones: z.array(RoomZoneSchema),
  source: z.string(),
});

/** What the simulator plugin exposes to read a scenario (loaded on demand: the studio does not need it otherwise). */
interface ScenarioReader {
  resolveScenario(source: unknown): {
    environmentId: string;
    room: { width: number; depth: number };
    radios: { id: string; role: 'tx' | 'rx'; position: number[] }[];
    zones: { id: string; name?: string; polygon: [number, number][] }[];
  };
}
const SIM_PACKAGE: string = '@wiflow/plugin-sim';

/** Environment geometry a pose node carries inline (`environments` of pose.estimate / pose.locate). */
interface InlineEnvironment {
  id: string;
  room: { width: number; depth: number };
  links: { tx: string; rx: string; txPosition: number[]; rxPosition: number[] }[];
}

function isZoneList(value: unknown): value is { id: string; name?: string; polygon: [number, number][] }[] {
  return Array.isArray(value) && value.every((z) => z && typeof z === 'object' && typeof (z as { id?: unknown }).id === 'string' && Array.isArray((z as { polygon?: unknown }).polygon));
}

/**
 * `GET /api/v1/studio/rooms`: the floor plans of the environments the running pipelines
 * sense — room size, radios and named zones — read from their nodes' configs (a simulator
 * scenario, a pose node's `environments`, analytics nodes' `zones`). Read-only; the live view
 * draws the room to scale from it. Pipelines whose nodes name no geometry add nothing.
 */
export function roomRoutes(studio: StudioContext): Router {
  const rooms = defineRoute({
    method: 'get',
    path: '/rooms',
    summary: 'Floor plans of the environments the running pipelines sense',
    tags: ['studio'],
    spec: false,
    access: 'viewer',
    success: { status: 200, description: 'Rooms', A: z.array(RoomViewSchema), B: z.array(RoomViewSchema) },
    errors: [],
    handler: async () => ({ body: await roomsOf(studio) }),
  });
  return flowServiceRouter(studio, [rooms]);
}

/** The rooms of every running pipeline whose nodes name geometry. */
async function roomsOf(studio: StudioContext): Promise<RoomView[]> {
  let sim: ScenarioReader | null | undefined;
  const reader = async (): Promise<ScenarioReader | null> => {
    if (sim === undefined) sim = await import(SIM_PACKAGE).then((m) => m as ScenarioReader, () => null);
    return sim;
  };
  const rooms: RoomView[] = [];
  for (const deployed of studio.flows.pipelines.values()) {
    const found = new Map<string, RoomView>();
    const zones: RoomZone[] = [];
    for (const runner of deployed.pipeline.runners.values()) {
      const { id: nodeId, definition, config } = runner.node;
      const scenario = config.scenario;
      if ((definition.type === 'sim.source' || definition.type.startsWith('pose.')) && scenario && (typeof scenario === 'string' || typeof scenario === 'object')) {
        const sim = await reader();
        try {
          const s = sim?.resolveScenario(scenario);
          if (s) {
            const environmentId = typeof config.environmentId === 'string' ? config.environmentId : s.environmentId;
            if (!found.has(environmentId)) {
              found.set(environmentId, {
                environment_id: environmentId,
                deployment_id: deployed.id,
                flow_id: deployed.flowId,
                width: s.room.width,
                depth: s.room.depth,
                radios: s.radios.map((r) => ({ id: r.id, role: r.role, x: r.position[0], y: r.position[1] })),
                zones: [],
                source: `${nodeId} (${definition.type}): scenario ${typeof scenario === 'string' ? scenario : 'inline'}`,
              });
            }
            for (const z of s.zones) zones.push({ id: z.id, name: z.name ?? z.id, polygon: z.polygon, node: nodeId });
          }
        } catch {
          // A scenario the node itself cannot read fails that node; the plan just lacks it.
        }
      }
      const environments = config.environments as InlineEnvironment[] | undefined;
      if (Array.isArray(environments)) {
        for (const e of environments) {
          if (found.has(e.id)) continue;
          const radios = new Map<string, RoomRadio>();
          for (const l of e.links) {
            radios.set(l.tx, { id: l.tx, role: 'tx', x: l.txPosition[0], y: l.txPosition[1] });
            radios.set(l.rx, { id: l.rx, role: 'rx', x: l.rxPosition[0], y: l.rxPosition[1] });
          }
          found.set(e.id, { environment_id: e.id, deployment_id: deployed.id, flow_id: deployed.flowId, width: e.room.width, depth: e.room.depth, radios: [...radios.values()], zones: [], source: `${nodeId} (${definition.type}): environments` });
        }
      }
      if (isZoneList(config.zones)) for (const z of config.zones) zones.push({ id: z.id, name: z.name ?? z.id, polygon: z.polygon, node: nodeId });
    }
    // Zones belong to the pipeline's rooms; the same zone named by several nodes is drawn once.
    for (const room of found.values()) {
      const seen = new Set<string>();
      room.zones = zones.filter((z) => !seen.has(z.id) && seen.add(z.id));
      rooms.push(room);
    }
  }
  return rooms;
}
