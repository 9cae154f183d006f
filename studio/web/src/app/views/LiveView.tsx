import { useEffect, useRef, useState } from 'react';
import { api, getToken } from '../api/client';

/** COCO-17 limbs by keypoint index. */
const LIMBS: [number, number][] = [
  [0, 1], [0, 2], [1, 3], [2, 4], [5, 6], [5, 7], [7, 9], [6, 8], [8, 10], [5, 11], [6, 12], [11, 12], [11, 13], [13, 15], [12, 14], [14, 16],
];
const COLORS = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324', '#469990', '#800000'];

interface LivePerson {
  id: number | null;
  track: number | null;
  confidence: number;
  keypoints: { name: string; x: number; y: number; confidence: number; visible: boolean }[];
  box: { x: number; y: number; width: number; height: number };
  position: { x: number; y: number } | null;
  activity: string | null;
}
interface LiveFrame {
  frameId: number;
  timestamp: string;
  persons: LivePerson[];
  provenance: string;
  model: string;
  modelHash: string;
}
interface Zone {
  id: string;
  name: string;
  polygon: [number, number][];
}
interface LiveAlert {
  alert_id: string;
  timestamp: string;
  alert_type: string;
  severity: string;
  message?: string;
}

/** Read a pose_update in either convention into one shape. */
function toFrame(msg: { data: { frame_id: number; persons: Record<string, unknown>[]; metadata: Record<string, unknown> }; timestamp: string }): LiveFrame {
  const m = msg.data.metadata ?? {};
  return {
    frameId: msg.data.frame_id,
    timestamp: msg.timestamp,
    provenance: String(m.provenance ?? 'unknown'),
    model: String(m.model_id ?? m.model_version ?? 'unknown'),
    modelHash: String(m.model_hash ?? ''),
    persons: msg.data.persons.map((p) => {
      const ti = p.tracking_info as { track_id?: string | null } | undefined;
      const track = (p.track_id as number | null | undefined) ?? (ti?.track_id != null ? Number(ti.track_id) : null);
      return {
        id: ((p.person_id ?? p.id) as number | null) ?? null,
        track,
        confidence: Number(p.confidence ?? 0),
        keypoints: (p.keypoints as LivePerson['keypoints']) ?? [],
        box: p.bounding_box as LivePerson['box'],
        position: (p.position as LivePerson['position']) ?? null,
        activity: (p.activity as string | null) ?? null,
      };
    }),
  };
}

function colorOf(p: LivePerson): string {
  return COLORS[Math.abs(p.track ?? p.id ?? 0) % COLORS.length];
}

