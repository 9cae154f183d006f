// Shapes the studio reads from the server (node registry, flows, jobs, counters).
import type { Edge, Node } from '@xyflow/react';

export interface PortSpec {
  type: string | string[];
  description?: string;
  required?: boolean;
}

/** A node type from GET /api/v1/studio/node-types (core's NodeTypeDescription). */
export interface NodeTypeInfo {
  type: string;
  title: string;
  category: string;
  description: string;
  plugin: string;
  source: boolean;
  inputs: Record<string, PortSpec>;
  outputs: Record<string, PortSpec>;
  configSchema: JsonSchema;
  secrets: string[];
}

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

export interface FlowProblem {
  code: string;
  message: string;
  nodeId?: string;
  edgeId?: string;
  port?: string;
  field?: string;
}

export interface NodeCounters {
  in: number;
  out: number;
  dropped: number;
  errors: number;
  queued: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  lastError: string | null;
}
