import {
  addEdge,
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  ReactFlowProvider,
  useEdgesState,
  useNodesState,
  useReactFlow,
  type Connection,
  type IsValidConnection,
} from '@xyflow/react';
import { flowInterface, isJobFlow } from '@wiflow/core/flow-interface';
import { arePortsCompatible } from '@wiflow/core/ports';
import { useCallback, useEffect, useMemo, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { api, ApiError } from '../api/client';
import { readSse } from '../api/sse';
import { isRunning, listDeployments, type DeploymentInfo } from '../api/studio';
import type { FlowGraph, FlowProblem, FlowRecord, NodeCounters, NodeTypeInfo, WiflowEdge, WiflowNode } from '../api/types';
import { ConfigForm } from '../components/ConfigForm';
import { NodeTypesContext } from '../components/NodeTypesContext';
import { DRAG_MIME, Palette } from '../components/Palette';
import { WiflowNodeView } from '../components/WiflowNodeView';
import { useNodeTypes } from '../hooks/useNodeTypes';
import { createHistory } from '../store/history';
import { autoLayout } from '../store/layout';
import { freeSpot } from '../store/placement';
import { openingViewport } from '../store/viewport';

const nodeTypes = { wiflow: WiflowNodeView };
/** Node text is 14 px (styles.css): at this zoom it is 11.2 px on screen, above the 11 px floor. */
const READABLE_ZOOM = 0.8;
/** Screen pixels of the minimap (bottom right); fitting keeps nodes above it. */
const MINIMAP = { width: 160, height: 100 };
/** Why a job flow's Deploy is disabled (its tooltip). */
const JOB_ONLY_REASON = 'A job flow (it has Job input or Job output nodes) runs once per request: use Run…. Deployed as a pipeline its inputs would never arrive.';
/** Where a dropped node's pointer lands on it: the middle of its title bar. */
const DROP_GRIP = { x: 95, y: 14 };

/**
 * A compiler message shown on its own node (or field) needs no "Node "X" (type, id x): " in
 * front; the problems list under the canvas keeps the whole sentence.
 */
function withoutNodeName(message: string): string {
  const rest = message.replace(/^Node (?:"[^"]*" )?\([^)]*\): /, '');
  return rest === message ? message : rest.charAt(0).toUpperCase() + rest.slice(1);
}

interface Revision {
  revision: number;
  created_at: string;
  message: string | null;
}

/** Strip UI-only fields before saving. */
function toStored(nodes: WiflowNode[], edges: WiflowEdge[], viewport?: FlowGraph['viewport']): FlowGraph {
  return {
    // Keep every stored data field (bindings of io.input nodes, titles); drop only what the editor adds.
    nodes: nodes.map((n) => {
      const { problems: _problems, counters: _counters, ...data } = n.data;
      return { id: n.id, type: 'wiflow', position: n.position, data: { ...data, config: n.data.config ?? {} } };
    }),
    edges: edges.map((e) => ({ id: e.id, source: e.source, sourceHandle: e.sourceHandle ?? null, target: e.target, targetHandle: e.targetHandle ?? null, ...(e.data ? { data: e.data } : {}) })),
    viewport,
  } as FlowGraph;
}

function fromStored(graph: FlowGraph | null | undefined): { nodes: WiflowNode[]; edges: WiflowEdge[] } {
  const nodes = (graph?.nodes ?? []).map((n) => ({ ...n, type: 'wiflow' as const, data: { ...n.data, config: n.data?.config ?? {} } }));
  return { nodes, edges: graph?.edges ?? [] };
}

function Editor({ flowId }: { flowId: string }) {
  const { types, byType, error: typesError } = useNodeTypes();
  const [nodes, setNodes, onNodesChange] = useNodesState<WiflowNode>([]);
  const [edges, setEdges, onEdgesChange] = useEdgesState<WiflowEdge>([]);
  const [flow, setFlow] = useState<FlowRecord | null>(null);
  const [problems, setProblems] = useState<FlowProblem[]>([]);
  const [status, setStatus] = useState<string>('');
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [panel, setPanel] = useState<'config' | 'run' | 'revisions' | null>('config');
  const [revisions, setRevisions] = useState<Revision[]>([]);
  const [deployment, setDeploymentInfo] = useState<DeploymentInfo | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const menu = useRef<HTMLDetailsElement>(null);
  const history = useRef(createHistory());
  const clipboard = useRef<{ nodes: WiflowNode[]; edges: WiflowEdge[] } | null>(null);
  const { screenToFlowPosition, getViewport, setViewport, getNodesBounds, setCenter } = useReactFlow();
  const wrapper = useRef<HTMLDivElement>(null);
  const setDeployment = useCallback((id: string | null) => setDeploymentInfo(id ? { id, flow_id: flowId, status: 'running', origin: 'studio' } : null), [flowId]);

  /** Show the whole flow if it fits at a readable zoom, else its start; nodes stay clear of the minimap. */
  const fitReadable = useCallback(
    (list?: WiflowNode[]) => {
      const box = wrapper.current?.getBoundingClientRect();
      if (!box) return;
      const bounds = getNodesBounds(list ?? []);
      if (bounds.width === 0 && bounds.height === 0) return;
      void setViewport(openingViewport(bounds, { width: box.width, height: box.height, padding: 24, reserveBottom: MINIMAP.height, readableZoom: READABLE_ZOOM, maxZoom: 1 }));
    },
    [getNodesBounds, setViewport],
  );
  // Fit once the nodes are measured (bounds need their sizes), then leave the viewport to the user.
  const pendingFit = useRef(false);
  /** Whether the view is still the one the editor chose (the user has not panned or zoomed since). */
  const viewIsOurs = useRef(false);
  const fitWhenMeasured = useCallback(() => {
    pendingFit.current = true;
  }, []);
  useEffect(() => {
    if (!pendingFit.current || nodes.length === 0 || nodes.some((n) => !n.measured?.width)) return;
    pendingFit.current = false;
    viewIsOurs.current = true;
    fitReadable(nodes);
  }, [nodes, fitReadable]);

  const snapshot = useCallback((): FlowGraph => ({ nodes, edges }), [nodes, edges]);
  const remember = useCallback(() => history.current.push(snapshot()), [snapshot]);

  useEffect(() => {
    api<FlowRecord & { problems?: FlowProblem[]; revision?: number }>(`/api/v1/flows/${flowId}`)
      .then((f) => {
        setFlow(f);
        const g = fromStored(f.data);
        setNodes(g.nodes);
        setEdges(g.edges);
        setProblems(f.problems ?? []);
        history.current.clear();
        // An empty flow keeps zoom 1 at the origin, so a drop lands where the pointer is.
        if (g.nodes.length > 0) fitWhenMeasured();
      })
      .catch((e: Error) => setStatus(`could not load the flow: ${e.message}`));
    // A flow that is running (deployed from the studio or started by the server) shows so.
    listDeployments(flowId)
      .then((list) => {
        const running = list.find(isRunning);
        if (running) setDeploymentInfo(running);
      })
      .catch(() => undefined);
  }, [flowId, setNodes, setEdges, fitWhenMeasured]);

  // Decorate nodes and edges with the compiler's problems.
  const decoratedNodes = useMemo(() => {
    const byNode = new Map<string, string[]>();
    for (const p of problems) if (p.nodeId && !p.edgeId) byNode.set(p.nodeId, [...(byNode.get(p.nodeId) ?? []), withoutNodeName(p.message)]);
    return nodes.map((n) => (byNode.has(n.id) || n.data.problems ? { ...n, data: { ...n.data, problems: byNode.get(n.id) } } : n));
  }, [nodes, problems]);
  const decoratedEdges = useMemo(() => {
    const byEdge = new Map<string, string>();
    for (const p of problems) if (p.edgeId) byEdge.set(p.edgeId, p.message);
    return edges.map((e) => (byEdge.has(e.id) ? { ...e, className: 'edge-problem', label: byEdge.get(e.id), data: { ...e.data, problem: byEdge.get(e.id) } } : { ...e, className: undefined, label: undefined }));
  }, [edges, problems]);

  const isValidConnection: IsValidConnection = useCallback(
    (c) => {
      const source = nodes.find((n) => n.id === c.source);
      const target = nodes.find((n) => n.id === c.target);
      const out = source && byType.get(source.data.nodeType)?.outputs[c.sourceHandle ?? ''];
      const input = target && byType.get(target.data.nodeType)?.inputs[c.targetHandle ?? ''];
      return Boolean(out && input && c.source !== c.target && arePortsCompatible(out, input));
    },
    [nodes, byType],
  );

  const onConnect = useCallback(
    (c: Connection) => {
      remember();
      setEdges((eds) => addEdge({ ...c, id: `e-${c.source}-${c.sourceHandle}-${c.target}-${c.targetHandle}` }, eds));
    },
    [remember, setEdges],
  );

  const addNode = useCallback(
    (type: string, position?: { x: number; y: number }) => {
      const info = byType.get(type);
      if (!info) return;
      remember();
      const base = type.split('.').pop()!.replace(/[^a-z0-9]/gi, '');
      let i = 1;
      while (nodes.some((n) => n.id === `${base}${i}`)) i++;
      const id = `${base}${i}`;
      let at = position;
      if (!at) {
        const box = wrapper.current?.getBoundingClientRect();
        const centre = screenToFlowPosition({ x: (box?.left ?? 0) + (box?.width ?? 800) / 2, y: (box?.top ?? 0) + 120 });
        at = freeSpot({ x: centre.x - DROP_GRIP.x, y: centre.y - DROP_GRIP.y }, nodes);
      }
      viewIsOurs.current = false;
      setNodes((ns) => [...ns, { id, type: 'wiflow', position: at, data: { nodeType: type, config: {} } }]);
      setSelectedId(id);
      setPanel('config');
    },
    [byType, nodes, remember, screenToFlowPosition, setNodes],
  );

  const onDrop = useCallback(
    (event: DragEvent) => {
      event.preventDefault();
      const type = event.dataTransfer.getData(DRAG_MIME);
      if (!type) return;
      // The pointer lands on the middle of the new node's title bar.
      const at = screenToFlowPosition({ x: event.clientX, y: event.clientY });
      addNode(type, { x: at.x - DROP_GRIP.x, y: at.y - DROP_GRIP.y });
    },
    [addNode, screenToFlowPosition],
  );

  const undo = useCallback(() => {
    const previous = history.current.undo(snapshot());
    if (previous) {
      setNodes(previous.nodes);
      setEdges(previous.edges);
    }
  }, [snapshot, setNodes, setEdges]);
  const redo = useCallback(() => {
    const next = history.current.redo(snapshot());
    if (next) {
      setNodes(next.nodes);
      setEdges(next.edges);
    }
  }, [snapshot, setNodes, setEdges]);

  const copy = useCallback(() => {
    const picked = nodes.filter((n) => n.selected);
    const ids = new Set(picked.map((n) => n.id));
    clipboard.current = { nodes: structuredClone(picked), edges: structuredClone(edges.filter((e) => ids.has(e.source) && ids.has(e.target))) };
    setStatus(`copied ${picked.length} node(s)`);
  }, [nodes, edges]);
  const paste = useCallback(() => {
    const clip = clipboard.current;
    if (!clip || clip.nodes.length === 0) return;
    remember();
    const rename = new Map<string, string>();
    const taken = new Set(nodes.map((n) => n.id));
    for (const n of clip.nodes) {
      let i = 1;
      while (taken.has(`${n.id}_${i}`)) i++;
      rename.set(n.id, `${n.id}_${i}`);
      taken.add(`${n.id}_${i}`);
    }
    setNodes((ns) => [...ns.map((n) => ({ ...n, selected: false })), ...clip.nodes.map((n) => ({ ...n, id: rename.get(n.id)!, selected: true, position: { x: n.position.x + 40, y: n.position.y + 40 } }))]);
    setEdges((es) => [...es, ...clip.edges.map((e) => ({ ...e, id: `${e.id}_copy_${rename.get(e.source)}`, source: rename.get(e.source)!, target: rename.get(e.target)! }))]);
  }, [nodes, remember, setNodes, setEdges]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.target as HTMLElement).closest('input, textarea, select')) return;
      const mod = e.ctrlKey || e.metaKey;
      if (mod && e.key.toLowerCase() === 'z' && !e.shiftKey) (e.preventDefault(), undo());
      else if (mod && (e.key.toLowerCase() === 'y' || (e.key.toLowerCase() === 'z' && e.shiftKey))) (e.preventDefault(), redo());
      else if (mod && e.key.toLowerCase() === 'c') copy();
      else if (mod && e.key.toLowerCase() === 'v') paste();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [undo, redo, copy, paste]);

  const validate = useCallback(async () => {
    const body = await api<{ valid: boolean; problems: FlowProblem[] }>('/api/v1/studio/validate', { method: 'POST', json: { data: toStored(nodes, edges) } });
    setProblems(body.problems);
    return body;
  }, [nodes, edges]);

  const save = useCallback(async () => {
    if (!flow) return;
    try {
      const rev = (flow as { revision?: number }).revision;
      const updated = await api<FlowRecord & { problems?: FlowProblem[]; valid?: boolean }>(`/api/v1/flows/${flow.id}`, {
        method: 'PATCH',
        headers: rev ? { 'If-Match': `"${rev}"` } : {},
        json: { data: toStored(nodes, edges, getViewport()) },
      });
      setFlow(updated);
      setProblems(updated.problems ?? []);
      setStatus(updated.valid === false ? `saved as draft: ${updated.problems?.length ?? 0} problem(s)` : 'saved');
    } catch (e) {
      const message = e instanceof ApiError && e.status === 409 ? 'someone saved this flow in between: reload to see their version' : `save failed: ${(e as Error).message}`;
      setStatus(message);
      setNotice(message);
    }
  }, [flow, nodes, edges, getViewport]);

  const layout = useCallback(() => {
    remember();
    setNodes((ns) => {
      const laid = autoLayout(ns, edges);
      fitReadable(laid);
      return laid;
    });
  }, [edges, remember, setNodes, fitReadable]);

  const exportJson = useCallback(() => {
    const blob = new Blob([JSON.stringify({ name: flow?.name ?? 'flow', description: flow?.description ?? '', data: toStored(nodes, edges, getViewport()) }, null, 2)], { type: 'application/json' });
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `${(flow?.name ?? 'flow').replace(/[^a-z0-9_-]+/gi, '_')}.json`;
    a.click();
    URL.revokeObjectURL(a.href);
  }, [flow, nodes, edges, getViewport]);

  const importJson = useCallback(
    async (file: File) => {
      try {
        const parsed = JSON.parse(await file.text()) as { data?: FlowGraph } & FlowGraph;
        const g = fromStored(parsed.data ?? parsed);
        remember();
        setNodes(g.nodes);
        setEdges(g.edges);
        setStatus(`imported ${g.nodes.length} nodes`);
        fitWhenMeasured();
      } catch (e) {
        setStatus(`import failed: ${(e as Error).message}`);
      }
    },
    [remember, setNodes, setEdges, fitWhenMeasured],
  );

  const loadRevisions = useCallback(async () => {
    if (!flow) return;
    const page = await api<{ items: Revision[] }>(`/api/v1/flows/${flow.id}/revisions?size=50`);
    setRevisions(page.items);
  }, [flow]);

  const restore = useCallback(
    async (revision: number) => {
      if (!flow) return;
      const rev = (flow as { revision?: number }).revision;
      const restored = await api<FlowRecord & { problems?: FlowProblem[] }>(`/api/v1/flows/${flow.id}/revisions/${revision}/restore`, { method: 'POST', headers: rev ? { 'If-Match': `"${rev}"` } : {} });
      setFlow(restored);
      const g = fromStored(restored.data);
      remember();
      setNodes(g.nodes);
      setEdges(g.edges);
      setProblems(restored.problems ?? []);
      setStatus(`restored revision ${revision}`);
      void loadRevisions();
    },
    [flow, remember, setNodes, setEdges, loadRevisions],
  );

  // Live counters of a deployed pipeline, streamed once a second onto the nodes (server-sent
  // events, `/counters/stream`; a dropped stream is opened again, a hidden tab's is closed).
  // Undeploying stops the stream first: a stream answered 404 by the deployment being removed
  // would otherwise be a failed request in the browser's console.
  const stopCounters = useRef<(() => void) | null>(null);
  const [countersEpoch, setCountersEpoch] = useState(0);
  useEffect(() => {
    if (!deployment) return;
    let stop = false;
    // The open stream; a hidden tab closes it (browsers allow about six connections per server
    // over HTTP/1.1, shared by every tab) and opens it again when shown.
    let connection: AbortController | null = null;
    let wake: () => void = () => undefined;
    type CountersEvent = { counters: Record<string, NodeCounters>; status?: DeploymentInfo['status']; error?: string | null };
    const gone = () => {
      stop = true;
      setDeployment(null);
      setNodes((ns) => ns.map((n) => ({ ...n, data: { ...n.data, counters: undefined } })));
      setStatus('the deployment has stopped');
    };
    const onEvent = (event: string, body: CountersEvent) => {
      if (stop) return;
      if (event === 'undeployed') return gone();
      if (event !== 'counters') return;
      setNodes((ns) => ns.map((n) => (body.counters[n.id] ? { ...n, data: { ...n.data, counters: body.counters[n.id] } } : n)));
      // Ended (its sources ended, or a node failed it): say so and why, keep the last counters, close the stream.
      if (body.status && body.status !== 'running') {
        stop = true;
        connection?.abort();
        setDeploymentInfo((d) => (d && d.id === deployment.id ? { ...d, status: body.status, error: body.error ?? null } : d));
        setStatus(body.status === 'failed' ? `the deployment failed: ${body.error ?? 'no reason given'}` : 'the deployment has stopped: its sources ended');
      }
    };
    const shown = () =>
      new Promise<void>((resolve) => {
        if (!document.hidden || stop) return resolve();
        wake = resolve;
      });
    const onVisibility = () => {
      if (document.hidden) connection?.abort();
      else wake();
    };
    document.addEventListener('visibilitychange', onVisibility);
    void (async () => {
      for (let retryMs = 1000; !stop; ) {
        await shown();
        if (stop) return;
        connection = new AbortController();
        try {
          await readSse(`/api/v1/studio/deployments/${deployment.id}/counters/stream`, { method: 'GET' }, (e) => onEvent(e.event, e.data as CountersEvent), connection.signal);
          retryMs = 1000;
        } catch (e) {
          if (stop) return;
          if (document.hidden) continue;
          // Gone (undeployed elsewhere, server restarted on another store): say so. A dropped
          // connection or a passing error: open the stream again, waiting longer each time (to 10 s).
          if (e instanceof ApiError && e.status === 404) return gone();
          if (e instanceof ApiError && e.status === 401) return;
          retryMs = Math.min(retryMs * 2, 10_000);
        }
        if (stop || document.hidden) continue;
        await new Promise((resolve) => setTimeout(resolve, retryMs));
      }
    })();
    const halt = () => {
      stop = true;
      connection?.abort();
      document.removeEventListener('visibilitychange', onVisibility);
      wake();
    };
    stopCounters.current = halt;
    return halt;
  }, [deployment?.id, countersEpoch, setNodes, setDeployment]);

  const deploy = useCallback(async () => {
    if (!flow) return;
    setNotice(null);
    if (deployment) {
      stopCounters.current?.();
      try {
        await api(`/api/v1/studio/deployments/${deployment.id}`, { method: 'DELETE' });
      } catch (e) {
        // Gone already is fine; anything else (not allowed, server error) is said, and the
        // deployment's counters are streamed again.
        if (!(e instanceof ApiError && e.status === 404)) {
          setCountersEpoch((k) => k + 1);
          setStatus('undeploy failed');
          setNotice(`Undeploy failed: ${(e as Error).message}`);
          return;
        }
      }
      setDeployment(null);
      setNodes((ns) => ns.map((n) => ({ ...n, data: { ...n.data, counters: undefined } })));
      setStatus('stopped');
      return;
    }
    await save();
    try {
      const d = await api<DeploymentInfo>('/api/v1/studio/deployments', { method: 'POST', json: { flow_id: flow.id } });
      setDeploymentInfo({ ...d, flow_id: d.flow_id ?? flow.id });
      // A node that cannot start (a missing file, say) fails the deployment before the answer.
      setStatus(d.status === 'failed' ? `the deployment failed: ${d.error ?? 'no reason given'}` : 'deployed: live counters on the nodes');
    } catch (e) {
      const body = (e as ApiError).body as { detail?: { problems?: FlowProblem[] }; details?: { problems?: FlowProblem[] }; error?: { details?: { problems?: FlowProblem[] } } } | undefined;
      const found = body?.details?.problems ?? body?.error?.details?.problems ?? body?.detail?.problems;
      if (found) setProblems(found);
      // 409: something already runs it; 422 without problems: the server will not run this flow as a pipeline.
      const refused = e instanceof ApiError && (e.status === 409 || (e.status === 422 && !found));
      setStatus(refused ? 'deploy refused' : 'deploy failed');
      setNotice(`${refused ? 'Deploy refused' : 'Deploy failed'}: ${(e as Error).message}`);
    }
  }, [flow, deployment, save, setNodes, setDeployment]);

  const selected = nodes.find((n) => n.id === selectedId);
  const selectedInfo = selected ? byType.get(selected.data.nodeType) : undefined;
  const fieldErrors = useMemo(() => {
    const out: Record<string, string> = {};
    for (const p of problems) if (p.nodeId === selectedId && p.field) out[p.field.split('.')[0]] = withoutNodeName(p.message);
    return out;
  }, [problems, selectedId]);

  const closeMenu = () => menu.current?.removeAttribute('open');
  /** A job flow cannot be deployed (the server refuses it too): Run… is its action. Undeploy stays offered. */
  const jobOnly = isJobFlow({ nodes }) && !deployment;
  const sideOpen = (panel === 'config' && Boolean(selected && selectedInfo)) || panel === 'run' || panel === 'revisions';
  // The side panel takes or gives back canvas width: fit again after the resize, unless the
  // user chose the view (panned, zoomed, or added a node where they wanted it). Either way the
  // node being edited stays in view: the panel must not cover the node it edits.
  const latestNodes = useRef(nodes);
  latestNodes.current = nodes;
  useEffect(() => {
    if (latestNodes.current.length === 0) return;
    const frame = requestAnimationFrame(() => {
      if (viewIsOurs.current) fitReadable(latestNodes.current);
      // A flow wider than the canvas opens at its start, and a node the user panned to at the
      // canvas's right edge goes under the panel: bring the node being edited into view.
      const chosen = latestNodes.current.find((n) => n.id === selectedId);
      const box = wrapper.current?.getBoundingClientRect();
      if (!chosen || !box) return;
      const { x, y, zoom } = getViewport();
      const width = chosen.measured?.width ?? 190;
      const height = chosen.measured?.height ?? 100;
      const left = chosen.position.x * zoom + x;
      const top = chosen.position.y * zoom + y;
      if (left < 0 || top < 0 || left + width * zoom > box.width || top + height * zoom > box.height) void setCenter(chosen.position.x + width / 2, chosen.position.y + height / 2, { zoom });
    });
    return () => cancelAnimationFrame(frame);
  }, [sideOpen, fitReadable]); // eslint-disable-line react-hooks/exhaustive-deps
  const closeSide = () => (setPanel(null), setSelectedId(null));
  let side: ReactNode = null;
  if (panel === 'config' && selected && selectedInfo) {
    side = (
      <>
        <h3>{selectedInfo.title}</h3>
        <p className="muted">
          {selected.id} · {selectedInfo.type} · {selectedInfo.plugin}
        </p>
        <p>{selectedInfo.description}</p>
        <ConfigForm
          info={selectedInfo}
          config={selected.data.config}
          errors={fieldErrors}
          onChange={(config) => {
            remember();
            setNodes((ns) => ns.map((n) => (n.id === selected.id ? { ...n, data: { ...n.data, config } } : n)));
          }}
        />
      </>
    );
  } else if (panel === 'run' && flow) {
    side = <RunPanel flow={flow} nodes={nodes} byType={byType} onBeforeRun={save} />;
  } else if (panel === 'revisions') {
    side = (
      <div data-testid="revisions">
        <h3>Revisions</h3>
        {revisions.map((r) => (
          <div key={r.revision} className="wf-revision">
            <span>
              #{r.revision} · {new Date(r.created_at).toLocaleString()} {r.message ? `· ${r.message}` : ''}
            </span>
            <button onClick={() => void restore(r.revision)}>Restore</button>
          </div>
        ))}
      </div>
    );
  }

  return (
    <NodeTypesContext.Provider value={byType}>
      <div className={`wf-editor${sideOpen ? ' with-side' : ''}`}>
        <Palette types={types} onAdd={(t) => addNode(t)} />
        <div className="wf-main">
          <div className="wf-toolbar" data-testid="toolbar">
            <strong className="wf-flow-name" title={flow?.name ?? ''}>{flow?.name ?? '…'}</strong>
            {deployment ? (
              <span
                className={`wf-chip ${deployment.status ?? 'running'}`}
                data-testid="deployment-state"
                title={`deployment ${deployment.id}${deployment.environment_id ? ` · environment ${deployment.environment_id}` : ''}${deployment.error ? ` · ${deployment.error}` : ''}`}
              >
                {deployment.status ?? 'running'}
                {deployment.origin === 'server' ? ' (server)' : ''}
              </span>
            ) : null}
            <button onClick={undo} disabled={!history.current.canUndo} title="Undo (Ctrl+Z)" aria-label="Undo">↶</button>
            <button onClick={redo} disabled={!history.current.canRedo} title="Redo (Ctrl+Shift+Z or Ctrl+Y)" aria-label="Redo">↷</button>
            <button onClick={() => void validate()} data-testid="validate" title="Compile the flow and show its problems">Check</button>
            <button onClick={() => void save()} data-testid="save">Save</button>
            <button
              onClick={() => void deploy()}
              data-testid="deploy"
              className={deployment || jobOnly ? '' : 'primary'}
              disabled={jobOnly}
              title={deployment ? (isRunning(deployment) ? 'Stop the running pipeline' : 'Remove the ended deployment') : jobOnly ? JOB_ONLY_REASON : 'Save and start as a live pipeline'}
            >
              {deployment ? (isRunning(deployment) ? 'Undeploy' : 'Remove') : 'Deploy'}
            </button>
            <button
              onClick={() => setPanel('run')}
              data-testid="open-run"
              className={jobOnly ? 'primary' : ''}
              title={jobOnly ? 'Run once as a job, with the values of its Job input nodes' : 'Run once as a job: it ends when its sources end (a looping source never does); Deploy runs it live'}
            >
              Run…
            </button>
            <details className="wf-menu" ref={menu}>
              <summary data-testid="more" title="More actions">More</summary>
              <div className="wf-menu-items" onClick={(e) => (e.target as HTMLElement).closest('button') && closeMenu()}>
                <button onClick={copy} title="Ctrl+C">Copy</button>
                <button onClick={paste} title="Ctrl+V">Paste</button>
                <button onClick={layout}>Auto-layout</button>
                <button onClick={() => (setPanel('revisions'), void loadRevisions())}>Revisions</button>
                <button onClick={exportJson}>Export</button>
                <label className="wf-button">
                  Import
                  <input type="file" accept="application/json" hidden onChange={(e) => (closeMenu(), e.target.files?.[0] && void importJson(e.target.files[0]))} />
                </label>
              </div>
            </details>
            <span className="wf-status" data-testid="status" title={typesError ? `node types: ${typesError}` : status}>
              {typesError ? `node types: ${typesError}` : status}
            </span>
          </div>
          {notice ? (
            <div className="wf-notice" role="alert" data-testid="notice">
              <span>{notice}</span>
              <button onClick={() => setNotice(null)} aria-label="Dismiss">×</button>
            </div>
          ) : null}
          <div className="wf-canvas" ref={wrapper} onDragOver={(e) => (e.preventDefault(), (e.dataTransfer.dropEffect = 'move'))} onDrop={onDrop} data-testid="canvas">
            {/* Mount the canvas once the node types are known: handles come from them, and React
                Flow measures a node's handles when the node first renders (edges of handles that
                appear later would never be drawn). */}
            {types.length === 0 && !typesError ? <p className="muted">Loading node types…</p> : null}
            {types.length === 0 && !typesError ? null : (
              <ReactFlow
                nodes={decoratedNodes}
                edges={decoratedEdges}
                nodeTypes={nodeTypes}
                onNodesChange={onNodesChange}
                onEdgesChange={onEdgesChange}
                onConnect={onConnect}
                isValidConnection={isValidConnection}
                onNodeClick={(_e, n) => (setSelectedId(n.id), setPanel('config'))}
                onNodeDragStart={remember}
                onBeforeDelete={async () => (remember(), true)}
                minZoom={0.05}
                onMoveStart={(event) => event && (viewIsOurs.current = false)}
                deleteKeyCode={['Delete', 'Backspace']}
              >
                <Background />
                <Controls showInteractive={false} fitViewOptions={{ padding: 0.1, maxZoom: 1 }} />
                <MiniMap pannable zoomable style={MINIMAP} />
              </ReactFlow>
            )}
            {flow && nodes.length === 0 && types.length > 0 ? (
              <p className="wf-canvas-hint" data-testid="empty-hint">
                Drag a node type from the palette and drop it here, then connect an output to an input of the same type.
              </p>
            ) : null}
          </div>
          <ProblemsList problems={problems} onPick={(id) => (setSelectedId(id), setPanel('config'))} />
        </div>
        {sideOpen ? (
          <aside className="wf-side" data-testid="side-panel">
            <button className="wf-side-close" onClick={closeSide} aria-label="Close the panel" title="Close">×</button>
            {side}
          </aside>
        ) : null}
      </div>
    </NodeTypesContext.Provider>
  );
}

