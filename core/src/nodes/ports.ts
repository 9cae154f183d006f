import type { DataTypeId } from '../types/data-types.js';

/** A named, typed port of a node. */
export interface PortSpec {
  /** Data type id, or several accepted types (inputs only). */
  type: DataTypeId | readonly DataTypeId[];
  description?: string;
  /** An input that must be connected for the flow to compile. */
  required?: boolean;
}

/** The types a port carries or accepts, as a list. */
export function portTypes(port: PortSpec): readonly DataTypeId[] {
  return typeof port.type === 'string' ? [port.type] : port.type;
}

/**
 * Whether an output port may connect to an input port. The one rule the server's flow
 * compiler and the studio's `isValidConnection` both call: types match, or either side is `any`.
 */
export function arePortsCompatible(output: PortSpec, input: PortSpec): boolean {
  const produced = portTypes(output);
  const accepted = portTypes(input);
  if (produced.includes('any') || accepted.includes('any')) return true;
  return produced.some((t) => accepted.includes(t));
}
