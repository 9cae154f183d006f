import { z } from 'zod';
import type { Convention } from '../config.js';
import { PoseConfigSchema, PrivacyConfigSchema } from '../config.js';

/** One configuration field: its canonical path (config section first) and its path in each convention. */
interface FieldMap {
  canonical: string;
  A: string | null;
  B: string | null;
  /** A convention-specific leaf schema (else the canonical one). */
  override?: z.ZodType;
}

/** Every field of the spec's Configuration object and where it lives in the runtime config. */
export const CONFIG_FIELDS: FieldMap[] = [
  { canonical: 'pose.domain', A: 'domain', B: 'domain' },
  { canonical: 'pose.environment.id', A: 'environment.id', B: 'environment_id' },
  { canonical: 'pose.environment.name', A: 'environment.name', B: null },
  { canonical: 'pose.environment.calibration_timestamp', A: 'environment.calibration_timestamp', B: null },
  { canonical: 'pose.detection.confidence_threshold', A: 'detection.confidence_threshold', B: 'detection.confidence_threshold' },
  { canonical: 'pose.detection.max_persons', A: 'detection.max_persons', B: 'detection.max_persons' },
  { canonical: 'pose.detection.tracking_enabled', A: 'detection.tracking_enabled', B: 'detection.enable_tracking' },
  { canonical: 'pose.detection.tracking_max_age', A: null, B: 'detection.tracking_max_age' },
  { canonical: 'pose.detection.tracking_min_hits', A: null, B: 'detection.tracking_min_hits' },
  { canonical: 'pose.alerts.fall_detection.enabled', A: 'alerts.fall_detection.enabled', B: 'analytics.enable_fall_detection' },
  { canonical: 'pose.alerts.fall_detection.sensitivity', A: 'alerts.fall_detection.sensitivity', B: null },
  { canonical: 'pose.alerts.fall_detection.notification_delay_seconds', A: 'alerts.fall_detection.notification_delay_seconds', B: null },
  { canonical: 'pose.alerts.inactivity_detection.enabled', A: 'alerts.inactivity_detection.enabled', B: null },
  {
    canonical: 'pose.alerts.inactivity_detection.threshold_minutes',
    A: 'alerts.inactivity_detection.threshold_minutes',
    B: 'analytics.alert_thresholds.inactivity_timeout',
    override: z.number().int().positive().max(1440).describe('Minutes without movement before an inactivity alert'),
  },
  { canonical: 'pose.alerts.fall_confidence', A: null, B: 'analytics.alert_thresholds.fall_confidence' },
  { canonical: 'pose.streaming.restream_enabled', A: 'streaming.restream_enabled', B: null },
  { canonical: 'pose.streaming.websocket_enabled', A: 'streaming.websocket_enabled', B: null },
  { canonical: 'pose.streaming.mqtt_enabled', A: 'streaming.mqtt_enabled', B: null },
  { canonical: 'pose.neural_network.model_version', A: null, B: 'neural_network.model_version' },
  { canonical: 'pose.neural_network.batch_size', A: null, B: 'neural_network.batch_size' },
  { canonical: 'pose.neural_network.enable_gpu', A: null, B: 'neural_network.enable_gpu' },
  { canonical: 'pose.neural_network.inference_timeout', A: null, B: 'neural_network.inference_timeout' },
  { canonical: 'pose.hardware.csi_sampling_rate', A: null, B: 'hardware.csi_sampling_rate' },
  { canonical: 'pose.hardware.buffer_size', A: null, B: 'hardware.buffer_size' },
  { canonical: 'pose.hardware.antenna_count', A: null, B: 'hardware.antenna_count' },
  { canonical: 'pose.hardware.subcarrier_count', A: null, B: 'hardware.subcarrier_count' },
  { canonical: 'pose.analytics.enable_activity_recognition', A: null, B: 'analytics.enable_activity_recognition' },
  { canonical: 'privacy.dataRetentionDays', A: null, B: 'privacy.data_retention_days' },
  { canonical: 'privacy.anonymizeData', A: null, B: 'privacy.anonymize_data' },
  { canonical: 'privacy.enableEncryption', A: null, B: 'privacy.enable_encryption' },
];