/** Skeletons per frame, floor plan with zones, trajectories and heat map, charts, alerts; each says where its data came from. */
export function LiveView() {
  const [frame, setFrame] = useState<LiveFrame | null>(null);
  const [alerts, setAlerts] = useState<LiveAlert[]>([]);
  const [zones, setZones] = useState<Zone[]>([]);
  const [connection, setConnection] = useState('connecting');
  const [framesSeen, setFramesSeen] = useState(0);
  const skeletonRef = useRef<HTMLCanvasElement>(null);
  const floorRef = useRef<HTMLCanvasElement>(null);
  const chartRef = useRef<HTMLCanvasElement>(null);
  const trails = useRef(new Map<number, { x: number; y: number }[]>());
  const heat = useRef(new Map<string, number>());
  const occupancy = useRef<{ t: number; n: number; activities: Record<string, number> }[]>([]);

  // Zones come from the analytics nodes of the deployed pipelines (their `zones` config).
  useEffect(() => {
    (async () => {
      const deployments = await api<{ flow_id: string | null }[]>('/api/v1/studio/deployments').catch(() => []);
      const found: Zone[] = [];
      for (const d of deployments) {
        if (!d.flow_id) continue;
        const flow = await api<{ data: { nodes: { data: { config?: Record<string, unknown> } }[] } }>(`/api/v1/flows/${d.flow_id}`).catch(() => null);
        for (const n of flow?.data?.nodes ?? []) {
          // Analytics nodes name zones in `zones`; an inline simulator scenario carries its own.
          const scenario = n.data.config?.scenario;
          const z = n.data.config?.zones ?? (scenario && typeof scenario === 'object' ? (scenario as { zones?: unknown }).zones : undefined);
          if (Array.isArray(z)) for (const zone of z as Zone[]) if (Array.isArray(zone.polygon) && !found.some((f) => f.id === zone.id)) found.push(zone);
        }
      }
      setZones(found);
    })();
  }, []);

  useEffect(() => {
    const proto = window.location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${proto}://${window.location.host}/ws/pose?token=${encodeURIComponent(getToken() ?? '')}`);
    ws.onopen = () => setConnection('open');
    ws.onclose = (e) => setConnection(`closed${e.reason ? `: ${e.reason}` : ''}`);
    ws.onmessage = (event) => {
      const msg = JSON.parse(String(event.data)) as { type: string } & Record<string, unknown>;
      if (msg.type === 'connection_established') {
        ws.send(JSON.stringify({ type: 'subscribe', channel: 'pose_updates', filters: { include_keypoints: true, include_dense_pose: false } }));
        ws.send(JSON.stringify({ type: 'subscribe', channel: 'alerts', filters: {} }));
      } else if (msg.type === 'pose_update') {
        const f = toFrame(msg as unknown as Parameters<typeof toFrame>[0]);
        setFrame(f);
        setFramesSeen((n) => n + 1);
        const now = Date.now();
        const activities: Record<string, number> = {};
        for (const p of f.persons) {
          if (p.activity) activities[p.activity] = (activities[p.activity] ?? 0) + 1;
          if (!p.position) continue;
          const key = p.track ?? p.id ?? -1;
          const trail = trails.current.get(key) ?? [];
          trail.push(p.position);
          if (trail.length > 300) trail.shift();
          trails.current.set(key, trail);
          const cell = `${Math.floor(p.position.x / 0.25)},${Math.floor(p.position.y / 0.25)}`;
          heat.current.set(cell, (heat.current.get(cell) ?? 0) + 1);
        }
        occupancy.current.push({ t: now, n: f.persons.length, activities });
        while (occupancy.current.length && occupancy.current[0].t < now - 5 * 60_000) occupancy.current.shift();
      } else if (msg.type === 'alert') {
        setAlerts((a) => [msg as unknown as LiveAlert, ...a].slice(0, 50));
      }
    };
    return () => ws.close();
  }, []);

  useEffect(() => {
    if (!frame) return;
    drawSkeletons(skeletonRef.current, frame);
    drawFloor(floorRef.current, frame, zones, trails.current, heat.current);
    drawChart(chartRef.current, occupancy.current);
  }, [frame, zones]);

  return (
    <div className="wf-live" data-testid="live-view">
      <div className="wf-live-head">
        <span>stream: {connection}</span>
        <span data-testid="provenance">
          source: {frame ? `${frame.provenance} · model ${frame.model}${frame.modelHash ? ` (${frame.modelHash.slice(0, 12)})` : ''}` : '—'}
        </span>
        <span data-testid="frames-seen">frames: {framesSeen}</span>
        <span data-testid="person-count">people: {frame?.persons.length ?? 0}</span>
      </div>
      <div className="wf-live-grid">
        <figure>
          <canvas ref={skeletonRef} width={640} height={480} data-testid="skeleton-canvas" />
          <figcaption>Skeletons in the virtual camera (track colours) — {frame?.provenance ?? 'no data yet'}</figcaption>
        </figure>
        <figure>
          <canvas ref={floorRef} width={480} height={480} data-testid="floor-canvas" />
          <figcaption>Floor plan: zones, trajectories, heat map (metres) — {frame?.provenance ?? 'no data yet'}</figcaption>
        </figure>
        <figure>
          <canvas ref={chartRef} width={640} height={200} data-testid="occupancy-chart" />
          <figcaption>Occupancy (line) and activities (stacked) over the last 5 minutes</figcaption>
        </figure>
        <section className="wf-alerts" data-testid="alerts-panel">
          <h3>Alerts</h3>
          {alerts.length === 0 ? <p className="muted">None yet.</p> : null}
          {alerts.map((a) => (
            <div key={a.alert_id} className={`wf-alert sev-${a.severity}`}>
              <strong>{a.alert_type}</strong> · {a.severity} · {new Date(a.timestamp).toLocaleTimeString()}
            </div>
          ))}
        </section>
      </div>
    </div>
  );
}

function drawSkeletons(canvas: HTMLCanvasElement | null, frame: LiveFrame): void {
  const ctx = canvas?.getContext('2d');
  if (!canvas || !ctx) return;
  ctx.fillStyle = '#111';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  // The virtual camera's image plane: scale keypoints that exceed the canvas.
  let maxX = canvas.width;
  let maxY = canvas.height;
  for (const p of frame.persons) for (const k of p.keypoints) (maxX = Math.max(maxX, k.x)), (maxY = Math.max(maxY, k.y));
  const s = Math.min(canvas.width / maxX, canvas.height / maxY);
  for (const p of frame.persons) {
    const color = colorOf(p);
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 3;
    for (const [a, b] of LIMBS) {
      const ka = p.keypoints[a];
      const kb = p.keypoints[b];
      if (!ka || !kb || !ka.visible || !kb.visible) continue;
      ctx.beginPath();
      ctx.moveTo(ka.x * s, ka.y * s);
      ctx.lineTo(kb.x * s, kb.y * s);
      ctx.stroke();
    }
    for (const k of p.keypoints) if (k.visible) ctx.fillRect(k.x * s - 2, k.y * s - 2, 4, 4);
    if (p.box) {
      ctx.lineWidth = 1;
      ctx.strokeRect(p.box.x * s, p.box.y * s, p.box.width * s, p.box.height * s);
      ctx.fillText(`#${p.track ?? p.id ?? '?'} ${(p.confidence * 100).toFixed(0)}%${p.activity ? ` ${p.activity}` : ''}`, p.box.x * s, p.box.y * s - 4);
    }
  }
}

