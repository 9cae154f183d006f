import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo, useContext } from 'react';
import type { PortSpec, WiflowNode } from '../api/types';
import { NodeTypesContext } from './NodeTypesContext';

function typeLabel(t: PortSpec['type']): string {
  return typeof t === 'string' ? t : t.join('|');
}

/** Height of one port row (px at zoom 1); the ports block and handle offsets follow it. */
const PORT_ROW = 22;

/** A node on the canvas: title, typed input/output handles, problems and live counters. */
export const WiflowNodeView = memo(function WiflowNodeView({ id, data, selected }: NodeProps<WiflowNode>) {
  const byType = useContext(NodeTypesContext);
  const info = byType.get(data.nodeType);
  const inputs = Object.entries(info?.inputs ?? {});
  const outputs = Object.entries(info?.outputs ?? {});
  const rows = Math.max(inputs.length, outputs.length, 1);
  const problems = data.problems ?? [];
  const c = data.counters;
  const category = info?.category ?? 'unknown';
  return (
    <div
      className={`wf-node wf-cat-${category.replace(/[^a-z0-9]/gi, '')}${selected ? ' selected' : ''}${problems.length ? ' has-problems' : ''}${info ? '' : ' unknown'}`}
      data-testid={`node-${id}`}
      data-node-type={data.nodeType}
      title={`${info?.title ?? data.nodeType} (${data.nodeType}, ${category})`}
    >
      <div className="wf-node-title">{data.title ?? info?.title ?? data.nodeType}</div>
      <div className="wf-node-ports" style={{ minHeight: rows * PORT_ROW + 6 }}>
        {inputs.map(([name, spec], i) => (
          <div key={`in-${name}`} className="wf-port wf-port-in" style={{ top: 3 + i * PORT_ROW }} title={`${name}: ${typeLabel(spec.type)}`}>
            <Handle type="target" position={Position.Left} id={name} data-testid={`handle-${id}-in-${name}`} />
            <span>{name}</span>
          </div>
        ))}
        {outputs.map(([name, spec], i) => (
          <div key={`out-${name}`} className="wf-port wf-port-out" style={{ top: 3 + i * PORT_ROW }} title={`${name}: ${typeLabel(spec.type)}`}>
            <span>{name}</span>
            <Handle type="source" position={Position.Right} id={name} data-testid={`handle-${id}-out-${name}`} />
          </div>
        ))}
      </div>
      {c ? (
        <div className="wf-node-counters" data-testid={`counters-${id}`}>
          in {c.in} · out {c.out} · err {c.errors}
          <br />
          {c.dropped ? `drop ${c.dropped} · ` : ''}queue {c.queued} · p99 {c.latencyP99Ms.toFixed(0)} ms
        </div>
      ) : null}
      {problems.length ? (
        <ul className="wf-node-problems" data-testid={`problems-${id}`}>
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
});
