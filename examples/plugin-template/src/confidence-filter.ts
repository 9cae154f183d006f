import { defineNode, type PoseFrame } from '@wiflow/core';
import { z } from 'zod';
import { FilterStatsToken } from './filter-stats.js';

/** Config of `template.confidence-filter`. */
export const ConfidenceFilterConfig = z.object({
  minConfidence: z.number().min(0).max(1).default(0.5).describe('People below this confidence are removed'),
  dropEmpty: z.boolean().default(false).describe('Drop frames left with no person'),
});

/** Removes people below a confidence threshold from pose frames; counts what it removed. */
export const confidenceFilterNode = defineNode({
  type: 'template.confidence-filter',
  title: 'Confidence filter',
  category: 'analytics',
  description: 'Keeps only the people a model is confident about.',
  inputs: { poses: { type: 'PoseFrame', required: true } },
  outputs: { poses: { type: 'PoseFrame' } },
  config: ConfidenceFilterConfig,
  create(ctx) {
    const totals = ctx.services.get(FilterStatsToken);
    let removed = 0;
    return {
      receive(_port, value) {
        const frame = value as PoseFrame;
        const persons = frame.persons.filter((p) => p.confidence >= ctx.config.minConfidence);
        removed += frame.persons.length - persons.length;
        totals.add(frame.persons.length - persons.length);
        if (persons.length === 0 && ctx.config.dropEmpty) return;
        ctx.emit('poses', { ...frame, persons });
      },
      stats: () => ({ removed_persons: removed }),
    };
  },
});
