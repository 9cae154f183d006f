import { topicLevel, type TopicLayout } from './topics.js';

/** Home Assistant MQTT discovery settings. */
export interface DiscoverySettings {
  /** HA's discovery prefix (HA default: `homeassistant`). */
  prefix: string;
  /** Seconds after an ON pulse before HA turns a binary sensor back off. */
  offDelaySeconds: number;
  /** wiflow's version, shown as the device's software version. */
  softwareVersion: string;
}

/** One retained discovery message. */
export interface DiscoveryMessage {
  topic: string;
  payload: Record<string, unknown>;
}

/**
 * Discovery config messages for one environment: a `sensor` for occupancy and two
 * `binary_sensor`s (fall detected, any alert). They share one HA device per environment and
 * the client's availability topic (its last will says offline).
 */
export function discoveryMessages(layout: TopicLayout, environmentId: string, settings: DiscoverySettings): DiscoveryMessage[] {
  const base = `${topicLevel(layout.prefix.replace(/\//g, '_'))}_${topicLevel(environmentId)}`;
  const device = {
    identifiers: [`wiflow_${base}`],
    name: `wiflow ${environmentId}`,
    manufacturer: 'wiflow',
    model: 'WiFi CSI sensing',
    sw_version: settings.softwareVersion,
  };
  const common = {
    availability_topic: layout.availability(),
    payload_available: 'online',
    payload_not_available: 'offline',
    device,
    origin: { name: 'wiflow', sw_version: settings.softwareVersion },
  };
  return [
    {
      topic: `${settings.prefix}/sensor/${base}_occupancy/config`,
      payload: {
        ...common,
        name: 'Occupancy',
        unique_id: `${base}_occupancy`,
        state_topic: layout.occupancy(environmentId),
        value_template: '{{ value_json.count }}',
        json_attributes_topic: layout.occupancy(environmentId),
        unit_of_measurement: 'persons',
        state_class: 'measurement',
        icon: 'mdi:account-group',
      },
    },
    {
      topic: `${settings.prefix}/binary_sensor/${base}_fall/config`,
      payload: {
        ...common,
        name: 'Fall detected',
        unique_id: `${base}_fall`,
        state_topic: layout.binaryState(environmentId, 'fall'),
        payload_on: 'ON',
        payload_off: 'OFF',
        off_delay: settings.offDelaySeconds,
        device_class: 'safety',
      },
    },
    {
      topic: `${settings.prefix}/binary_sensor/${base}_alert/config`,
      payload: {
        ...common,
        name: 'Alert',
        unique_id: `${base}_alert`,
        state_topic: layout.binaryState(environmentId, 'alert'),
        json_attributes_topic: layout.latestAlert(environmentId),
        payload_on: 'ON',
        payload_off: 'OFF',
        off_delay: settings.offDelaySeconds,
        device_class: 'problem',
      },
    },
  ];
}

/** Whether an alert or event type counts as a fall for the `fall` binary sensor. */
export function isFallType(type: string): boolean {
  return /fall/i.test(type);
}
