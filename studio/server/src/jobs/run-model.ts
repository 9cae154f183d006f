import { z } from 'zod';

/** InputValueRequest: no extra properties allowed. */
export const InputValueRequestSchema = z
  .object({
    input_value: z.string().nullable().optional(),
    components: z.array(z.string()).nullable().default([]),
    session: z.string().nullable().optional(),
    type: z.enum(['chat', 'text', 'any']).nullable().default('any'),
    client_request_time: z.number().int().nullable().optional(),
  })
  .strict();
/** A parsed InputValueRequest. */
export type InputValueRequest = z.output<typeof InputValueRequestSchema>;

const Tweaks = z.record(z.string(), z.unknown());

/** FlowDataRequest: nodes and edges required. */
export const FlowDataRequestSchema = z.object({
  nodes: z.array(z.record(z.string(), z.unknown())),
  edges: z.array(z.record(z.string(), z.unknown())),
  viewport: z.record(z.string(), z.unknown()).nullable().optional(),
});

/** Body of build flow. */
export const BuildFlowBodySchema = z.object({
  data: FlowDataRequestSchema.nullable().optional(),
  files: z.array(z.string()).nullable().optional(),
  inputs: InputValueRequestSchema.nullable().optional(),
});

/** Body of build public tmp. */
export const BuildPublicBodySchema = z.object({
  files: z.array(z.string()).nullable().optional(),
  inputs: InputValueRequestSchema.nullable().optional(),
});

/**
 * SimplifiedAPIRequest (Langflow's fields) plus wiflow's `inputs` (values by io.input name)
 * and `timeout_ms`.
 */
export const SimplifiedAPIRequestSchema = z.object({
  input_value: z.string().nullable().optional(),
  input_type: z.enum(['chat', 'text', 'any']).nullable().default('chat'),
  output_type: z.enum(['chat', 'text', 'any', 'debug']).nullable().default('chat'),
  output_component: z.string().nullable().default(''),
  tweaks: Tweaks.nullable().optional(),
  session_id: z.string().nullable().optional(),
  inputs: z.record(z.string(), z.unknown()).nullable().optional(),
  timeout_ms: z.number().int().positive().nullable().optional(),
});

/** Body of experimental (advanced) run. */
export const ExperimentalRunBodySchema = z.object({
  inputs: z.array(InputValueRequestSchema).nullable().optional(),
  outputs: z.array(z.string()).nullable().optional(),
  session_id: z.string().nullable().optional(),
  stream: z.boolean().default(false),
  tweaks: Tweaks.nullable().optional(),
});
