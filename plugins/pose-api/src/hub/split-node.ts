import { z } from 'zod';
import { defineNode } from '@wiflow/core';

/** `pose-api.split`: emits each element of a list (POST /pose/process feeds CSI frames one by one). */
export const splitNode = defineNode({
  type: 'pose-api.split',
  title: 'Split list',
  category: 'io',
  description: 'Emits each element of an incoming list as its own message, in order.',
  inputs: { list: { type: 'any', required: true } },
  outputs: { item: { type: 'CsiFrame' } },
  config: z.object({}),
  create(ctx) {
    return {
      async receive(_port, value) {
        const list = Array.isArray(value) ? value : [value];
        for (const item of list) await ctx.emit('item', item);
      },
    };
  },
});
