import type { Router } from 'express';
import { defineRoute } from '@wiflow/core';
import { z } from 'zod';
import type { StudioContext } from '../context.js';
import { flowServiceRouter } from '../http/route-kit.js';

const Verdict = z.enum(['ok', 'limited', 'no', 'unknown']);
const Check = z.object({ capability: z.enum(['movement', 'still_person', 'breathing', 'falls']), verdict: Verdict, reason: z.string() });

/**
 * One link a running `sense.link` node senses, as `sense.link`'s `details()` gives it (plugin-sensing's
 * `LinkSnapshot` and `linkReadiness`), with the pipeline it runs in. Read through this schema, so a node
 * that answers something else adds nothing rather than something unchecked.
 */
const SensingLinkSchema = z.object({
  link: z.object({ tx: z.string(), rx: z.string() }),
  format: z.string().nullable(),
  family: z.string().nullable(),
  transmitChains: z.number().nullable(),
  receiveChains: z.number().nullable(),
  subcarriers: z.number().nullable(),
  frames: z.number(),
  otherKindFrames: z.number(),
  seconds: z.number(),
  packetsPerSecond: z.number().nullable(),
  lostFraction: z.number().nullable(),
  fallDetector: z.enum(['velocity-profile', 'burst']).nullable(),
  provenance: z.string().nullable(),
  motionModel: z.enum(['captures-rate', 'slow-link']).nullable(),
  motionFloor: z.object({ seconds: z.number(), window: z.number(), quantile: z.number() }).nullable().optional(),
  lastSecond: z.number().nullable(),
  recentStates: z.string(),
  state: z.string().nullable(),
  motion: z.number().nullable(),
  presence: z.boolean().nullable(),
  checks: z.array(Check),
  notes: z.array(z.string()),
});
const DetailsSchema = z.object({ environmentId: z.string(), links: z.array(SensingLinkSchema), moreLinks: z.number() });

const SensingLinkView = z.object({
  environment_id: z.string(),
  deployment_id: z.string(),
  flow_id: z.string().nullable(),
  flow_name: z.string().nullable(),
  node: z.string(),
  link: z.string(),
  format: z.string().nullable(),
  radio_family: z.string().nullable(),
  transmit_chains: z.number().nullable(),
  receive_chains: z.number().nullable(),
  subcarriers: z.number().nullable(),
  packets: z.number(),
  other_kind_packets: z.number(),
  seconds: z.number(),
  packets_per_second: z.number().nullable(),
  lost_fraction: z.number().nullable(),
  fall_detector: z.enum(['velocity-profile', 'burst']).nullable(),
  provenance: z.string().nullable(),
  /** Which motion model read the newest second: the radio family's own (`captures-rate`) or its slow links' one (`slow-link`). */
  motion_model: z.enum(['captures-rate', 'slow-link']).nullable(),
  /** Where the link's motion model (an ESP32's, at any rate) reads its inputs against the link's own quiet floor: the seconds the floor holds, its window (s) and the quantile read; null otherwise. */
  motion_floor: z.object({ seconds: z.number(), window_seconds: z.number(), quantile: z.number() }).nullable(),
  /** The newest second sensed (seconds since the link's first packet), or null before one. */
  last_second: z.number().nullable(),
  /** The last minute's states up to `last_second`, a letter a second (`e`mpty, `s`till, `m`oving), oldest first. */
  recent_states: z.string(),
  state: z.string().nullable(),
  motion: z.number().nullable(),
  presence: z.boolean().nullable(),
  checks: z.array(Check),
  notes: z.array(z.string()),
});
const SensingLinksView = z.object({
  links: z.array(SensingLinkView),
  /** Links sensed beyond the 32 per node listed. */
  links_not_listed: z.number().int(),
});
export type SensingLinkView = z.infer<typeof SensingLinkView>;

/**
 * `GET /api/v1/studio/sensing-links`: every link the running pipelines' `sense.link` nodes sense, with its
 * radio, packet rate and lost slots over the last 10 s, its newest state, and per capability (movement, a
 * still person, breathing, falls) whether the link gives what it needs and why: the Installer page's
 * sensing table. Read-only; pipelines without `sense.link` add nothing.
 */
export function sensingRoutes(studio: StudioContext): Router {
  const links = defineRoute({
    method: 'get',
    path: '/sensing-links',
    summary: "The running pipelines' sensing links: radio, packet rate, losses and readiness per capability",
    tags: ['studio'],
    spec: false,
    access: 'viewer',
    success: { status: 200, description: 'Sensing links', A: SensingLinksView, B: SensingLinksView },
    errors: [],
    handler: async () => ({ body: sensingLinksOf(studio) }),
  });
  return flowServiceRouter(studio, [links]);
}

function sensingLinksOf(studio: StudioContext): z.infer<typeof SensingLinksView> {
  const out: SensingLinkView[] = [];
  let notListed = 0;
  for (const deployed of studio.flows.pipelines.values()) {
    for (const runner of deployed.pipeline.runners.values()) {
      if (runner.node.definition.type !== 'sense.link' || !runner.instance?.details) continue;
      let details: z.infer<typeof DetailsSchema>;
      try {
        const parsed = DetailsSchema.safeParse(runner.instance.details());
        if (!parsed.success) continue;
        details = parsed.data;
      } catch {
        continue; // a node that cannot describe itself now is left out, not allowed to fail the page
      }
      notListed += details.moreLinks;
      for (const l of details.links) {
        out.push({
          environment_id: details.environmentId,
          deployment_id: deployed.id,
          flow_id: deployed.flowId,
          flow_name: deployed.name,
          node: runner.node.id,
          link: `${l.link.tx}>${l.link.rx}`,
          format: l.format,
          radio_family: l.family,
          transmit_chains: l.transmitChains,
          receive_chains: l.receiveChains,
          subcarriers: l.subcarriers,
          packets: l.frames,
          other_kind_packets: l.otherKindFrames,
          seconds: l.seconds,
          packets_per_second: l.packetsPerSecond === null ? null : Math.round(l.packetsPerSecond * 10) / 10,
          lost_fraction: l.lostFraction === null ? null : Math.round(l.lostFraction * 1000) / 1000,
          fall_detector: l.fallDetector,
          provenance: l.provenance,
          motion_model: l.motionModel,
          motion_floor: l.motionFloor ? { seconds: l.motionFloor.seconds, window_seconds: l.motionFloor.window, quantile: l.motionFloor.quantile } : null,
          last_second: l.lastSecond,
          recent_states: l.recentStates,
          state: l.state,
          motion: l.motion === null ? null : Math.round(l.motion * 1000) / 1000,
          presence: l.presence,
          checks: l.checks,
          notes: l.notes,
        });
      }
    }
  }
  out.sort((a, b) => a.environment_id.localeCompare(b.environment_id) || a.link.localeCompare(b.link));
  return { links: out, links_not_listed: notListed };
}
