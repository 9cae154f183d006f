import { AckPolicy, DeliverPolicy, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { defineNode } from '@wiflow/core';
import { z } from 'zod';
import { decodeValue, valuesOf } from '../codec.js';
import { NATS_SERVICE, type NatsService } from '../service.js';
import { streamFor } from '../subjects.js';

/** Config of `nats.subscribe`. */
export const NatsSubscribeConfig = z.object({
  subject: z.string().min(1).default('csi.>').describe('Subject filter, e.g. csi.> or pose.home'),
  durable: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('wiflow-workers')
    .describe('Durable consumer name: runtimes using the same name share the messages (a queue group) and resume where it stopped'),
  batch: z.number().int().min(1).max(1024).default(64).describe('Messages fetched, processed and acknowledged together'),
  deliver: z.enum(['all', 'new']).default('all').describe('Where a new durable consumer starts'),
  ackWaitMs: z.number().int().min(200).optional().describe('Redeliver a message not acknowledged within this time (default: config nats.ackWaitMs)'),
  url: z.string().optional().describe('NATS URL (default: config nats.url)'),
});

/**
 * Consumes a JetStream subject through a durable pull consumer. Delivery is at least once:
 * a batch is acknowledged only after the whole pipeline has finished with it
 * (`ctx.idle()`), so a worker killed mid-batch loses nothing — its messages are redelivered
 * to another worker after ackWaitMs, and `nats.publish` message ids drop the duplicate results.
 */
export const natsSubscribeNode = defineNode({
  type: 'nats.subscribe',
  title: 'NATS subscribe',
  category: 'sources',
  description: 'Receives values other runtimes published on a NATS JetStream subject; several runtimes with one durable name share the load.',
  inputs: {},
  outputs: { out: { type: 'any' } },
  config: NatsSubscribeConfig,
  capabilities: ['net.connect'],
  source: true,
  create(ctx) {
    const service = ctx.services.get(NATS_SERVICE);
    let received = 0;
    let acked = 0;
    let redelivered = 0;
    let undecodable = 0;
    /**
     * Wait until the pipeline has finished the batch. A node may defer work to the next
     * macrotask (pose.estimate batches windows of one tick with setImmediate): the pipeline is
     * briefly idle before that work emits, so idleness must hold across a few macrotask turns.
     */
    const settled = async () => {
      for (let turn = 0; turn < 3; turn++) {
        await ctx.idle();
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      await ctx.idle();
    };
    return {
      async run() {
        const stream = streamFor(ctx.config.subject);
        if (!stream) throw new Error(`subject ${ctx.config.subject} belongs to no wiflow stream (csi.>, pose.>, alerts.>)`);
        const { js, jsm } = await service.get(ctx.config.url);
        try {
          await jsm.consumers.info(stream, ctx.config.durable);
        } catch {
          await jsm.consumers
            .add(stream, {
              durable_name: ctx.config.durable,
              ack_policy: AckPolicy.Explicit,
              deliver_policy: ctx.config.deliver === 'all' ? DeliverPolicy.All : DeliverPolicy.New,
              filter_subject: ctx.config.subject,
              ack_wait: nanos(ctx.config.ackWaitMs ?? service.ackWaitMs),
              max_ack_pending: 20_000,
            })
            .catch((error: Error) => {
              if (!/already in use|exists/i.test(error.message)) throw error;
            });
        }
        const consumer = await js.consumers.get(stream, ctx.config.durable);
        // consume() keeps up to two batches buffered ahead (fetch() waits a round trip per
        // batch: about 3x slower for window sets of ~140 kB, measured in docs/bench/scaling.md).
        const messages = await consumer.consume({ max_messages: ctx.config.batch * 2 });
        const stop = () => void messages.close().catch(() => undefined);
        ctx.signal.addEventListener('abort', stop, { once: true });
        let batch: JsMsg[] = [];
        try {
          for await (const m of messages) {
            received++;
            if (m.redelivered) redelivered++;
            let value: unknown;
            try {
              value = decodeValue(m.data);
            } catch {
              undecodable++;
              m.term();
              continue;
            }
            batch.push(m);
            // A set (see nats.publish `gather`) is emitted member by member, back to back.
            for (const member of valuesOf(value)) await ctx.emit('out', member);
            // Acknowledge when the batch is full or nothing more is buffered (low rates).
            if (batch.length < ctx.config.batch && messages.getPending() > 1) continue;
            await settled();
            if (ctx.signal.aborted) return;
            for (const done of batch) done.ack();
            acked += batch.length;
            batch = [];
          }
        } finally {
          ctx.signal.removeEventListener('abort', stop);
        }
      },
      stats: () => ({ received, acked, redelivered, undecodable }),
    };
  },
});
