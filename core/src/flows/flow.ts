/** A node on the canvas, in React Flow shape (ARCHITECTURE §2). */
export interface FlowNode {
  id: string;
  /** React Flow renderer type; the studio uses 'wiflow'. */
  type?: string;
  position: { x: number; y: number };
  data: {
    /** The node type id in the registry, e.g. 'csi.replay'. */
    nodeType: string;
    /** Config values (validated against the node type's schema). */
    config?: Record<string, unknown>;
    /** Optional display title (tweaks may address a node by it). */
    title?: string;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** An edge from an output port to an input port. */
export interface FlowEdge {
  id: string;
  source: string;
  /** Output port name of the source node. */
  sourceHandle: string;
  target: string;
  /** Input port name of the target node. */
  targetHandle: string;
  data?: {
    /** Queue capacity of this edge (messages). */
    capacity?: number;
    /** What happens when the queue is full. */
    overflow?: OverflowPolicy;
    [key: string]: unknown;
  };
  [key: string]: unknown;
}

/** What a full edge queue does: hold the sender (block) or drop the oldest message. */
export type OverflowPolicy = 'block' | 'drop-oldest';

/** The graph a user draws: React Flow's `{nodes, edges, viewport}`. */
export interface FlowData {
  nodes: FlowNode[];
  edges: FlowEdge[];
  viewport?: { x: number; y: number; zoom: number };
}

/** A flow document: the parts of the Langflow FlowRead record the engine needs. */
export interface FlowDocument {
  id?: string;
  name: string;
  description?: string | null;
  data: FlowData;
  [key: string]: unknown;
}