function ProblemsList({ problems, onPick }: { problems: FlowProblem[]; onPick: (nodeId: string) => void }) {
  if (problems.length === 0) return null;
  return (
    <ul className="wf-problems" data-testid="problems">
      {problems.map((p, i) => (
        <li key={i} onClick={() => p.nodeId && onPick(p.nodeId)}>
          <code>{p.code}</code> {p.message}
        </li>
      ))}
    </ul>
  );
}

/** Run the flow as a job: a form built from its io.input nodes, the event log, the outputs. */
function RunPanel({ flow, nodes, byType, onBeforeRun }: { flow: FlowRecord; nodes: WiflowNode[]; byType: Map<string, NodeTypeInfo>; onBeforeRun: () => Promise<void> }) {
  // The flow's interface as core reads it for `wiflow run`, the run API and MCP tools.
  const inputs = flowInterface({ nodes }).inputs;
  const [values, setValues] = useState<Record<string, string>>({});
  const [log, setLog] = useState<string[]>([]);
  const [result, setResult] = useState<unknown>(null);
  const [running, setRunning] = useState(false);
  const run = async () => {
    setRunning(true);
    setLog([]);
    setResult(null);
    await onBeforeRun();
    const named: Record<string, unknown> = {};
    for (const { name, valueType } of inputs) {
      const raw = values[name];
      if (raw === undefined || raw === '') continue;
      named[name] = valueType === 'text' || valueType === 'file' ? raw : (() => { try { return JSON.parse(raw); } catch { return raw; } })();
    }
    try {
      await readSse(`/api/v1/run/${flow.id}?stream=true&framing=sse`, { method: 'POST', json: { inputs: named } }, (e) => {
        setLog((l) => [...l, `${e.event}: ${JSON.stringify(e.data).slice(0, 300)}`]);
        if (e.event === 'end') setResult((e.data as { data?: { result?: unknown } }).data?.result ?? e.data);
      });
    } catch (e) {
      setLog((l) => [...l, `error: ${(e as Error).message}`]);
    } finally {
      setRunning(false);
    }
  };
  return (
    <div data-testid="run-panel">
      <h3>Run as a job</h3>
      {inputs.length === 0 ? <p className="muted">This flow has no io.input nodes: it runs without inputs.</p> : null}
      {inputs.map((input) => {
        const { name, valueType } = input;
        const required = input.required && !input.hasDefault;
        const set = (value: string) => setValues({ ...values, [name]: value });
        return (
          <label key={input.nodeId}>
            <span>
              {name}
              {required ? ' *' : ''} <small className="muted">({valueType})</small>
            </span>
            {valueType === 'boolean' ? (
              <input type="checkbox" data-testid={`run-input-${name}`} checked={values[name] === 'true'} onChange={(e) => set(String(e.target.checked))} />
            ) : valueType === 'json' ? (
              <textarea rows={4} data-testid={`run-input-${name}`} value={values[name] ?? ''} placeholder="JSON" onChange={(e) => set(e.target.value)} />
            ) : (
              <input
                type={valueType === 'number' || valueType === 'integer' ? 'number' : 'text'}
                step={valueType === 'integer' ? 1 : 'any'}
                data-testid={`run-input-${name}`}
                value={values[name] ?? ''}
                placeholder={valueType === 'file' ? 'file id (POST /api/v2/files) or <flow id>/<name>' : input.hasDefault ? String(input.default) : ''}
                onChange={(e) => set(e.target.value)}
              />
            )}
            {input.description ? <small className="muted">{input.description}</small> : null}
          </label>
        );
      })}
      <button onClick={() => void run()} disabled={running} data-testid="run">
        {running ? 'Running…' : 'Run'}
      </button>
      <h4>Event log</h4>
      <pre className="wf-log" data-testid="run-log">{log.join('\n')}</pre>
      <h4>Outputs</h4>
      <pre className="wf-log" data-testid="run-result">{result ? JSON.stringify(result, null, 2).slice(0, 20000) : ''}</pre>
      <p className="muted">{byType.size} node types available.</p>
    </div>
  );
}

/** The flow editor for one flow. */
export function EditorView({ flowId }: { flowId: string }) {
  return (
    <ReactFlowProvider>
      <Editor flowId={flowId} />
    </ReactFlowProvider>
  );
}
