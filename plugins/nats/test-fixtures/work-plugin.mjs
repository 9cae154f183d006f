// A plugin loaded with `wiflow --plugin` in the cluster test: a node that does measurable
// work per message (and stamps which process did it), and a recorder writing JSON lines.
import { appendFileSync } from 'node:fs';
import { defineNode, definePlugin } from '@wiflow/core';
import { z } from 'zod';

const work = defineNode({
  type: 'clustertest.work',
  title: 'Work',
  category: 'testing',
  description: 'Busy-waits `ms` per message, then emits the value stamped with this process id.',
  inputs: { in: { type: 'any' } },
  outputs: { out: { type: 'any' } },
  config: z.object({ ms: z.number().default(5) }),
  create(ctx) {
    return {
      async receive(_port, value) {
        await new Promise((r) => setTimeout(r, ctx.config.ms));
        ctx.emit('out', { ...value, processedBy: process.pid });
      },
    };
  },
});

const record = defineNode({
  type: 'clustertest.record',
  title: 'Record',
  category: 'testing',
  description: 'Appends every value to a JSON-lines file.',
  inputs: { in: { type: 'any' } },
  outputs: {},
  config: z.object({ file: z.string() }),
  create(ctx) {
    // Typed arrays must arrive as typed arrays: record their constructor name.
    return { receive: (_p, value) => appendFileSync(ctx.config.file, JSON.stringify({ ...value, payloadType: value.payload?.constructor?.name }) + '\n') };
  },
});

export default definePlugin({ name: 'cluster-test', setup: (ctx) => [work, record].forEach((n) => ctx.registerNode(n)) });
