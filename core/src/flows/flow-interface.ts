// A flow's interface: its job inputs (io.input nodes), outputs (io.output nodes), the config
// bindings of its inputs, and their JSON Schemas. The one reading of these rules: the compiler,
// `wiflow run`, the flow service's run API, MCP tools and the studio's run form all use it.
// Framework-free and Node-free (the studio's browser bundle imports it as @wiflow/core/flow-interface).
import type { FlowData, FlowNode } from './flow.js';

/** The node type whose instances are a flow's job inputs. */
export const FLOW_INPUT_NODE = 'io.input';
/** The node type whose instances are a flow's job outputs. */
export const FLOW_OUTPUT_NODE = 'io.output';

/** Value kinds a job input can declare; they become JSON Schema types for forms and MCP tools. */
export const FLOW_VALUE_TYPES = ['text', 'number', 'integer', 'boolean', 'json', 'file'] as const;

/** One value kind of a job input. */
export type FlowValueType = (typeof FLOW_VALUE_TYPES)[number];

/** A config field of another node that receives an input's value before the run (`data.bind` of an io.input node). */
export interface FlowBinding {
  /** The input's name. */
  input: string;
  /** The io.input node that declares the binding. */
  inputNodeId: string;
  /** The node whose config receives the value. */
  node: string;
  /** The config field that receives it. */
  field: string;
}

/** A job input: an io.input node. */
export interface FlowInput {
  nodeId: string;
  name: string;
  /** The node's title, or the name. */
  title: string;
  description: string;
  valueType: FlowValueType;
  /** Declared required (a caller must pass it unless it has a default). */
  required: boolean;
  hasDefault: boolean;
  default?: unknown;
  /** JSON Schema of the value (with description and default). */
  schema: Record<string, unknown>;
  /** Config fields this input's value is written into. */
  bindings: FlowBinding[];
}

/** A job output: an io.output node. */
export interface FlowOutput {
  nodeId: string;
  name: string;
  /** The node's title, or the name. */
  title: string;
  description: string;
  /** 'last' keeps the latest value, 'all' a list of every value. */
  collect: 'last' | 'all';
  /** JSON Schema of the output field (a list for 'all'). */
  schema: Record<string, unknown>;
}

/** Everything a caller needs to run a flow as a job and read its result. */
export interface FlowInterface {
  inputs: FlowInput[];
  outputs: FlowOutput[];
  bindings: FlowBinding[];
  /** JSON Schemas of the whole input object (the MCP tool's arguments) and output object (its result). */
  schemas: { input: Record<string, unknown>; output: Record<string, unknown> };
}

const VALUE_SCHEMAS: Record<FlowValueType, Record<string, unknown>> = {
  text: { type: 'string' },
  number: { type: 'number' },
  integer: { type: 'integer' },
  boolean: { type: 'boolean' },
  json: {},
  file: { type: 'string', description: 'An uploaded file: its id or path as returned by the files API' },
};

function configOf(node: FlowNode): Record<string, unknown> {
  const config = node.data?.config;
  return config && typeof config === 'object' ? (config as Record<string, unknown>) : {};
}

function valueTypeOf(value: unknown): FlowValueType {
  return (FLOW_VALUE_TYPES as readonly unknown[]).includes(value) ? (value as FlowValueType) : 'text';
}

function bindingsOf(node: FlowNode, input: string): FlowBinding[] {
  const bind = node.data?.bind;
  if (!Array.isArray(bind)) return [];
  return (bind as { node?: unknown; field?: unknown }[])
    .filter((b) => b && typeof b.node === 'string' && typeof b.field === 'string')
    .map((b) => ({ input, inputNodeId: node.id, node: b.node as string, field: b.field as string }));
}

/**
 * Whether a flow is a job: it has an `io.input` or `io.output` node, so it takes inputs or gives
 * outputs per run. Such a flow runs as a job only: deployed as a stream pipeline its inputs would
 * never arrive and its outputs would go nowhere. The one rule of the studio and the deploy API.
 */
export function isJobFlow(data: { readonly nodes?: unknown } | null | undefined): boolean {
  const nodes = Array.isArray(data?.nodes) ? (data.nodes as (FlowNode | null)[]) : [];
  return nodes.some((node) => {
    const type = node && typeof node === 'object' && node.data && typeof node.data === 'object' ? node.data.nodeType : undefined;
    return type === FLOW_INPUT_NODE || type === FLOW_OUTPUT_NODE;
  });
}

/**
 * Read a flow's interface from its data: any value (stored data may be malformed; what is not
 * an io node with a string `name` is not part of the interface).
 */
