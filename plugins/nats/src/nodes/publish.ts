import { defineNode } from '@wiflow/core';
import { z } from 'zod';
import { encodeValue } from '../codec.js';
import { NATS_SERVICE, type NatsService } from '../service.js';
import { fillSubject, streamFor } from '../subjects.js';

/** Config of `nats.publish`. */
export const NatsPublishConfig = z.object({
  subject: z.string().min(1).default('pose.{environment}').describe('Subject template: {environment}, {link}, or any {field.path} of the value'),
  messageId: z
    .string()
    .default('{environment}.{timestamp}')
    .describe('Message id template; JetStream drops a second publish of the same id within its duplicate window. Empty: no de-duplication'),
  url: z.string().optional().describe('NATS URL (default: config nats.url)'),
});

/** Publishes every value to a JetStream subject and waits for the server's acknowledgement. */
export const natsPublishNode = defineNode({
  type: 'nats.publish',
  title: 'NATS publish',
  category: 'transports',
  description: 'Hands values to other runtimes over a NATS JetStream subject (persisted, de-duplicated by message id).',
  inputs: { in: { type: 'any', required: true } },
  outputs: {},
  config: NatsPublishConfig,
  create(ctx) {
    const service = ctx.resolve<NatsService>(NATS_SERVICE);
    let published = 0;
    let duplicates = 0;
    return {
      async receive(_port, value) {
        const subject = fillSubject(ctx.config.subject, value);
        if (!streamFor(subject)) throw new Error(`subject ${subject} belongs to no wiflow stream (csi.>, pose.>, alerts.>)`);
        const { js } = await service.get(ctx.config.url);
        const msgID = ctx.config.messageId ? `${subject}:${fillSubject(ctx.config.messageId, value)}` : undefined;
        const ack = await js.publish(subject, encodeValue(value), msgID ? { msgID } : undefined);
        if (ack.duplicate) duplicates++;
        else published++;
      },
      stats: () => ({ published, duplicates_dropped: duplicates }),
    };
  },
});
