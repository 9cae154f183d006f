import { z } from 'zod';
import { defineNode } from '../nodes/define-node.js';
import { definePlugin } from '../plugins/define-plugin.js';
import { CoreErrors } from '../errors.js';
import { FLOW_INPUT_NODE, FLOW_OUTPUT_NODE, FLOW_VALUE_TYPES } from '../flows/flow-interface.js';

/** Value kinds a job input can declare (the flow interface's FLOW_VALUE_TYPES). */
export const IoValueTypes = FLOW_VALUE_TYPES;

/** Config of an `io.input` node. */
export const IoInputConfig = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier').describe('Input name (the job field and MCP tool argument)'),
  description: z.string().default('').describe('What the caller should pass'),
  valueType: z.enum(IoValueTypes).default('text').describe('Kind of value'),
  required: z.boolean().default(true),
  default: z.unknown().optional().describe('Value used when the caller passes none'),
  schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema for json inputs'),
});

/** Config of an `io.output` node. */
export const IoOutputConfig = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an identifier').describe('Output name (a field of the job result)'),
  description: z.string().default(''),
  collect: z.enum(['last', 'all']).default('all').describe('Keep the last value or collect every value into a list'),
  schema: z.record(z.string(), z.unknown()).optional().describe('JSON Schema of one value'),
});

/** The job's entry point: emits the caller's value for `name` once. */
export const ioInputNode = defineNode({
  type: FLOW_INPUT_NODE,
  title: 'Job input',
  category: 'io',
  description: 'A value passed in when the flow runs as a job (a form field in the studio, an argument of the MCP tool).',
  inputs: {},
  outputs: { value: { type: 'any', description: 'The value the caller passed' } },
  config: IoInputConfig,
  source: true,
  create(ctx) {
    return {
      async run() {
        if (ctx.mode !== 'job') return;
        const given = ctx.jobInputs[ctx.config.name];
        const value = given === undefined ? ctx.config.default : given;
        if (value === undefined) {
          if (ctx.config.required) throw CoreErrors.jobInputMissing(ctx.config.name);
          return;
        }
        await ctx.emit('value', value);
      },
    };
  },
});

/** The job's exit: every value arriving becomes (part of) the job output `name`. */
export const ioOutputNode = defineNode({
  type: FLOW_OUTPUT_NODE,
  title: 'Job output',
  category: 'io',
  description: 'Collects values into the job result under a name (the MCP tool result field).',
  inputs: { value: { type: 'any', required: true } },
  outputs: {},
  config: IoOutputConfig,
  create(ctx) {
    return {
      receive(_port, value) {
        ctx.setOutput(ctx.config.name, value, ctx.config.collect);
      },
    };
  },
});

/** Core's built-in plugin: job inputs and outputs. */
export const ioPlugin = definePlugin({
  name: 'wiflow:io',
  setup(ctx) {
    ctx.registerNode(ioInputNode);
    ctx.registerNode(ioOutputNode);
  },
});
