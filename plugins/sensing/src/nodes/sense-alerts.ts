import { AlertGate, alertFromEvent, createEvent } from '@wiflow/analytics-common';
import { DataTypes, defineNode, type SensingFrame } from '@wiflow/core';
import { z } from 'zod';
import { FallOrder } from './fall-order.js';

/** Rule ids carried in the events' `source`. */
export const SENSE_FALL_RULE = 'sensing.fall/wiflow-sense-v1';
/** Rule id of the inactivity events raised from sensing frames. */
export const SENSE_INACTIVITY_RULE = 'sensing.inactivity/still-v1';
/** Rule id of the presence change events (someone arrived, the room emptied). */
export const SENSE_PRESENCE_RULE = 'sensing.presence/change-v1';

/** Config of `sense.alerts`. */
export const SenseAlertsConfig = z.object({
  inactivityMinutes: z.number().positive().default(30).describe('A person present but not moving this long raises an inactivity event'),
  cooldownSeconds: z.number().min(0).default(300).describe('Repeats of the same alert (type and room or link) within this time are suppressed unless more severe'),
  minFallConfidence: z.number().min(0).max(1).default(0).describe('Falls below this confidence raise no event'),
  fallHoldSeconds: z.number().min(0).max(120).default(10).describe('A fall is raised once frame time has passed it by this much, so falls that links decided late are raised in the order they happened (the alert cool-down then keeps the first, at its own time); the alert comes this much later'),
  fallMergeSeconds: z.number().min(0).max(30).default(2).describe('Falls of one room (or link) closer than this are one fall (several links, or several room seconds, reporting it); the most confident is kept'),
  presenceEvents: z.boolean().default(true).describe('Raise a presence_change event (severity low, no alert) when a room or link goes from empty to occupied or back'),
  presenceMinSeconds: z.number().int().min(1).default(10).describe('A presence change counts once the new state has held this many consecutive seconds (the event keeps the time it began)'),
});

/**
 * `sense.alerts`: sensing frames in; `fall_detection` and `inactivity` events and alerts out, from CSI alone, so
 * the transports (`mqtt.publish`, webhooks, the pose API's alert stream) can carry them like the pose analytics'.
 */
