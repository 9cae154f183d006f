// Shapes the studio reads from the server (node registry, flows, jobs, counters). Core's types
// come from @wiflow/core as type-only imports (erased from the bundle), never copied.
import type { Edge, Node } from '@xyflow/react';
import type { FlowProblem, NodeCounters, NodeTypeDescription, PortSpec } from '@wiflow/core';

export type { FlowProblem, NodeCounters, PortSpec };

/** A node type from GET /api/v1/studio/node-types: core's NodeTypeDescription, its config schema read as JSON Schema. */
export type NodeTypeInfo = Omit<NodeTypeDescription, 'configSchema'> & { configSchema: JsonSchema };

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  items?: JsonSchema;
  writeOnly?: boolean;
  format?: string;
  anyOf?: JsonSchema[];
  [key: string]: unknown;
}

/** Data carried by a canvas node. */
export interface WiflowNodeData extends Record<string, unknown> {
  nodeType: string;
  config: Record<string, unknown>;
  title?: string;
  /** Problems the compiler reported for this node (set by the editor). */
  problems?: string[];
  /** Live counters when deployed. */
  counters?: NodeCounters;
}

export type WiflowNode = Node<WiflowNodeData, 'wiflow'>;
export type WiflowEdge = Edge;

export interface FlowGraph {
  nodes: WiflowNode[];
  edges: WiflowEdge[];
  viewport?: { x: number; y: number; zoom: number };
}

export interface FlowRecord {
  id: string;
  name: string;
  description?: string | null;
  data: FlowGraph | null;
  folder_id?: string | null;
  updated_at?: string;
  [key: string]: unknown;
}
