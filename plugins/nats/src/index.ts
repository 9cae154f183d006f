import { definePlugin } from '@wiflow/core';
import { z } from 'zod';
import { natsPublishNode } from './nodes/publish.js';
import { natsSubscribeNode } from './nodes/subscribe.js';
import { NATS_SERVICE, NatsService, type NatsSettings } from './service.js';

export { encodeValue, decodeValue, valueSet, valuesOf } from './codec.js';
export { Subjects, Streams, fillSubject, fillMessageId, streamFor, token } from './subjects.js';
export { NatsService, NATS_SERVICE, type NatsSettings } from './service.js';
export { natsPublishNode, NatsPublishConfig, PUBLISHER_HEADER } from './nodes/publish.js';
export { natsSubscribeNode, NatsSubscribeConfig } from './nodes/subscribe.js';

/** Config section `nats`. */
export const NatsConfig = z
  .object({
    url: z.string().default(process.env.WIFLOW_NATS_URL ?? 'nats://127.0.0.1:4222').describe('NATS server URL (also WIFLOW_NATS_URL)'),
    duplicateWindowMs: z.number().int().positive().default(120_000).describe('JetStream duplicate window for message ids'),
    ackWaitMs: z.number().int().min(200).default(5_000).describe('Redelivery delay for unacknowledged messages'),
  })
  .default({ url: process.env.WIFLOW_NATS_URL ?? 'nats://127.0.0.1:4222', duplicateWindowMs: 120_000, ackWaitMs: 5_000 });

/** The NATS JetStream transport plugin. */
export default definePlugin({
  name: '@wiflow/plugin-nats',
  setup(ctx) {
    ctx.configSection('nats', NatsConfig);
    let service: NatsService | undefined;
    ctx.registerService(NATS_SERVICE, (runtime) => (service = new NatsService(runtime.config.get<NatsSettings>('nats'), ctx.logger)));
    ctx.registerNode(natsPublishNode);
    ctx.registerNode(natsSubscribeNode);
    ctx.hooks.stop.tapPromise(ctx.name, async () => {
      await service?.close();
    });
  },
});
