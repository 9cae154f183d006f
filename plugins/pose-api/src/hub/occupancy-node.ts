import { z } from 'zod';
import { defineNode, flowEnvironments, Tokens, type FlowControl, type PoseFrame, type SensingFrame } from '@wiflow/core';
import { parseZones, pointInPolygon, ZoneSchema, type Zone } from '@wiflow/analytics-common';
import { PoseHubToken } from './publish-node.js';
import { SENSING_MATCH_WINDOW_MS, type PoseHub } from './pose-hub.js';

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
  /**
   * What the answer rests on: 'positions' (the located persons of the latest pose frame), 'sensing' (the room's
   * CSI sensing frame, used when the pose frame has nobody located or is stale), 'none' (neither).
   */
  basis: 'positions' | 'sensing' | 'none';
  /** Persons located; on the sensing basis 0 when the room is empty and null when someone is there (sensing does not count people). */
  person_count: number | null;
  persons: { track_id: number | null; confidence: number; position: { x: number; y: number }; activity: string | null; zones: string[] }[];
  /** Persons per zone; null on the sensing basis when someone is there (no positions). */
  zones: { zone_id: string; zone_name: string; person_count: number | null }[];
  /** The pose frame consulted (also on the sensing basis, where it located nobody or is stale), or null. */
  source: { model_id: string; model_hash: string; provenance: string } | null;
  /** The room's sensing frame the answer used (basis 'sensing'), or null. */
  sensing: { as_of: string; presence: boolean; state: SensingFrame['state']; motion: number; breathing_bpm: number | null; estimator_id: string; config_hash: string; provenance: string } | null;
}

/**
 * The environment's zones as the running pipelines that write it define them (their analytics
 * nodes' `zones`), first definition of an id kept: the occupancy answer then counts people in
 * the zones the room's own analytics use, without the flow repeating them.
 */
export function runningPipelineZones(flows: Pick<FlowControl, 'pipelines'>, environmentId: string): Zone[] {
  const zones = new Map<string, Zone>();
  for (const deployed of flows.pipelines.values()) {
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
  description: "Answers how many people are in an environment and where, from the latest published pose frame; where nobody is located (or the frame is stale), from the room's CSI sensing frame: presence, not a count (never invented: no frame, no people, said so; `basis` says which).",
  inputs: { environment: { type: ['text', 'any'], required: true, description: 'Environment id' } },
  outputs: { occupancy: { type: 'json', description: 'Count, positions, zones and the frame it comes from' } },
  config: OccupancyNodeConfig,
  create(ctx) {
    const hub = ctx.services.get(PoseHubToken);
    const flows = ctx.services.get(Tokens.Flows);
    return {
      receive(_port, value) {
        const environmentId = String(value ?? '');
        const frame: PoseFrame | undefined = hub.latest(environmentId || undefined);
        const configured = ctx.config.zones.length ? ctx.config.zones : runningPipelineZones(flows, frame?.environmentId ?? environmentId);
        const now = Date.now();
        const stale = !frame || now - frame.timestamp > ctx.config.maxAgeSeconds * 1000;
        const environment = frame?.environmentId ?? environmentId;
        // A room's sensing second is emitted a few seconds after it ends: allow that lag on top of maxAgeSeconds.
        const sensed: SensingFrame | undefined = environment ? hub.latestSensing(environment) : undefined;
        const sensingFresh = sensed !== undefined && now - sensed.time <= ctx.config.maxAgeSeconds * 1000 + SENSING_MATCH_WINDOW_MS;
        if (sensed && sensingFresh && (stale || frame!.persons.length === 0)) {
          const answer: OccupancyAnswer = {
            environment_id: environment,
            as_of: new Date(sensed.time).toISOString(),
            stale: false,
            basis: 'sensing',
            person_count: sensed.presence ? null : 0,
            persons: [],
            zones: configured.map((z) => ({ zone_id: z.id, zone_name: z.name ?? z.id, person_count: sensed.presence ? null : 0 })),
            // The pose frame consulted (it located nobody, or is stale), so the answer says which model found no one.
            source: frame ? { model_id: frame.metadata.modelId, model_hash: frame.metadata.modelHash, provenance: frame.metadata.provenance } : null,
            sensing: { as_of: new Date(sensed.time).toISOString(), presence: sensed.presence, state: sensed.state, motion: sensed.motion, breathing_bpm: sensed.breathingBpm, estimator_id: sensed.estimatorId, config_hash: sensed.configHash, provenance: sensed.provenance },
          };
          return ctx.emit('occupancy', answer);
        }
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
          basis: frame ? 'positions' : 'none',
          person_count: persons.length,
          persons,
          zones: configured.map((z) => ({ zone_id: z.id, zone_name: z.name ?? z.id, person_count: persons.filter((p) => p.zones.includes(z.id)).length })),
          source: frame ? { model_id: frame.metadata.modelId, model_hash: frame.metadata.modelHash, provenance: frame.metadata.provenance } : null,
          sensing: null,
        };
        ctx.emit('occupancy', answer);
      },
    };
  },
});