type Def = { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType>; in?: z.ZodType; out?: z.ZodType };

/** Strip default/prefault/optional wrappers and key-renaming preprocess steps (a pipe's output schema). */
function unwrap(schema: z.ZodType): z.ZodType {
  let cur = schema;
  for (;;) {
    const def = (cur as unknown as { _zod: { def: Def } })._zod.def;
    if ((def.type === 'default' || def.type === 'prefault' || def.type === 'optional' || def.type === 'nullable') && def.innerType) {
      if (def.type === 'nullable') return cur;
      cur = def.innerType;
    } else if (def.type === 'pipe' && def.out) cur = def.out;
    else return cur;
  }
}

/** The canonical leaf schema at a dotted path (without its default). */
export function canonicalLeaf(canonical: string): z.ZodType {
  const [section, ...rest] = canonical.split('.');
  let cur: z.ZodType = section === 'pose' ? PoseConfigSchema : PrivacyConfigSchema;
  for (const key of rest) {
    const object = unwrap(cur) as z.ZodObject;
    cur = object.shape[key] as z.ZodType;
  }
  const leaf = unwrap(cur);
  const description = cur.description ?? leaf.description;
  return description ? leaf.describe(description) : leaf;
}

type Tree = { [key: string]: Tree | z.ZodType };

function toSchema(tree: Tree, partial: boolean): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, node] of Object.entries(tree)) {
    const schema = node instanceof z.ZodType ? node : toSchema(node as Tree, partial);
    shape[key] = partial ? schema.optional() : schema;
  }
  return z.object(shape).strict();
}

/** The Configuration object of a convention, as one zod schema built from the canonical leaves. */
export function configViewSchema(convention: Convention, partial: boolean): z.ZodObject {
  const tree: Tree = {};
  for (const field of CONFIG_FIELDS) {
    const where = field[convention];
    if (!where) continue;
    const parts = where.split('.');
    let node = tree;
    for (const part of parts.slice(0, -1)) node = (node[part] ??= {}) as Tree;
    node[parts[parts.length - 1]] = field.override ?? canonicalLeaf(field.canonical);
  }
  return toSchema(tree, partial);
}

function getPath(obj: unknown, dotted: string): unknown {
  let cur = obj;
  for (const part of dotted.split('.')) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
  return cur;
}

function setPath(obj: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) cur = (cur[part] ??= {}) as Record<string, unknown>;
  cur[parts[parts.length - 1]] = value;
}

/** The Configuration object of a convention from the runtime config sections. */
export function configView(sections: { pose: unknown; privacy: unknown }, convention: Convention): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of CONFIG_FIELDS) {
    const where = field[convention];
    if (where) setPath(out, where, getPath(sections, field.canonical));
  }
  return out;
}

/** Leaves of a nested object as dotted paths. */
function leaves(obj: Record<string, unknown>, prefix = ''): [string, unknown][] {
  return Object.entries(obj).flatMap(([k, v]) => {
    const path = prefix ? `${prefix}.${k}` : k;
    return v && typeof v === 'object' && !Array.isArray(v) ? leaves(v as Record<string, unknown>, path) : [[path, v] as [string, unknown]];
  });
}

/** A validated partial body (convention shape) → patches of the config sections. */
export function toCanonicalPatch(body: Record<string, unknown>, convention: Convention): { pose?: Record<string, unknown>; privacy?: Record<string, unknown> } {
  const patch: Record<string, Record<string, unknown>> = {};
  for (const [path, value] of leaves(body)) {
    const field = CONFIG_FIELDS.find((f) => f[convention] === path);
    if (!field) continue;
    const [section, ...rest] = field.canonical.split('.');
    setPath((patch[section] ??= {}), rest.join('.'), value);
  }
  return patch;
}

/** A canonical changed path ('pose.detection.max_persons') → the convention's path, or null when not shown in it. */
export function toConventionPath(canonical: string, convention: Convention): string | null {
  return CONFIG_FIELDS.find((f) => f.canonical === canonical)?.[convention] ?? null;
}