function drawFloor(canvas: HTMLCanvasElement | null, frame: LiveFrame, zones: Zone[], trails: Map<number, { x: number; y: number }[]>, heat: Map<string, number>): void {
  const ctx = canvas?.getContext('2d');
  if (!canvas || !ctx) return;
  let maxX = 6;
  let maxY = 6;
  for (const z of zones) for (const [x, y] of z.polygon) (maxX = Math.max(maxX, x)), (maxY = Math.max(maxY, y));
  for (const t of trails.values()) for (const p of t) (maxX = Math.max(maxX, p.x)), (maxY = Math.max(maxY, p.y));
  const s = Math.min(canvas.width / (maxX + 0.5), canvas.height / (maxY + 0.5));
  const X = (x: number) => x * s;
  const Y = (y: number) => canvas.height - y * s;
  ctx.fillStyle = '#fafafa';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const peak = Math.max(1, ...heat.values());
  for (const [cell, n] of heat) {
    const [cx, cy] = cell.split(',').map(Number);
    ctx.fillStyle = `rgba(255, 80, 0, ${(0.6 * n) / peak})`;
    ctx.fillRect(X(cx * 0.25), Y((cy + 1) * 0.25), 0.25 * s, 0.25 * s);
  }
  ctx.strokeStyle = '#888';
  ctx.fillStyle = '#333';
  for (const z of zones) {
    ctx.beginPath();
    z.polygon.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(X(x), Y(y)) : ctx.lineTo(X(x), Y(y))));
    ctx.closePath();
    ctx.stroke();
    const [x0, y0] = z.polygon[0] ?? [0, 0];
    ctx.fillText(z.name, X(x0) + 4, Y(y0) - 4);
  }
  for (const [track, trail] of trails) {
    ctx.strokeStyle = COLORS[Math.abs(track) % COLORS.length];
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    trail.forEach((p, i) => (i === 0 ? ctx.moveTo(X(p.x), Y(p.y)) : ctx.lineTo(X(p.x), Y(p.y))));
    ctx.stroke();
  }
  for (const p of frame.persons) {
    if (!p.position) continue;
    ctx.fillStyle = colorOf(p);
    ctx.beginPath();
    ctx.arc(X(p.position.x), Y(p.position.y), 6, 0, Math.PI * 2);
    ctx.fill();
  }
}

function drawChart(canvas: HTMLCanvasElement | null, series: { t: number; n: number; activities: Record<string, number> }[]): void {
  const ctx = canvas?.getContext('2d');
  if (!canvas || !ctx || series.length === 0) return;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  const t0 = series[0].t;
  const t1 = Math.max(t0 + 1, series[series.length - 1].t);
  const maxN = Math.max(3, ...series.map((p) => p.n));
  const X = (t: number) => ((t - t0) / (t1 - t0)) * (canvas.width - 20) + 10;
  const Y = (n: number) => canvas.height - 15 - (n / maxN) * (canvas.height - 30);
  const names = ['walking', 'standing', 'sitting', 'lying', 'falling'];
  const palette = ['#4363d8', '#3cb44b', '#f58231', '#911eb4', '#e6194b'];
  for (const p of series) {
    let base = 0;
    names.forEach((name, i) => {
      const v = p.activities[name] ?? 0;
      if (!v) return;
      ctx.fillStyle = palette[i];
      ctx.fillRect(X(p.t), Y(base + v), 2, Y(base) - Y(base + v));
      base += v;
    });
  }
  ctx.strokeStyle = '#000';
  ctx.beginPath();
  series.forEach((p, i) => (i === 0 ? ctx.moveTo(X(p.t), Y(p.n)) : ctx.lineTo(X(p.t), Y(p.n))));
  ctx.stroke();
  ctx.fillStyle = '#000';
  ctx.fillText(`max ${maxN} people`, 12, 12);
  names.forEach((name, i) => {
    ctx.fillStyle = palette[i];
    ctx.fillText(name, 120 + i * 70, 12);
  });
}
