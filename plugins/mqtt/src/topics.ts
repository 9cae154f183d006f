/**
 * Topic layout of plugin-mqtt (documented in docs/transports.md). Every topic starts with
 * the configured prefix and, for environment data, the environment id as one topic level.
 */

/** Make a string safe as one MQTT topic level: anything but letters, digits, `_`, `-` and `.` becomes `_`. */
export function topicLevel(value: string): string {
  const cleaned = value.replace(/[^A-Za-z0-9_.-]/g, '_');
  return cleaned.length > 0 ? cleaned : '_';
}

/** Check a topic prefix: one or more levels, no wildcards, no empty level, no leading `$`. */
export function checkTopicPrefix(prefix: string): string | null {
  if (prefix.length === 0) return 'must not be empty';
  if (/[+#\u0000]/.test(prefix)) return 'must not contain +, # or NUL';
  if (prefix.startsWith('$')) return 'must not start with $ (reserved for broker topics)';
  if (prefix.split('/').some((level) => level.length === 0)) return 'must not have empty levels (leading, trailing or double /)';
  return null;
}

/** The topics of one prefix. */
export class TopicLayout {
  constructor(readonly prefix: string) {}

  /** Availability of the wiflow client (retained online/offline, offline is the last will). */
  availability(): string {
    return `${this.prefix}/availability`;
  }

  /** Every pose frame (or its summary), not retained. */
  pose(environmentId: string): string {
    return `${this.prefix}/${topicLevel(environmentId)}/pose`;
  }

  /** Latest pose summary, retained. */
  poseSummary(environmentId: string): string {
    return `${this.prefix}/${topicLevel(environmentId)}/pose/summary`;
  }

  /** Current occupancy, retained. */
  occupancy(environmentId: string): string {
    return `${this.prefix}/${topicLevel(environmentId)}/occupancy`;
  }

  /** Analytics events of one type, not retained. */
  event(environmentId: string, type: string): string {
    return `${this.prefix}/${topicLevel(environmentId)}/events/${topicLevel(type)}`;
  }

  /** Alerts, not retained. */
  alerts(environmentId: string): string {
    return `${this.prefix}/${topicLevel(environmentId)}/alerts`;
  }

  /** Latest alert, retained. */
  latestAlert(environmentId: string): string {
    return `${this.prefix}/${topicLevel(environmentId)}/alerts/latest`;
  }

  /** Latest room sensing state from CSI (`sense.room`), retained. */
  sensing(environmentId: string): string {
    return `${this.prefix}/${topicLevel(environmentId)}/sensing`;
  }

  /** Latest sensing state of one link (`sense.link`), retained. */
  sensingLink(environmentId: string, tx: string, rx: string): string {
    return `${this.prefix}/${topicLevel(environmentId)}/sensing/${topicLevel(`${tx}_${rx}`)}`;
  }

  /** ON pulses of a Home Assistant binary sensor (`fall` or `alert`), not retained. */
  binaryState(environmentId: string, sensor: 'fall' | 'alert'): string {
    return `${this.prefix}/${topicLevel(environmentId)}/ha/${sensor}`;
  }
}
