import { useCallback, useEffect, useRef, useState } from 'react';
import { api, getToken } from '../api/client';
import { environmentsOf, listDeployments, type DeploymentInfo, type RoomInfo } from '../api/studio';
import { EnvironmentNotice } from '../components/EnvironmentNotice';
import { contextIn, useCanvasSize } from '../hooks/useCanvasSize';
import { hashQuery, replaceHashQuery } from '../hooks/useHashRoute';
import { activityColor, activityNames, drawActivityStrip } from '../live/activity-strip';
import { ALL_ENVIRONMENTS, effectiveEnvironment, ENVIRONMENT_STORAGE_KEY, knownEnvironments, type EnvironmentChoice } from '../live/environment-choice';
import { environmentSilence, QUIET_MS, type StoredFlow } from '../live/environment-status';
import { drawFloor, floorExtent, floorHeightFor, HEAT_CELL } from '../live/floor-plan';
import { addSensingSample, describeSensingHistory, sensingStripBars, STATE_COLOURS, summarizeSensing, toSensingSample, type SensingSample } from '../live/sensing-history';
import { drawSkeletons } from '../live/skeletons';
import { describeSensing, toFrame, type ActivitySample, type LiveAlert, type LiveFrame, type LiveSensing } from '../live/types';

/** The activity strip's window, and the sensing history's. */
const WINDOW_MS = 5 * 60_000;
/** The virtual camera's image when frames do not say otherwise (the simulator's default camera). */
const CAMERA_IMAGE = { width: 640, height: 480 };

/** The saved choice of environment: the URL's `?environment=` first, else the last one chosen in this browser. */
function savedChoice(): EnvironmentChoice | null {
  return hashQuery().get('environment') || localStorage.getItem(ENVIRONMENT_STORAGE_KEY) || null;
}

