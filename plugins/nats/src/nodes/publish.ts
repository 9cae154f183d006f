import { hostname } from 'node:os';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { defineNode } from '@wiflow/core';
import { z } from 'zod';
import { encodeValue, valueSet } from '../codec.js';
import { NATS_SERVICE, type NatsService } from '../service.js';
import { fillMessageId, fillSubject, streamFor } from '../subjects.js';

/** Config of `nats.publish`. */
export const NatsPublishConfig = z.object({
  subject: z.string().min(1).default('pose.{environment}').describe('Subject template: {environment}, {link}, or any {field.path} of the value'),
  messageId: z
    .string()
    .default('{environment}.{timestamp}')
    .describe('Message id template; JetStream drops a second publish of the same id within its duplicate window. Empty: no de-duplication'),
  gather: z
    .object({
      key: z.string().min(1).default('{environment}').describe('values with the same key (template) form a set'),
      size: z.number().int().min(2).max(64).describe('values per set, one per distinct {link} (e.g. the links of a room)'),
      toleranceMs: z.number().min(0).default(100).describe("values whose `time` fields differ by more than this belong to different instants (pose.estimate's syncToleranceMs)"),
    })
    .optional()
    .describe('Publish sets instead of single values: one message per `size` values of one key, each of a different link. For pose.estimate, which needs the windows of every link of a room at one instant on one worker'),
  url: z.string().optional().describe('NATS URL (default: config nats.url)'),
});

/** Which runtime published a message (NATS header), for tracing work across workers. */
export const PUBLISHER_HEADER = 'Wiflow-Publisher';

/** Publishes every value (or set of values) to a JetStream subject and waits for the server's acknowledgement. */
export const natsPublishNode = defineNode({
  type: 'nats.publish',
  title: 'NATS publish',
  category: 'transports',
  description: 'Hands values to other runtimes over a NATS JetStream subject (persisted, de-duplicated by message id).',
  inputs: { in: { type: 'any', required: true } },
  outputs: {},
  config: NatsPublishConfig,
  capabilities: ['net.connect'],
  create(ctx) {
    const service = ctx.services.get(NATS_SERVICE);
    const publisher = `${hostname()}:${process.pid}`;
    const pending = new Map<string, Map<string, unknown>>();
    /** Earliest and latest `time` of each pending set. */
    const setTimes = new Map<string, [number, number]>();
    let published = 0;
    let duplicates = 0;
    let incompleteSets = 0;
    const publish = async (value: unknown, message: unknown) => {
      const subject = fillSubject(ctx.config.subject, value);
      if (!streamFor(subject)) throw new Error(`subject ${subject} belongs to no wiflow stream (csi.>, pose.>, alerts.>)`);
      const { js } = await service.get(ctx.config.url);
      const headers = natsHeaders();
      headers.set(PUBLISHER_HEADER, publisher);
      const msgID = ctx.config.messageId ? `${subject}:${fillMessageId(ctx.config.messageId, value)}` : undefined;
      const ack = await js.publish(subject, encodeValue(message), { headers, ...(msgID ? { msgID } : {}) });
      if (ack.duplicate) duplicates++;
      else published++;
    };
    return {
      async receive(_port, value) {
        const gather = ctx.config.gather;
        if (!gather) return publish(value, value);
        const key = fillSubject(gather.key, value);
        const link = fillSubject('{link}', value);
        const time = Number((value as { time?: unknown }).time);
        let set = pending.get(key);
        const span = setTimes.get(key);
        if (set && span && (set.has(link) || !(Math.max(span[1], time) - Math.min(span[0], time) <= gather.toleranceMs))) {
          // A link repeats, or a value of a later instant arrives, before the set is complete:
          // a partner link's value never came (or came too late). The set could not be used
          // downstream (pose.estimate would drop its windows as stale), so it is not sent.
          incompleteSets++;
          set = undefined;
        }
        if (!set) setTimes.set(key, [time, time]);
        else setTimes.set(key, [Math.min(span![0], time), Math.max(span![1], time)]);
        if (!set) pending.set(key, (set = new Map()));
        set.set(link, value);
        if (set.size < gather.size) return;
        pending.delete(key);
        const members = [...set.values()];
        await publish(members[0], valueSet(members));
      },
      stats: () => ({ published, duplicates_dropped: duplicates, incomplete_sets_dropped: incompleteSets }),
    };
  },
});
