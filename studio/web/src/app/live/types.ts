// What the live view reads from /ws/pose, in one shape for both API conventions.

/** A person of a pose frame. */
export interface LivePerson {
  id: number | null;
  track: number | null;
  confidence: number;
  keypoints: { name: string; x: number; y: number; confidence: number; visible: boolean }[];
  box: { x: number; y: number; width: number; height: number } | null;
  position: { x: number; y: number } | null;
  activity: string | null;
}

/** A pose frame. */
export interface LiveFrame {
  frameId: number;
  timestamp: string;
  environmentId: string | null;
  persons: LivePerson[];
  provenance: string;
  model: string;
  modelHash: string;
}

/** An alert of the alerts channel. */
export interface LiveAlert {
  alert_id: string;
  timestamp: string;
  alert_type: string;
  severity: string;
  message?: string;
}

/** One sample of the activity strip: people per frame and their activity labels. */
export interface ActivitySample {
  t: number;
  n: number;
  activities: Record<string, number>;
}

/** Track colours, by track id. */
export const COLORS = ['#e6194b', '#3cb44b', '#4363d8', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324', '#469990', '#800000'];

/** The colour of a person (by track, else id). */
export function colorOf(p: LivePerson): string {
  return COLORS[Math.abs(p.track ?? p.id ?? 0) % COLORS.length];
}

/** Read a pose_update in either convention into one shape. */
export function toFrame(msg: { data: { frame_id: number; environment_id?: string; persons: Record<string, unknown>[]; metadata: Record<string, unknown> }; timestamp: string }): LiveFrame {
  const m = msg.data.metadata ?? {};
  return {
    frameId: msg.data.frame_id,
    timestamp: msg.timestamp,
    environmentId: (msg.data.environment_id ?? (m.environment_id as string | undefined)) ?? null,
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
        box: (p.bounding_box as LivePerson['box']) ?? null,
        position: (p.position as LivePerson['position']) ?? null,
        activity: (p.activity as string | null) ?? null,
      };
    }),
  };
}

/** A room's (or link's) CSI sensing second, as the sensing_updates channel sends it (one record in both conventions). */
export interface LiveSensing {
  timestamp: string;
  environment_id: string;
  scope: 'room' | 'link';
  presence: boolean;
  state: string;
  motion: number;
  breathing_bpm: number | null;
  breathing_reason: string | null;
  activity: string | null;
  falls: { timestamp: string; confidence: number }[];
  source: { estimator_id: string; config_hash: string; provenance: string };
}

/** One line saying what the room's sensing reads now: presence, state, motion, breathing (or why none), activity. */
export function describeSensing(s: LiveSensing): string {
  const breathing = s.breathing_bpm !== null ? `breathing ${s.breathing_bpm.toFixed(1)} /min` : `no breathing rate (${s.breathing_reason ?? 'none'})`;
  return [s.presence ? 'someone present' : 'nobody present', s.state, `motion ${Math.round(s.motion * 100)} %`, breathing, s.activity ? `activity ${s.activity}` : null, s.falls.length ? `fall (${s.falls.length})` : null].filter(Boolean).join(' · ');
}