export const senseAlertsNode = defineNode({
  type: 'sense.alerts',
  title: 'Sensing alerts',
  category: 'analytics',
  description: 'Raises fall_detection events for the falls in sensing frames, inactivity events when a present person has not moved for inactivityMinutes, and presence_change events; fall and inactivity alerts after de-duplication and cool-down. Falls are held fallHoldSeconds so that those decided late are raised in the order they happened, at their own time.',
  inputs: { sensing: { type: DataTypes.SensingFrame, required: true, description: 'Per-room (or per-link) sensing frames' } },
  outputs: {
    events: { type: DataTypes.AnalyticsEvent, description: 'fall_detection, inactivity and presence_change events' },
    alerts: { type: DataTypes.Alert, description: 'alerts after de-duplication and cool-down' },
  },
  config: SenseAlertsConfig,
  create(ctx) {
    const gate = new AlertGate({ cooldownSeconds: ctx.config.cooldownSeconds });
    const holdMs = ctx.config.fallHoldSeconds * 1000;
    const order = new FallOrder<{ environmentId: string; where: Record<string, unknown> }>({ holdMs, mergeMs: ctx.config.fallMergeSeconds * 1000 });
    // Per room or link: when the current still stretch began, and whether it already raised its event.
    const still = new Map<string, { since: number; raised: boolean }>();
    // Per room or link: the presence last reported (the first frame's, without an event) and a change waiting to hold.
    const present = new Map<string, { reported: boolean; change: { since: number; seconds: number } | null }>();
    let falls = 0;
    let inactivity = 0;
    let presenceChanges = 0;
    const raiseFalls = async (due: ReturnType<typeof order.release>) => {
      for (const { key, fall, context } of due) {
        falls++;
        const event = createEvent({ type: 'fall_detection', severity: 'high', timestamp: fall.time, environmentId: context.environmentId, confidence: fall.confidence, source: SENSE_FALL_RULE, metadata: context.where });
        await ctx.emit('events', event);
        const alert = alertFromEvent(event, { message: `Possible fall in ${context.environmentId} (CSI, confidence ${fall.confidence.toFixed(2)})`, actionsRequired: ['check on the person'], data: context.where });
        if (gate.admit(alert, key)) await ctx.emit('alerts', alert);
      }
    };
    return {
      async receive(_port, value) {
        const frame = value as SensingFrame;
        if (!frame || typeof frame !== 'object' || typeof frame.time !== 'number' || typeof frame.environmentId !== 'string' || !Array.isArray(frame.falls)) {
          throw new TypeError('sense.alerts received something that is not a SensingFrame');
        }
        const key = frame.link ? `${frame.environmentId}|${frame.link.tx}>${frame.link.rx}` : frame.environmentId;
        const where = { scope: frame.scope, link: frame.link, estimator: frame.estimatorId, config_hash: frame.configHash, provenance: frame.provenance };
        for (const fall of frame.falls) if (fall.confidence >= ctx.config.minFallConfidence) order.add({ key, fall, context: { environmentId: frame.environmentId, where } });
        await raiseFalls(order.release(frame.time));
        if (frame.state === 'still') {
          const stretch = still.get(key) ?? { since: frame.time, raised: false };
          still.set(key, stretch);
          const minutes = (frame.time - stretch.since) / 60_000;
          if (!stretch.raised && minutes >= ctx.config.inactivityMinutes) {
            stretch.raised = true;
            inactivity++;
            const event = createEvent({ type: 'inactivity', severity: 'medium', timestamp: frame.time, environmentId: frame.environmentId, confidence: 1 - frame.motion, source: SENSE_INACTIVITY_RULE, metadata: { ...where, still_minutes: Math.round(minutes * 10) / 10, breathing_bpm: frame.breathingBpm } });
            await ctx.emit('events', event);
            const alert = alertFromEvent(event, { message: `No movement in ${frame.environmentId} for ${Math.round(minutes)} minutes while someone is there (CSI)`, actionsRequired: ['check on the person'], data: { ...where, still_minutes: Math.round(minutes * 10) / 10 } });
            if (gate.admit(alert, key)) await ctx.emit('alerts', alert);
          }
        } else still.delete(key);
        const presence = present.get(key) ?? { reported: frame.presence, change: null };
        present.set(key, presence);
        if (presence.reported === frame.presence) presence.change = null;
        else {
          presence.change ??= { since: frame.time, seconds: 0 };
          presence.change.seconds++;
        }
        if (presence.change && presence.change.seconds >= ctx.config.presenceMinSeconds) {
          const since = presence.change.since;
          presence.reported = frame.presence;
          presence.change = null;
          if (ctx.config.presenceEvents) {
            presenceChanges++;
            // The estimator decides presence without a probability: confidence 1, and the metadata says so.
            const event = createEvent({ type: 'presence_change', severity: 'low', timestamp: since, environmentId: frame.environmentId, confidence: 1, source: SENSE_PRESENCE_RULE, metadata: { ...where, presence: frame.presence, state: frame.state, motion: frame.motion, held_seconds: ctx.config.presenceMinSeconds, confidence_basis: 'estimator decision (no probability)' } });
            await ctx.emit('events', event);
          }
        }
        // Held falls are older than the frame: keep the cool-down of what they may follow.
        gate.prune(frame.time - holdMs);
      },
      async flush() {
        await raiseFalls(order.release(Infinity));
      },
      stats: () => ({ falls, inactivity_events: inactivity, presence_changes: presenceChanges, suppressed_alerts: gate.suppressed, merged_falls: order.merged, held_falls: order.size }),
    };
  },
});