export function flowInterface(data: { readonly nodes?: unknown } | null | undefined): FlowInterface {
  const inputs: FlowInput[] = [];
  const outputs: FlowOutput[] = [];
  const nodes = Array.isArray(data?.nodes) ? (data.nodes as (FlowNode | null)[]) : [];
  for (const node of nodes) {
    if (!node || typeof node !== 'object' || !node.data || typeof node.data !== 'object') continue;
    const type = node.data.nodeType;
    if (type !== FLOW_INPUT_NODE && type !== FLOW_OUTPUT_NODE) continue;
    const config = configOf(node);
    if (typeof config.name !== 'string') continue;
    const name = config.name;
    const description = typeof config.description === 'string' ? config.description : '';
    const title = typeof node.data.title === 'string' ? node.data.title : name;
    const described = description ? { description } : {};
    if (type === FLOW_INPUT_NODE) {
      const valueType = valueTypeOf(config.valueType);
      const base = valueType === 'json' && config.schema && typeof config.schema === 'object' ? (config.schema as Record<string, unknown>) : VALUE_SCHEMAS[valueType];
      const hasDefault = config.default !== undefined;
      inputs.push({
        nodeId: node.id,
        name,
        title,
        description,
        valueType,
        required: config.required !== false,
        hasDefault,
        ...(hasDefault ? { default: config.default } : {}),
        schema: { ...base, ...described, ...(hasDefault ? { default: config.default } : {}) },
        bindings: bindingsOf(node, name),
      });
    } else {
      const one = config.schema && typeof config.schema === 'object' ? (config.schema as Record<string, unknown>) : {};
      const collect = config.collect === 'last' ? 'last' : 'all';
      outputs.push({ nodeId: node.id, name, title, description, collect, schema: collect === 'last' ? { ...one, ...described } : { type: 'array', items: one, ...described } });
    }
  }
  return {
    inputs,
    outputs,
    bindings: inputs.flatMap((i) => i.bindings),
    schemas: {
      input: {
        type: 'object',
        properties: Object.fromEntries(inputs.map((i) => [i.name, i.schema])),
        required: inputs.filter((i) => i.required && !i.hasDefault).map((i) => i.name),
        additionalProperties: false,
      },
      output: { type: 'object', properties: Object.fromEntries(outputs.map((o) => [o.name, o.schema])) },
    },
  };
}

/** JSON Schemas of a flow's job inputs and outputs (`flowInterface(data).schemas`). */
export function flowIoSchemas(data: { readonly nodes?: unknown } | null | undefined): FlowInterface['schemas'] {
  return flowInterface(data).schemas;
}

/** Write bound input values into their target nodes' config (a copy; inputs not given leave their targets as they are). */
export function applyBindings<D extends FlowData>(data: D, inputs: Readonly<Record<string, unknown>>): D {
  const bindings = flowInterface(data).bindings.filter((b) => inputs[b.input] !== undefined);
  if (!bindings.length) return data;
  return {
    ...data,
    nodes: data.nodes.map((node) => {
      const mine = bindings.filter((b) => b.node === node.id);
      if (!mine.length) return node;
      const config = { ...(node.data.config ?? {}) };
      for (const b of mine) config[b.field] = inputs[b.input];
      return { ...node, data: { ...node.data, config } };
    }),
  };
}

/**
 * A value given as text (a CLI `--input`, a form field, Langflow's `input_value`) read as its
 * input's kind: text and file stay text, numbers and booleans must parse, JSON is parsed when
 * it parses. Returns `{ error }` with a message naming the input when it does not.
 */
export function parseInputText(input: Pick<FlowInput, 'name' | 'valueType'>, text: string): { value: unknown } | { error: string } {
  switch (input.valueType) {
    case 'number':
    case 'integer': {
      const n = Number(text);
      if (text.trim() === '' || !Number.isFinite(n) || (input.valueType === 'integer' && !Number.isInteger(n))) {
        return { error: `"${text}" is not ${input.valueType === 'integer' ? 'an integer' : 'a number'}` };
      }
      return { value: n };
    }
    case 'boolean':
      if (text === 'true' || text === 'false') return { value: text === 'true' };
      return { error: `"${text}" is not true or false` };
    case 'json':
      try {
        return { value: JSON.parse(text) };
      } catch {
        return { value: text };
      }
    default:
      return { value: text };
  }
}

/** The message for a value given for an input the flow does not declare, or null when it declares it. */
export function undeclaredInputProblem(iface: FlowInterface, name: string): string | null {
  if (iface.inputs.some((i) => i.name === name)) return null;
  return `this flow has no input named ${name} (inputs: ${iface.inputs.map((i) => i.name).join(', ') || 'none'})`;
}
