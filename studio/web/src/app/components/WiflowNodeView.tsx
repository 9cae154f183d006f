import { Handle, Position, type NodeProps } from '@xyflow/react';
import { memo, useContext } from 'react';
import type { WiflowNode } from '../api/types';
import { NodeTypesContext } from './NodeTypesContext';

function typeLabel(t: string | string[]): string {
  return Array.isArray(t) ? t.join('|') : t;
}

/** A node on the canvas: title, typed input/output handles, problems and live counters. */
export const WiflowNodeView = memo(function WiflowNodeView({ id, data, selected }: NodeProps<WiflowNode>) {
  const byType = useContext(NodeTypesContext);
  const info = byType.get(data.nodeType);
  const inputs = Object.entries(info?.inputs ?? {});
  const outputs = Object.entries(info?.outputs ?? {});
  const rows = Math.max(inputs.length, outputs.length, 1);
  const problems = data.problems ?? [];
  const c = data.counters;
  return (
    <div className={`wf-node${selected ? ' selected' : ''}${problems.length ? ' has-problems' : ''}${info ? '' : ' unknown'}`} data-testid={`node-${id}`} data-node-type={data.nodeType}>
      <div className="wf-node-title">
        <span className="wf-node-category">{info?.category ?? '?'}</span>
        {data.title ?? info?.title ?? data.nodeType}
      </div>
      <div className="wf-node-ports" style={{ minHeight: rows * 22 + 8 }}>
        {inputs.map(([name, spec], i) => (
          <div key={`in-${name}`} className="wf-port wf-port-in" style={{ top: 8 + i * 22 }} title={`${name}: ${typeLabel(spec.type)}`}>
            <Handle type="target" position={Position.Left} id={name} data-testid={`handle-${id}-in-${name}`} />
            <span>{name}</span>
          </div>
        ))}
        {outputs.map(([name, spec], i) => (
          <div key={`out-${name}`} className="wf-port wf-port-out" style={{ top: 8 + i * 22 }} title={`${name}: ${typeLabel(spec.type)}`}>
            <span>{name}</span>
            <Handle type="source" position={Position.Right} id={name} data-testid={`handle-${id}-out-${name}`} />
          </div>
        ))}
      </div>
      {c ? (
        <div className="wf-node-counters" data-testid={`counters-${id}`}>
          in {c.in} · out {c.out} · drop {c.dropped}
          <br />
          err {c.errors} · queued {c.queued} · p99 {c.latencyP99Ms.toFixed(1)} ms
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
