import { z } from 'zod';
import type { ComponentNode } from './system-controller.js';

/** Still seconds in a row the detector needs before it judges a link (`StalenessSettings.stillSeconds`'s default, which pose.locate uses). */
const STILL_SECONDS = 20;
/** Seconds measured without such a stretch after which an unchecked link is reported "never still". */
const NEVER_STILL_AFTER_S = 60;

/** One link's empty-room reference as the pipeline judges it (extension of /system/status and /health/detailed). */
export const ReferenceLinkSchema = z.object({
  environment_id: z.string(),
  link: z.string().describe('transmitter->receiver'),
  status: z.enum(['unchecked', 'fresh', 'stale']).describe('unchecked until the room was still for 20 s; stale: the still room differs from the reference by more than its noise allows, even with the locator\'s gain per receive chain; fresh: the reference serves the locator (verdict fine or replugged)'),
  verdict: z.enum(['unchecked', 'fine', 'replugged', 'stale']).describe('fine: the reference fits; replugged: a receiver was re-plugged (new chain phases), the locator aligns them with its gain per receive chain, no action needed; stale: a static change the locator does not remove, re-record'),
  change_noise_floors: z.number().nullable().describe("the still room's change against the reference, in the reference's noise floors (null while unchecked)"),
  chain_aligned_change_noise_floors: z.number().nullable().describe("the same change with a gain per receive chain, as the locator aligns packets (null while unchecked, or where the locator has no staticChainGain)"),
  still_seconds: z.number().int().describe('still seconds in a row now'),
  checked_at: z.string().nullable().describe('when the link was last judged (null while unchecked)'),
  unchecked_reason: z.string().nullable().describe(`why an unchecked link is not judged yet: "never still" after ${NEVER_STILL_AFTER_S} s measured without ${STILL_SECONDS} still seconds in a row (someone moving all the time, or packets that vary as motion does: a re-plugged receiver can); null otherwise`),
});

/** One room's automatic reference refresh (extension). */
export const ReferenceRefreshSchema = z.object({
  environment_id: z.string(),
  enabled: z.boolean().describe("pose.locate's referenceRefresh.enabled (off by default)"),
  version: z.number().int().describe('1: the recorded reference; each refresh adds one'),
  refreshed_at: z.string().nullable().describe('when a link was last refreshed (null: never)'),
  reason: z.string().describe('why the current version was made'),
  judges: z.array(z.enum(['locator', 'sensing'])).describe('what must call the room empty for every second of a stretch'),
  links: z.array(z.object({ link: z.string(), stretch_seconds: z.number().int(), refreshed_at: z.string().nullable() })),
  history: z.array(z.object({ version: z.number().int(), at: z.string().nullable(), links: z.array(z.string()), reason: z.string() })).describe('older versions kept for rollback, newest first'),
});

/** The empty-room reference part of the status (extension). */
export const ReferenceStatusSchema = z.object({
  status: z.enum(['not_configured', 'stopped', 'unchecked', 'fresh', 'stale']).describe('stale when any link is; not_configured without a pose.locate node'),
  stale_links: z.array(z.string()).describe('environment_id/link of every stale link'),
  replugged_links: z.array(z.string()).describe('environment_id/link of every link whose receiver was re-plugged (the locator copes; not stale)'),
  links: z.array(ReferenceLinkSchema),
  refresh: z.array(ReferenceRefreshSchema).describe('per room, the automatic reference refresh: whether it is on, when it last refreshed and why'),
  message: z.string().nullable().describe('what a stale reference means and how to re-record it (null unless stale)'),
  notice: z.string().nullable().describe('what a re-plugged receiver means (null unless a link is replugged); no action needed'),
});

/** The empty-room reference part of the status. */
export type ReferenceStatus = z.output<typeof ReferenceStatusSchema>;

/** What `pose.locate` reports in its `referenceStates` stat (a JSON string: node stats are scalars). */
const NodeStatesSchema = z.array(z.object({
  environment_id: z.string(),
  link: z.string(),
  status: z.enum(['unchecked', 'fresh', 'stale']),
  // Absent from a pose.locate before the re-plug verdict: derived from status then.
  verdict: z.enum(['unchecked', 'fine', 'replugged', 'stale']).optional(),
  changeNoiseFloors: z.number().nullable(),
  chainAlignedChangeNoiseFloors: z.number().nullable().default(null),
  stillSeconds: z.number().int(),
  // Absent from a pose.locate before "never still": no reason given then.
  secondsMeasured: z.number().int().optional(),
  longestStillSeconds: z.number().int().optional(),
  checkedAt: z.number().nullable(),
}));