/** Floor plan to scale (room, zones, radios, people, trails, heat map), skeletons, the activity strip and alerts; each says where its data came from. */
export function LiveView() {
  const [frame, setFrame] = useState<LiveFrame | null>(null);
  const [alerts, setAlerts] = useState<LiveAlert[]>([]);
  const [rooms, setRooms] = useState<RoomInfo[]>([]);
  /** The deployments as last read; null until one read succeeded (no notice claims what was never read). */
  const [deployments, setDeployments] = useState<DeploymentInfo[] | null>(null);
  /** Stored flows, read once a notice must name the flow that writes an environment nothing deploys. */
  const [flows, setFlows] = useState<StoredFlow[] | null>(null);
  /** Whether the first look at rooms and deployments is done (the default choice depends on it). */
  const [looked, setLooked] = useState(false);
  const [seenEnvironments, setSeenEnvironments] = useState<string[]>([]);
  /** Environments of the frames this socket delivered (one, when filtered). */
  const [delivered, setDelivered] = useState<string[]>([]);
  const [saved, setSaved] = useState<EnvironmentChoice | null>(savedChoice);
  const [connection, setConnection] = useState('connecting');
  const [framesSeen, setFramesSeen] = useState(0);
  /** The newest CSI sensing second of each environment delivered (sensing_updates, room scope). */
  const [sensing, setSensing] = useState<Record<string, LiveSensing>>({});
  /** Whether QUIET_MS passed without a frame of the choice (since its last frame, or since it was made). */
  const [quiet, setQuiet] = useState(false);
  /** When the last frame of the choice arrived, else when the choice was made. */
  const lastHeard = useRef(Date.now());
  const reload = useRef<() => void>(() => undefined);
  const skeletonRef = useRef<HTMLCanvasElement>(null);
  const floorRef = useRef<HTMLCanvasElement>(null);
  const stripRef = useRef<HTMLCanvasElement>(null);
  const trails = useRef(new Map<number, { x: number; y: number }[]>());
  const heat = useRef(new Map<string, number>());
  const samples = useRef<ActivitySample[]>([]);
  /** Each room's sensing seconds of the last WINDOW_MS (kept across reconnects; a gap shows as one). */
  const sensingHistory = useRef(new Map<string, SensingSample[]>());

  // Floor plans of the running pipelines (room, radios, zones) and the environments they write,
  // refreshed as pipelines come and go: every 15 s while the tab is visible (a hidden tab asks
  // nothing), and at once when it becomes visible again.
  useEffect(() => {
    let stop = false;
    const load = () =>
      Promise.all([
        api<RoomInfo[]>('/api/v1/studio/rooms').then((r) => !stop && setRooms(r), () => undefined),
        listDeployments().then((list) => !stop && setDeployments(list), () => undefined),
      ]).then(() => !stop && setLooked(true));
    reload.current = () => void load();
    void load();
    const timer = setInterval(() => document.visibilityState === 'visible' && void load(), 15_000);
    const onVisible = () => document.visibilityState === 'visible' && void load();
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      stop = true;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, []);
  const environments = knownEnvironments(
    rooms.map((r) => r.environment_id),
    (deployments ?? []).flatMap(environmentsOf),
    seenEnvironments,
  );
  const environment = effectiveEnvironment(saved, environments);
  const offered = knownEnvironments(environments, [environment]);
  const choose = (choice: EnvironmentChoice) => {
    localStorage.setItem(ENVIRONMENT_STORAGE_KEY, choice);
    const query = hashQuery();
    query.set('environment', choice);
    replaceHashQuery(query);
    setSaved(choice);
  };
  const room = environment
    ? (rooms.find((r) => r.environment_id === environment) ?? null)
    : (rooms.find((r) => r.environment_id === frame?.environmentId) ?? rooms[0] ?? null);

  // One socket per choice: the server filters by environment (pose_updates and alerts), so it
  // sends only what is shown; a new choice starts the trails, heat map, strip and alerts afresh.
  useEffect(() => {
    if (!looked) return;
    trails.current.clear();
    heat.current.clear();
    samples.current = [];
    setFrame(null);
    setAlerts([]);
    setFramesSeen(0);
    setSensing({});
    sensingHistory.current.clear();
    setDelivered([]);
    setQuiet(false);
    lastHeard.current = Date.now();
    const only = environment ? { environment_id: environment } : {};
    const proto = window.location.protocol === 'https:' ? 'wss' : 'ws';
    // A stream that closes (the server restarted, the network dropped) is opened again: after 1, 2,
    // 4 … 30 s while the tab is visible, at once when it becomes visible or the browser is back
    // online; a hidden tab waits. What was drawn (trails, heat map, strip, alerts) is kept.
    let ws: WebSocket | null = null;
    let ended = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let attempts = 0;
    const open = () => {
      clearTimeout(retry);
      retry = undefined;
      if (ended) return;
      const socket = new WebSocket(`${proto}://${window.location.host}/ws/pose?token=${encodeURIComponent(getToken() ?? '')}`);
      ws = socket;
      socket.onopen = () => {
        attempts = 0;
        setConnection('open');
      };
      socket.onclose = (e) => {
        if (ended || ws !== socket) return;
        ws = null;
        const why = `closed${e.reason ? `: ${e.reason}` : ''}`;
        if (document.visibilityState !== 'visible') {
          setConnection(`${why}; reconnecting when this tab is shown`);
          return;
        }
        const delay = Math.min(30_000, 1000 * 2 ** attempts++);
        setConnection(`${why}; reconnecting in ${Math.round(delay / 1000)} s`);
        retry = setTimeout(open, delay);
      };
      socket.onmessage = onMessage;
    };
    const openNow = () => {
      if (!ended && ws === null && document.visibilityState === 'visible') {
        setConnection('reconnecting');
        open();
      }
    };
    const onMessage = (event: MessageEvent) => {
      const socket = event.currentTarget as WebSocket;
      const msg = JSON.parse(String(event.data)) as { type: string } & Record<string, unknown>;
      if (msg.type === 'connection_established') {
        socket.send(JSON.stringify({ type: 'subscribe', channel: 'pose_updates', filters: { include_keypoints: true, include_dense_pose: false, ...only } }));
        socket.send(JSON.stringify({ type: 'subscribe', channel: 'alerts', filters: only }));
        // CSI sensing of the room (presence, motion, breathing): a room with only sensing (one ESP32) shows it too.
        socket.send(JSON.stringify({ type: 'subscribe', channel: 'sensing_updates', filters: { ...only, scope: 'room' } }));
      } else if (msg.type === 'pose_update') {
        const f = toFrame(msg as unknown as Parameters<typeof toFrame>[0]);
        const seen = f.environmentId;
        if (seen) {
          setSeenEnvironments((list) => (list.includes(seen) ? list : [...list, seen]));
          setDelivered((list) => (list.includes(seen) ? list : [...list, seen]));
        }
        setFrame(f);
        setFramesSeen((n) => n + 1);
        lastHeard.current = Date.now();
        setQuiet(false);
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
          const cell = `${Math.floor(p.position.x / HEAT_CELL)},${Math.floor(p.position.y / HEAT_CELL)}`;
          heat.current.set(cell, (heat.current.get(cell) ?? 0) + 1);
        }
        samples.current.push({ t: now, n: f.persons.length, activities });
        while (samples.current.length && samples.current[0].t < now - WINDOW_MS) samples.current.shift();
      } else if (msg.type === 'sensing_update') {
        const sensed = (msg as unknown as { data: LiveSensing }).data;
        const history = sensingHistory.current;
        history.set(sensed.environment_id, addSensingSample(history.get(sensed.environment_id) ?? [], toSensingSample(sensed, msg.skipped_seconds), WINDOW_MS));
        setSensing((all) => ({ ...all, [sensed.environment_id]: sensed }));
        setSeenEnvironments((list) => (list.includes(sensed.environment_id) ? list : [...list, sensed.environment_id]));
        lastHeard.current = Date.now();
        setQuiet(false);
      } else if (msg.type === 'alert') {
        setAlerts((a) => [msg as unknown as LiveAlert, ...a].slice(0, 50));
      }
    };
    document.addEventListener('visibilitychange', openNow);
    window.addEventListener('online', openNow);
    open();
    return () => {
      ended = true;
      clearTimeout(retry);
      document.removeEventListener('visibilitychange', openNow);
      window.removeEventListener('online', openNow);
      ws?.close();
    };
  }, [looked, environment]);

  // Silence is told apart from a slow frame rate after QUIET_MS; going quiet asks the server again
  // at once (a pipeline that just stopped should be named now, not at the next 15 s look).
  useEffect(() => {
    const timer = setInterval(() => setQuiet(Date.now() - lastHeard.current >= QUIET_MS), 1000);
    return () => clearInterval(timer);
  }, []);
  useEffect(() => {
    if (quiet) reload.current();
  }, [quiet]);
  const sensed = Object.values(sensing).sort((a, b) => a.environment_id.localeCompare(b.environment_id));
  const silence = looked && deployments ? environmentSilence({ environment, deployments, rooms, flows, framesArrived: framesSeen > 0 || sensed.length > 0, quiet }) : null;
  const needsFlows = silence?.state === 'absent' && flows === null;
  useEffect(() => {
    if (!needsFlows) return;
    let stop = false;
    api<StoredFlow[]>('/api/v1/flows/?get_all=true').then(
      (list) => !stop && setFlows(list),
      () => !stop && setFlows([]),
    );
    return () => {
      stop = true;
    };
  }, [needsFlows]);

  const extent = floorExtent(room, trails.current);
  const floorHeight = useCallback((w: number) => floorHeightFor(w, extent), [extent.width, extent.depth]); // eslint-disable-line react-hooks/exhaustive-deps
  const cameraHeight = useCallback((w: number) => Math.min(560, (w * CAMERA_IMAGE.height) / CAMERA_IMAGE.width), []);
  const stripHeight = useCallback(() => 140, []);
  const floorSize = useCanvasSize(floorRef, floorHeight);
  const skeletonSize = useCanvasSize(skeletonRef, cameraHeight);
  const stripSize = useCanvasSize(stripRef, stripHeight);

  useEffect(() => {
    const floor = contextIn(floorRef.current, floorSize);
    if (floor && floorSize) drawFloor(floor, floorSize.width, floorSize.height, frame, room, trails.current, heat.current);
    const skeletons = contextIn(skeletonRef.current, skeletonSize);
    if (skeletons && skeletonSize) drawSkeletons(skeletons, skeletonSize.width, skeletonSize.height, frame, CAMERA_IMAGE);
    const strip = contextIn(stripRef.current, stripSize);
    if (strip && stripSize) drawActivityStrip(strip, stripSize.width, stripSize.height, samples.current, alerts, Date.now(), WINDOW_MS);
  }, [frame, room, alerts, floorSize, skeletonSize, stripSize]);

  const names = activityNames(samples.current);
  const source = frame ? `${frame.provenance} · model ${frame.model}${frame.modelHash ? ` (${frame.modelHash.slice(0, 12)})` : ''}` : '—';
  return (
    <div className="wf-live" data-testid="live-view" data-delivered-environments={delivered.join(',')}>
      <div className="wf-live-head" data-testid="live-head">
        <label className="wf-live-environment">
          environment{' '}
          <select data-testid="live-environment" value={environment ?? ALL_ENVIRONMENTS} onChange={(e) => choose(e.target.value)} title="Show one environment's frames, people, trails, occupancy and alerts (the server sends only those)">
            {offered.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
            <option value={ALL_ENVIRONMENTS}>all environments</option>
          </select>
        </label>
        <span data-testid="live-stream" data-state={connection === 'open' ? 'open' : connection === 'connecting' || connection === 'reconnecting' ? 'connecting' : 'closed'}>
          stream: {connection}
        </span>
        <span className="wf-live-source" data-testid="provenance" title={source}>
          source: {source}
        </span>
        <span data-testid="frames-seen" data-environment={frame?.environmentId ?? ''}>
          frames: {framesSeen}
        </span>
        <span data-testid="person-count" title={frame ? 'people in the latest pose frame' : 'no pose frame yet: a count needs an estimator that locates people (pose.locate); CSI sensing gives presence, not a count'}>
          people: {frame ? frame.persons.length : '—'}
        </span>
      </div>
      {silence ? <EnvironmentNotice silence={silence} onShowAll={() => choose(ALL_ENVIRONMENTS)} /> : null}
      <div className="wf-live-grid">
        <figure className="wf-card">
          <canvas ref={floorRef} data-testid="floor-canvas" />
          <figcaption data-testid="room-legend">
            {!environment && delivered.length > 1 ? (
              <>
                <strong data-testid="mixed-environments">{delivered.length} environments drawn together ({delivered.join(', ')}): their people, trails and counts mix; choose one above.</strong>
                <br />
              </>
            ) : null}
            {room ? (
              <>
                <strong>
                  {room.environment_id}: {room.width} × {room.depth} m
                </strong>{' '}
                · radios {room.radios.map((r) => `${r.id} (${r.role})`).join(', ') || 'none named'} · zones {room.zones.map((z) => z.name).join(', ') || 'none named'}
                <br />
                <span data-testid="people-now">
                  people now:{' '}
                  {frame?.persons.filter((p) => p.position).map((p) => `#${p.track ?? p.id ?? '?'} at (${p.position!.x.toFixed(1)}, ${p.position!.y.toFixed(1)}) m`).join(', ') || 'none located'}
                </span>
                <br />
                <span className="muted">
                  to scale, metres; ▲ transmitter, ■ receiver, dots are tracked people (#track id), lines their trails, orange the heat map. Geometry from {room.source}
                </span>
              </>
            ) : (
              <span className="muted">Room size unknown: no running pipeline names its geometry (a simulator scenario or a pose node's environments). Metres; people, trails and heat map only.</span>
            )}
          </figcaption>
        </figure>
        <figure className="wf-card">
          <canvas ref={skeletonRef} data-testid="skeleton-canvas" />
          <figcaption>Skeletons in the environment's virtual camera, coloured by track — {frame?.provenance ?? 'no data yet'}</figcaption>
        </figure>
        <figure className="wf-card wf-wide">
          <canvas ref={stripRef} data-testid="occupancy-chart" />
          <figcaption data-testid="activity-legend">
            Last 5 minutes: people per frame (line)
            {names.length ? (
              <>
                , activities the frames carry:{' '}
                {names.map((n) => (
                  <span key={n} className="wf-swatch">
                    <i style={{ background: activityColor(names, n) }} />
                    {n}
                  </span>
                ))}
              </>
            ) : (
              <span data-testid="no-activity"> · no activity data: the frames so far carry no activity labels</span>
            )}
            {alerts.length ? `, alerts (red): ${alerts.length}` : ' · no alerts'}
          </figcaption>
        </figure>
        {sensed.length ? (
          <section className="wf-card wf-wide" data-testid="sensing-panel">
            <h3>Sensing from CSI</h3>
            {sensed.map((s) => (
              <div key={s.environment_id} data-testid={`sensing-${s.environment_id}`} data-presence={String(s.presence)} data-state={s.state}>
                <strong>{s.environment_id}</strong> · {describeSensing(s)} · {new Date(s.timestamp).toLocaleTimeString()}
                <SensingStrip environment={s.environment_id} history={sensingHistory.current.get(s.environment_id) ?? []} />
                <span className="muted">
                  source: {s.source.provenance} · {s.source.estimator_id} ({s.source.config_hash.slice(0, 12)}); presence, motion and breathing of the room from its links, not a count of people
                </span>
              </div>
            ))}
          </section>
        ) : null}
        <section className="wf-card wf-wide wf-alerts" data-testid="alerts-panel">
          <h3>Alerts</h3>
          {alerts.length === 0 ? <p className="muted">None yet.</p> : null}
          {alerts.map((a) => (
            <div key={a.alert_id} className={`wf-alert sev-${a.severity}`}>
              <strong>{a.alert_type}</strong> · {a.severity} · {new Date(a.timestamp).toLocaleTimeString()}
              {a.message ? ` · ${a.message}` : ''}
            </div>
          ))}
        </section>
      </div>
    </div>
  );
}

/**
 * A room's last WINDOW_MS of sensing: a bar per second (height = motion, colour = state), grey where the
 * server skipped seconds for this connection, red at falls; the line under it sums the window.
 */
function SensingStrip({ environment, history }: { environment: string; history: SensingSample[] }) {
  const summary = summarizeSensing(history);
  const bars = sensingStripBars(history, WINDOW_MS);
  const width = 600;
  const height = 36;
  return (
    <div className="wf-sensing-history">
      <svg data-testid={`sensing-strip-${environment}`} data-seconds={summary.seconds} viewBox={`0 0 ${width} ${height}`} width="100%" height={height} preserveAspectRatio="none" role="img" aria-label={`sensing of ${environment} over the last ${WINDOW_MS / 60_000} minutes`}>
        <rect x={0} y={0} width={width} height={height} fill="#fff" stroke="#e5e7eb" />
        {bars.map((b, i) => (
          <rect key={i} data-kind={b.kind} x={b.x * width} y={height - b.height * height} width={Math.max(b.width * width, 1)} height={b.height * height} fill={b.colour} opacity={b.kind === 'fall' ? 0.9 : 1} />
        ))}
      </svg>
      <span data-testid={`sensing-history-${environment}`}>
        {describeSensingHistory(summary, WINDOW_MS)}
      </span>
      <span className="muted">
        {' '}(bars: motion each second; {Object.entries(STATE_COLOURS).map(([state, colour], i) => (
          <span key={state}>{i ? ', ' : ''}<span style={{ color: colour }}>■</span> {state}</span>
        ))}, <span style={{ color: '#dc2626' }}>■</span> fall)
      </span>
    </div>
  );
}
