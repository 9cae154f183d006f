// Undo/redo as a bounded stack of graph snapshots; framework-free (xyflow's habit).
import type { FlowGraph } from '../api/types';

/** Create an undo/redo history over graph snapshots. */
export function createHistory(limit = 100) {
  let past: FlowGraph[] = [];
  let future: FlowGraph[] = [];
  return {
    /** Remember the state before a change. */
    push(snapshot: FlowGraph): void {
      past.push(structuredClone(snapshot));
      if (past.length > limit) past = past.slice(-limit);
      future = [];
    },
    undo(current: FlowGraph): FlowGraph | undefined {
      const previous = past.pop();
      if (previous) future.push(structuredClone(current));
      return previous;
    },
    redo(current: FlowGraph): FlowGraph | undefined {
      const next = future.pop();
      if (next) past.push(structuredClone(current));
      return next;
    },
    get canUndo(): boolean {
      return past.length > 0;
    },
    get canRedo(): boolean {
      return future.length > 0;
    },
    clear(): void {
      past = [];
      future = [];
    },
  };
}
