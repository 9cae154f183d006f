import { useEffect, useMemo, useState } from 'react';
import { api } from '../api/client';
import type { NodeTypeInfo } from '../api/types';

/** The runtime's node registry (every plugin's node types, third-party ones included). */
export function useNodeTypes(): { types: NodeTypeInfo[]; byType: Map<string, NodeTypeInfo>; error: string | null } {
  const [types, setTypes] = useState<NodeTypeInfo[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<NodeTypeInfo[]>('/api/v1/studio/node-types')
      .then(setTypes)
      .catch((e: Error) => setError(e.message));
  }, []);
  // One Map per registry answer: canvas nodes read it through context, and a new Map on every
  // render of the editor would re-render every node.
  const byType = useMemo(() => new Map(types.map((t) => [t.type, t])), [types]);
  return { types, byType, error };
}
