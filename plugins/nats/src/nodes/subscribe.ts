import { hostname } from 'node:os';
import { AckPolicy, DeliverPolicy, type JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { defineNode } from '@wiflow/core';
import { z } from 'zod';
import { CLUSTER_SERVICE } from '../cluster/cluster-service.js';
import { RoomShards } from '../cluster/room-shards.js';
import { decodeValue, valuesOf } from '../codec.js';
import { NATS_SERVICE, redactNatsUrl, type NatsService } from '../service.js';
import { streamFor, token } from '../subjects.js';

/** Config of `nats.subscribe`'s room sharding. */
export const RoomShardConfig = z.object({
  rooms: z.array(z.string().min(1)).min(1).describe('The rooms (environment ids) the group serves; `{room}` in the subject is filled with each'),
  group: z.string().regex(/^[A-Za-z0-9_-]+$/).optional().describe('Name of the group of workers that share the rooms (default: the durable name)'),
  heartbeatIntervalMs: z.number().int().min(100).max(600_000).default(2000).describe('How often a worker announces itself to its group'),
  missedBeats: z.number().int().min(2).max(100).default(3).describe("Silent intervals after which a worker is taken for dead and its rooms move"),
});

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
  shard: RoomShardConfig.optional().describe('Shard by room: each room has its own durable consumer (<durable>-<room>) on the subject with {room} filled, and exactly one live worker of the group consumes it, so estimators that keep per-room state (pose.locate) see every packet of a room. Without it, the messages are spread over the workers packet by packet'),
}).refine((c) => !c.shard || c.subject.includes('{room}'), { message: 'with shard, the subject must hold {room} (e.g. csi.{room}.>)', path: ['subject'] });

/** A durable name for one room's consumer (JetStream allows letters, digits, - and _). */
function roomDurable(durable: string, room: string): string {
  return `${durable}-${room.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

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
  async create(ctx) {
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
    /**
     * Consume one durable consumer until `signal` aborts (the pipeline stops, or the room moved
     * to another worker). Messages that arrive after that are handed back (nak: redelivered at
     * once, to the room's next owner) instead of emitted; a room's batch already emitted is
     * acknowledged once the pipeline has finished it.
     */
    const consume = async (durable: string, filter: string, signal: AbortSignal) => {
      const stream = streamFor(filter);
      if (!stream) throw new Error(`subject ${filter} belongs to no wiflow stream (csi.>, pose.>, alerts.>)`);
      const { js, jsm } = await service.get(ctx.config.url);
      try {
        await jsm.consumers.info(stream, durable);
      } catch {
        await jsm.consumers
          .add(stream, {
            durable_name: durable,
            ack_policy: AckPolicy.Explicit,
            deliver_policy: ctx.config.deliver === 'all' ? DeliverPolicy.All : DeliverPolicy.New,
            filter_subject: filter,
            ack_wait: nanos(ctx.config.ackWaitMs ?? service.ackWaitMs),
            max_ack_pending: 20_000,
          })
          .catch((error: Error) => {
            if (!/already in use|exists/i.test(error.message)) throw error;
          });
      }
      if (signal.aborted) return;
      const consumer = await js.consumers.get(stream, durable);
      // consume() keeps up to two batches buffered ahead (fetch() waits a round trip per
      // batch: about 3x slower for window sets of ~140 kB, measured in docs/bench/scaling.md).
      const messages = await consumer.consume({ max_messages: ctx.config.batch * 2 });
      const stop = () => void messages.close().catch(() => undefined);
      signal.addEventListener('abort', stop, { once: true });
      if (signal.aborted) stop();
      let batch: JsMsg[] = [];
      try {
        for await (const m of messages) {
          if (signal.aborted) {
            m.nak();
            continue;
          }
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
          if (batch.length < ctx.config.batch && messages.getPending() > 1 && !signal.aborted) continue;
          await settled();
          if (ctx.signal.aborted) return;
          for (const done of batch) done.ack();
          acked += batch.length;
          batch = [];
        }
      } finally {
        signal.removeEventListener('abort', stop);
      }
      // A room handed over mid-batch: what was emitted is done, acknowledge it.
      if (batch.length > 0 && !ctx.signal.aborted) {
        await settled();
        for (const done of batch) done.ack();
        acked += batch.length;
      }
    };
    let shards: RoomShards | undefined;
    let handovers = 0;
    /** Run one consumer per owned room; stop a room's consumer when the room moves to another worker. */
    const runSharded = async (shard: z.output<typeof RoomShardConfig>) => {
      const { nc } = await service.get(ctx.config.url);
      const instanceId = ctx.services.has(CLUSTER_SERVICE) ? ctx.services.get(CLUSTER_SERVICE).instanceId : `${hostname()}-${process.pid}`;
      shards = new RoomShards(nc, { group: shard.group ?? ctx.config.durable, instanceId, rooms: shard.rooms, heartbeatIntervalMs: shard.heartbeatIntervalMs, missedBeats: shard.missedBeats });
      const running = new Map<string, { controller: AbortController; done: Promise<void> }>();
      let failure: Error | undefined;
      let wake: () => void = () => undefined;
      const apply = (owned: ReadonlySet<string>) => {
        for (const [room, run] of running) {
          if (owned.has(room)) continue;
          run.controller.abort();
          running.delete(room);
          handovers++;
        }
        for (const room of owned) {
          if (running.has(room)) continue;
          const controller = new AbortController();
          const filter = ctx.config.subject.replaceAll('{room}', token(room));
          const done = consume(roomDurable(ctx.config.durable, room), filter, controller.signal).catch((error: Error) => {
            failure = error;
            wake();
          });
          running.set(room, { controller, done });
        }
      };
      shards.onChange(apply);
      await shards.start();
      apply(shards.owned());
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (ctx.signal.aborted) resolve();
        ctx.signal.addEventListener('abort', () => resolve(), { once: true });
      });
      shards.stop();
      for (const run of running.values()) run.controller.abort();
      await Promise.all([...running.values()].map((r) => r.done));
      if (failure && !ctx.signal.aborted) throw failure;
    };
    // Connected when the node is created, so a deploy whose NATS cannot be reached (refused, unknown
    // host, credentials refused) answers failed at once, naming the URL without its credentials. The
    // connection is the runtime's, shared and kept; a later outage is ridden out by reconnecting.
    const url = ctx.config.url ?? service.url;
    await service.get(ctx.config.url).catch((error: Error) => {
      throw new Error(`cannot connect to NATS at ${redactNatsUrl(url)}: ${error.message}`);
    });
    return {
      async run() {
        if (ctx.config.shard) return runSharded(ctx.config.shard);
        return consume(ctx.config.durable, ctx.config.subject, ctx.signal);
      },
      stats: () => ({ received, acked, redelivered, undecodable, ...(ctx.config.shard ? { rooms_owned: shards?.owned().size ?? 0, rooms: [...(shards?.owned() ?? [])].sort().join(','), handovers } : {}) }),
    };
  },
});
