// Auto-layout with dagre: left-to-right layers, as data flows.
import dagre from '@dagrejs/dagre';
import type { WiflowEdge, WiflowNode } from '../api/types';

/** Positions for every node, laid out left to right. */
export function autoLayout(nodes: WiflowNode[], edges: WiflowEdge[]): WiflowNode[] {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 40, ranksep: 80 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.id, { width: n.measured?.width ?? 220, height: n.measured?.height ?? 90 });
  for (const e of edges) g.setEdge(e.source, e.target);
  dagre.layout(g);
  return nodes.map((n) => {
    const p = g.node(n.id);
    return p ? { ...n, position: { x: p.x - (p.width ?? 220) / 2, y: p.y - (p.height ?? 90) / 2 } } : n;
  });
}
