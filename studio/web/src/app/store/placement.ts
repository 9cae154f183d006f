// Where a node goes when the palette adds it without a drop point (a double-click).
import type { WiflowNode } from '../api/types';

interface Point { x: number; y: number }
interface Size { width: number; height: number }

/** A node's box before React Flow has measured it: the 190 px width of `.wf-node`, a short node's height. */
const UNMEASURED: Size = { width: 190, height: 70 };

/**
 * `at`, or the first spot below it that no node covers (with `gap` around), so nodes
 * added one after another from the palette do not land on top of each other.
 */
export function freeSpot(at: Point, nodes: readonly Pick<WiflowNode, 'position' | 'measured'>[], gap = 24): Point {
  const size = (n: Pick<WiflowNode, 'measured'>): Size => ({ width: n.measured?.width ?? UNMEASURED.width, height: n.measured?.height ?? UNMEASURED.height });
  const covers = (n: Pick<WiflowNode, 'position' | 'measured'>, p: Point): boolean => {
    const s = size(n);
    return p.x < n.position.x + s.width + gap && n.position.x < p.x + UNMEASURED.width + gap && p.y < n.position.y + s.height + gap && n.position.y < p.y + UNMEASURED.height + gap;
  };
  let spot = { ...at };
  // Each step moves strictly down past one node, so this ends after at most one step per node.
  for (let blocking = nodes.find((n) => covers(n, spot)); blocking; blocking = nodes.find((n) => covers(n, spot))) {
    spot = { x: spot.x, y: blocking.position.y + size(blocking).height + gap };
  }
  return spot;
}
