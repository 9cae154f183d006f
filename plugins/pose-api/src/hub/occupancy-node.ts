import { z } from 'zod';
import { defineNode, flowEnvironments, Tokens, type PoseFrame, type Runtime } from '@wiflow/core';
import { parseZones, pointInPolygon, ZoneSchema, type Zone } from '@wiflow/analytics-common';
import { PoseHubToken } from './publish-node.js';
import type { PoseHub } from './pose-hub.js';

/** Config of `pose.occupancy`. */
export const OccupancyNodeConfig = z.object({
  zones: z.array(ZoneSchema).default([]).describe("Named floor polygons (m) to count people in; empty: the zones of the running pipelines' nodes that write the environment"),
  maxAgeSeconds: z.number().positive().default(10).describe('A latest frame older than this is reported as stale (no current data)'),
});

/** What `pose.occupancy` answers. */
export interface OccupancyAnswer {
  environment_id: string;
  /** ISO time of the pose frame the answer comes from, or null when there is none. */
  as_of: string | null;
  stale: boolean;
  person_count: number;
  persons: { track_id: number | null; confidence: number; position: { x: number; y: number }; activity: string | null; zones: string[] }[];
  zones: { zone_id: string; zone_name: string; person_count: number }[];
  source: { model_id: string; model_hash: string; provenance: string } | null;
}

/**
 * The environment's zones as the running pipelines that write it define them (their analytics
 * nodes' `zones`), first definition of an id kept: the occupancy answer then counts people in
 * the zones the room's own analytics use, without the flow repeating them.
 */
export function runningPipelineZones(runtime: Runtime, environmentId: string): Zone[] {
  const zones = new Map<string, Zone>();
  for (const deployed of runtime.pipelines.values()) {
    if (deployed.outcome || !flowEnvironments(deployed.data).includes(environmentId)) continue;
    for (const node of deployed.data.nodes) {
      const config = (node.data?.config ?? {}) as Record<string, unknown>;
      if (!Array.isArray(config.zones)) continue;
      let parsed: Zone[];
      try {
        parsed = parseZones(config.zones, `${node.id}.zones`);
      } catch {
        continue;
      }
      for (const zone of parsed) if (!zones.has(zone.id)) zones.set(zone.id, zone);
    }
  }
  return [...zones.values()];
}

/**
 * How many people are where in an environment now: reads the latest pose frame the running
 * pipeline published (`pose.publish`), for the environment id that arrives on `environment`.
 */
export const poseOccupancyNode = defineNode({
  type: 'pose.occupancy',
  title: 'Occupancy now',
  category: 'analytics',
  description: 'Answers how many people are in an environment and where, from the latest published pose frame (never invented: no frame, no people, said so).',
  inputs: { environment: { type: ['text', 'any'], required: true, description: 'Environment id' } },
  outputs: { occupancy: { type: 'json', description: 'Count, positions, zones and the frame it comes from' } },
  config: OccupancyNodeConfig,
  create(ctx) {
    const hub = ctx.services.get(PoseHubToken);
    const runtime = ctx.services.get(Tokens.Runtime);
    return {
      receive(_port, value) {
        const environmentId = String(value ?? '');
        const frame: PoseFrame | undefined = hub.latest(environmentId || undefined);
        const configured = ctx.config.zones.length ? ctx.config.zones : runningPipelineZones(runtime, frame?.environmentId ?? environmentId);
        const stale = !frame || Date.now() - frame.timestamp > ctx.config.maxAgeSeconds * 1000;
        const persons = (frame?.persons ?? []).map((p) => ({
          track_id: p.trackId ?? null,
          confidence: p.confidence,
          position: p.position,
          activity: p.activity ?? null,
          zones: configured.filter((z) => pointInPolygon(p.position, z.polygon)).map((z) => z.id),
        }));
        const answer: OccupancyAnswer = {
          environment_id: frame?.environmentId ?? environmentId,
          as_of: frame ? new Date(frame.timestamp).toISOString() : null,
          stale,
          person_count: persons.length,
          persons,
          zones: configured.map((z) => ({ zone_id: z.id, zone_name: z.name ?? z.id, person_count: persons.filter((p) => p.zones.includes(z.id)).length })),
          source: frame ? { model_id: frame.metadata.modelId, model_hash: frame.metadata.modelHash, provenance: frame.metadata.provenance } : null,
        };
        ctx.emit('occupancy', answer);
      },
    };
  },
});
