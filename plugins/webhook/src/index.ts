// Public entry of @wiflow/plugin-webhook: each export named on purpose.
import { definePlugin, Tokens } from '@wiflow/core';
import { createWebhookRouter, WEBHOOK_API_PATH } from './api.js';
import { WebhookSection, type WebhookConfig } from './config.js';
import { webhookDeliverNode } from './deliver-node.js';
import { WebhookDispatcher, WebhookTokens } from './dispatcher.js';
import { MemorySettingRepository, WebhookStore } from './store.js';

const PLUGIN_NAME = '@wiflow/plugin-webhook';

/**
 * plugin-webhook: the `webhook.deliver` node, the WebhookDispatcher service, the
 * registration API under /api/v1/webhooks and the `webhooks` config section.
 */
const webhookPlugin = definePlugin({
  name: PLUGIN_NAME,
  config: { webhooks: WebhookSection.schema },
  setup(ctx) {
    const config = (): WebhookConfig => ctx.config.webhooks;
    const secretBox = () => ctx.services.get(Tokens.SecretBox);
    // Registrations live in the storage's settings documents; without storage (persistence
    // off for the whole runtime) they are kept in memory and a warning says so.
    let store: WebhookStore | undefined;
    const getStore = (): WebhookStore => {
      if (store) return store;
      if (ctx.hasStorage) return (store = new WebhookStore(ctx.storage.settings));
      ctx.logger.warn('no storage: webhook registrations and delivery logs are kept in memory only');
      return (store = new WebhookStore(new MemorySettingRepository()));
    };
    let dispatcher: WebhookDispatcher | undefined;
    ctx.services.provide(WebhookTokens.Dispatcher, () => (dispatcher = new WebhookDispatcher({ store: getStore, secretBox, config, logger: ctx.logger })));
    ctx.registerNode(webhookDeliverNode);
    ctx.registerRoutes((http) => {
      http.app.use(WEBHOOK_API_PATH, createWebhookRouter({ hooks: ctx.hooks, logger: ctx.logger, configStore: ctx.services.get(Tokens.Config), store: getStore, dispatcher: () => ctx.services.get(WebhookTokens.Dispatcher), secretBox, config }));
    });
    ctx.hooks.stop.tapPromise(PLUGIN_NAME, async () => {
      await dispatcher?.close(5000);
    });
  },
});

export default webhookPlugin;
export { webhookPlugin };
export { webhookDeliverNode, WebhookDeliverConfig } from './deliver-node.js';
export { WebhookDispatcher, WebhookTokens, backoffDelay, type EndpointStats } from './dispatcher.js';
export { createWebhookRouter, WEBHOOK_API_PATH, WEBHOOK_ROLES, WebhookCreateSchema, WebhookPatchSchema, DeliveryQuerySchema, webhookToWire, deliveryToWire, type WebhookApiOptions } from './api.js';
export { WebhookStore, MemorySettingRepository, WEBHOOK_NAMESPACE, deliveryNamespace, deliveryKey, type WebhookRecord, type DeliveryRecord, type DeliveryStatus } from './store.js';
export { signPayload, verifyWebhookSignature, WebhookHeaders } from './signature.js';
export { matchesEventType, EVENT_TYPE_PATTERN, eventData, alertData, type WebhookPayload } from './payload.js';
export { SlidingWindowLimiter } from './rate-limiter.js';
export { WebhookConfigSchema, type WebhookConfig } from './config.js';
export { WebhookErrors, webhookErrorCatalogue } from './errors.js';
