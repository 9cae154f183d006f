import { useMemo, useState } from 'react';
import type { NodeTypeInfo } from '../api/types';

/** MIME type carried by palette drags. */
export const DRAG_MIME = 'application/x-wiflow-node-type';

/** Node types grouped by category; drag one onto the canvas (or double-click to add). */
export function Palette({ types, onAdd }: { types: NodeTypeInfo[]; onAdd: (type: string) => void }) {
  const [filter, setFilter] = useState('');
  const groups = useMemo(() => {
    const f = filter.toLowerCase();
    const map = new Map<string, NodeTypeInfo[]>();
    for (const t of types) {
      if (f && !`${t.type} ${t.title} ${t.description}`.toLowerCase().includes(f)) continue;
      const list = map.get(t.category) ?? [];
      list.push(t);
      map.set(t.category, list);
    }
    return [...map.entries()].sort(([a], [b]) => a.localeCompare(b));
  }, [types, filter]);
  return (
    <aside className="wf-palette" data-testid="palette">
      <input placeholder="Search nodes" value={filter} onChange={(e) => setFilter(e.target.value)} aria-label="Search nodes" />
      {groups.map(([category, list]) => (
        <section key={category}>
          <h4>{category}</h4>
          {list.map((t) => (
            <div
              key={t.type}
              className="wf-palette-item"
              draggable
              data-testid={`palette-${t.type}`}
              title={`${t.description}\n(${t.plugin})`}
              onDragStart={(e) => {
                e.dataTransfer.setData(DRAG_MIME, t.type);
                e.dataTransfer.effectAllowed = 'move';
              }}
              onDoubleClick={() => onAdd(t.type)}
            >
              {t.title}
              <small>{t.type}</small>
            </div>
          ))}
        </section>
      ))}
    </aside>
  );
}
