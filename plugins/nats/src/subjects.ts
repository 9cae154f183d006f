/** Subject names of the wiflow streams (ARCHITECTURE §5). */
export const Subjects = {
  csi: (environment: string, link: string) => `csi.${token(environment)}.${token(link)}`,
  pose: (environment: string) => `pose.${token(environment)}`,
  alerts: (environment: string) => `alerts.${token(environment)}`,
  sensing: (environment: string) => `sensing.${token(environment)}`,
} as const;

/** JetStream streams wiflow creates when missing: name → subjects. */
export const Streams: Record<string, string[]> = {
  WIFLOW_CSI: ['csi.>'],
  WIFLOW_POSE: ['pose.>'],
  WIFLOW_ALERTS: ['alerts.>'],
  WIFLOW_SENSING: ['sensing.>'],
};

/** The kinds of stream, by the first token of their subjects. */
export type StreamKind = 'csi' | 'pose' | 'alerts' | 'sensing';

/** Which kind a wiflow stream is (its retention settings are configured per kind). */
export function streamKind(stream: string): StreamKind {
  const head = Streams[stream]?.[0]?.split('.')[0];
  if (head !== 'csi' && head !== 'pose' && head !== 'alerts' && head !== 'sensing') throw new Error(`${stream} is not a wiflow stream`);
  return head;
}

/** Make a string safe as one subject token (no dots, wildcards or spaces). */
export function token(value: string): string {
  return value.replace(/[.*>\s]/g, '_') || '_';
}

/**
 * Fill a subject template: `{environment}`, `{link}` and `{field.path}` are read from the
 * value (`environmentId`, `link.tx-link.rx`, any dotted field).
 */
export function fillSubject(template: string, value: unknown): string {
  return template.replace(/\{([a-zA-Z0-9_.]+)\}/g, (_m, name: string) => {
    const v = value as Record<string, unknown> & { environmentId?: string; link?: { tx: string; rx: string } };
    if (name === 'environment') return token(String(v?.environmentId ?? (v as { environment_id?: string })?.environment_id ?? 'default'));
    if (name === 'link') return token(v?.link ? `${v.link.tx}-${v.link.rx}` : 'link');
    let cur: unknown = v;
    for (const part of name.split('.')) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
    return token(String(cur ?? '_'));
  });
}

/** The stream that holds a subject, or undefined. */
export function streamFor(subject: string): string | undefined {
  const head = subject.split('.')[0];
  return Object.entries(Streams).find(([, subjects]) => subjects.some((s) => s.split('.')[0] === head))?.[0];
}

/**
 * Fill a message-id template like `fillSubject`, but refuse a field the value lacks: a
 * missing field would give every message the same id and JetStream would drop all but the first.
 */
export function fillMessageId(template: string, value: unknown): string {
  for (const [, name] of template.matchAll(/\{([a-zA-Z0-9_.]+)\}/g)) {
    if (name === 'environment' || name === 'link') continue;
    let cur: unknown = value;
    for (const part of name.split('.')) cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[part] : undefined;
    if (cur === undefined || cur === null) throw new Error(`message id template ${template}: the value has no field ${name}`);
  }
  return fillSubject(template, value);
}
