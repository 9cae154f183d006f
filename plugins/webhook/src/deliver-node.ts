import { z } from 'zod';
import { DataTypes, defineNode, Tokens, type Alert, type AnalyticsEvent } from '@wiflow/core';
import { WebhookSection } from './config.js';
import { WebhookTokens, type WebhookDispatcher } from './dispatcher.js';
import { WebhookErrors } from './errors.js';
import { alertData, alertProblem, eventData, eventProblem } from './payload.js';

/** Config of the `webhook.deliver` node. */
export const WebhookDeliverConfig = z.object({
  webhookIds: z.array(z.string().min(1)).max(100).default([]).describe('Deliver only to these registrations (empty: every registration whose event types match)'),
});

/**
 * `webhook.deliver`: a sink that hands analytics events (`event.<type>`) and alerts
 * (`alert.<alert_type>`) to the WebhookDispatcher, which signs, rate-limits, retries and
 * logs the deliveries to every matching registration.
 */
export const webhookDeliverNode = defineNode({
  type: 'webhook.deliver',
  title: 'Webhook deliver',
  category: 'transports',
  description: 'Delivers events and alerts to the registered webhooks (signed, retried, rate-limited per endpoint, logged).',
  inputs: {
    events: { type: DataTypes.AnalyticsEvent },
    alerts: { type: DataTypes.Alert },
  },
  outputs: {},
  config: WebhookDeliverConfig,
  capabilities: ['net.connect'],
  create(ctx) {
    const dispatcher = ctx.services.get(WebhookTokens.Dispatcher);
    const config = ctx.services.get(Tokens.Config);
    const only = ctx.config.webhookIds.length > 0 ? ctx.config.webhookIds : undefined;
    const counts = { events: 0, alerts: 0, deliveries: 0, unmatched: 0, skippedDisabled: 0 };

    const dispatch = async (type: string, environmentId: string, data: Record<string, unknown>) => {
      if (!config.read(WebhookSection).enabled) {
        counts.skippedDisabled++;
        return;
      }
      const ids = await dispatcher.dispatch(type, environmentId, data, { only });
      counts.deliveries += ids.length;
      if (ids.length === 0) counts.unmatched++;
    };

    return {
      async receive(port, value) {
        if (port === 'events') {
          const problem = eventProblem(value);
          if (problem) throw WebhookErrors.invalidInput(port, problem);
          const event = value as AnalyticsEvent;
          counts.events++;
          await dispatch(`event.${event.type}`, event.environmentId, eventData(event));
        } else if (port === 'alerts') {
          const problem = alertProblem(value);
          if (problem) throw WebhookErrors.invalidInput(port, problem);
          const alert = value as Alert;
          counts.alerts++;
          await dispatch(`alert.${alert.alertType}`, alert.environmentId, alertData(alert));
        }
      },
      stats() {
        return { events: counts.events, alerts: counts.alerts, deliveries_queued: counts.deliveries, unmatched: counts.unmatched, skipped_disabled: counts.skippedDisabled };
      },
    };
  },
});
