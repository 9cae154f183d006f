import { DataTypes, defineNode, type NodeContext, type NodeDefinition } from '@wiflow/core';
import type { z } from 'zod';
import { analyzerNode, type FrameAnalyzer } from './frame-clock.js';

/** What a domain analytics node says of itself; the ports and the instance are the same for every domain. */
export interface AnalyzerNodeSpec<S extends z.ZodType<{ report_interval_seconds: number }>> {
  /** Unique type id, e.g. 'retail.analytics'. */
  type: string;
  title: string;
  description: string;
  /** What each output carries in this domain. */
  outputs: { events: string; alerts: string; metrics: string };
  /** Config schema; its `report_interval_seconds` paces the metrics record. */
  config: S;
  /** The domain analyzer of one run. */
  analyzer(ctx: NodeContext<z.output<S>>): FrameAnalyzer;
}

/**
 * A domain analytics node (retail, security...): tracked pose frames in; events, alerts and
 * the domain's metrics record out, driven by {@link analyzerNode}.
 */
export function defineAnalyzerNode<S extends z.ZodType<{ report_interval_seconds: number }>>(spec: AnalyzerNodeSpec<S>): NodeDefinition<S> {
  return defineNode({
    type: spec.type,
    title: spec.title,
    category: 'analytics',
    description: spec.description,
    inputs: { poses: { type: DataTypes.PoseFrame, required: true, description: 'tracked pose frames' } },
    outputs: {
      events: { type: DataTypes.AnalyticsEvent, description: spec.outputs.events },
      alerts: { type: DataTypes.Alert, description: spec.outputs.alerts },
      metrics: { type: DataTypes.Json, description: spec.outputs.metrics },
    },
    config: spec.config,
    create: (ctx) => analyzerNode(ctx, spec.analyzer(ctx), ctx.config.report_interval_seconds),
  });
}