/** What `pose.locate` reports in its `referenceRefresh` stat. */
const NodeRefreshSchema = z.array(z.object({
  environment_id: z.string(),
  enabled: z.boolean(),
  version: z.number().int(),
  refreshedAt: z.number().nullable(),
  reason: z.string(),
  judges: z.array(z.enum(['locator', 'sensing'])),
  links: z.array(z.object({ link: z.string(), stretchSeconds: z.number().int(), refreshedAt: z.number().nullable() })),
  history: z.array(z.object({ version: z.number().int(), at: z.number().nullable(), links: z.array(z.string()), reason: z.string() })),
}));

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Why a link is not judged yet when it has been watched long enough to say (null otherwise: judged, or not still for 20 s yet). */
function uncheckedReason(l: { status: string; secondsMeasured?: number; longestStillSeconds?: number }): string | null {
  if (l.status !== 'unchecked' || l.secondsMeasured === undefined || l.longestStillSeconds === undefined) return null;
  return l.secondsMeasured >= NEVER_STILL_AFTER_S && l.longestStillSeconds < STILL_SECONDS
    ? `not judged yet: never still (${l.secondsMeasured} s measured, at most ${l.longestStillSeconds} still seconds in a row of the ${STILL_SECONDS} needed): someone moving all the time, or packets that vary as motion does (a re-plugged receiver can)`
    : null;
}

/**
 * The empty-room references of the running pipeline, from the stats of its nodes that report
 * them (`pose.locate`: `referenceStates`). A stat that does not parse is left out rather than
 * guessed at.
 */
export function referenceStatus(nodes: ComponentNode[], running: boolean): ReferenceStatus {
  const links: ReferenceStatus['links'] = [];
  const refresh: ReferenceStatus['refresh'] = [];
  let reporting = 0;
  for (const node of nodes) {
    const rawRefresh = node.counters.stats?.referenceRefresh;
    if (typeof rawRefresh === 'string') {
      try {
        for (const r of NodeRefreshSchema.parse(JSON.parse(rawRefresh))) {
          refresh.push({
            environment_id: r.environment_id, enabled: r.enabled, version: r.version, refreshed_at: iso(r.refreshedAt), reason: r.reason, judges: r.judges,
            links: r.links.map((l) => ({ link: l.link, stretch_seconds: l.stretchSeconds, refreshed_at: iso(l.refreshedAt) })),
            history: r.history.map((h) => ({ ...h, at: iso(h.at) })),
          });
        }
      } catch {
        // Left out rather than guessed at, as the link states.
      }
    }
    const raw = node.counters.stats?.referenceStates;
    if (typeof raw !== 'string') continue;
    let parsed: z.output<typeof NodeStatesSchema>;
    try {
      parsed = NodeStatesSchema.parse(JSON.parse(raw));
    } catch {
      continue;
    }
    reporting++;
    for (const l of parsed) {
      links.push({
        environment_id: l.environment_id,
        link: l.link,
        status: l.status,
        verdict: l.verdict ?? (l.status === 'fresh' ? 'fine' : l.status),
        change_noise_floors: l.changeNoiseFloors,
        chain_aligned_change_noise_floors: l.chainAlignedChangeNoiseFloors,
        still_seconds: l.stillSeconds,
        checked_at: iso(l.checkedAt),
        unchecked_reason: uncheckedReason(l),
      });
    }
  }
  const stale = links.filter((l) => l.status === 'stale');
  const replugged = links.filter((l) => l.verdict === 'replugged');
  // Both figures, each named: as recorded (the table's), and after the locator's gain per chain (the one a stale link is judged by) where it has one.
  const staleFigure = (l: (typeof links)[number]) => `${l.change_noise_floors?.toFixed(1)} noise floors as recorded${l.chain_aligned_change_noise_floors === null ? '' : `, ${l.chain_aligned_change_noise_floors.toFixed(1)} with the locator's gain per receive chain`}`;
  const status = !running ? 'stopped' : reporting === 0 ? 'not_configured' : stale.length ? 'stale' : links.some((l) => l.status === 'unchecked') ? 'unchecked' : 'fresh';
  return {
    status,
    stale_links: stale.map((l) => `${l.environment_id}/${l.link}`),
    replugged_links: replugged.map((l) => `${l.environment_id}/${l.link}`),
    links,
    refresh,
    message: stale.length
      ? `the empty room changed since its reference was recorded on ${stale.map((l) => `${l.link} (${l.environment_id}, ${staleFigure(l)})`).join(', ')}: furniture moved, a door left open or shut, slow drift, or a radio re-plugged (for a locator without a gain per receive chain). If the room was empty, re-record the reference: studio Installer page, POST /api/v1/system/reference, or \`wiflow locate record\``
      : null,
    notice: replugged.length
      ? `receiver re-plugged on ${replugged.map((l) => `${l.link} (${l.environment_id}, ${l.change_noise_floors?.toFixed(0)} noise floors as recorded, ${l.chain_aligned_change_noise_floors?.toFixed(1)} with a gain per receive chain)`).join(', ')}: its chain phases changed since the reference was recorded; the locator aligns them (its gain per receive chain), so no action is needed. Re-record the reference when convenient.`
      : null,
  };
}
