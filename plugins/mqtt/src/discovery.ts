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

/** The HA device and availability fields every config of one environment shares. */
function deviceFields(layout: TopicLayout, environmentId: string, settings: DiscoverySettings) {
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
  return { base, common };
}

/**
 * Discovery configs of the CSI sensing entities of one environment (announced once its first room sensing
 * frame arrives): presence (`binary_sensor`, occupancy class, a still person counts), motion (0–100 %) and
 * breathing rate (breaths/min; unknown while there is none). All read the retained `<prefix>/<env>/sensing`.
 */
export function sensingDiscoveryMessages(layout: TopicLayout, environmentId: string, settings: DiscoverySettings): DiscoveryMessage[] {
  const { base, common } = deviceFields(layout, environmentId, settings);
  const state_topic = layout.sensing(environmentId);
  return [
    {
      topic: `${settings.prefix}/binary_sensor/${base}_presence/config`,
      payload: { ...common, name: 'Presence', unique_id: `${base}_presence`, state_topic, value_template: "{{ 'ON' if value_json.presence else 'OFF' }}", payload_on: 'ON', payload_off: 'OFF', device_class: 'occupancy', json_attributes_topic: state_topic, json_attributes_template: '{{ {"state": value_json.state, "activity": value_json.activity} | tojson }}' },
    },
    {
      topic: `${settings.prefix}/sensor/${base}_motion/config`,
      payload: { ...common, name: 'Motion', unique_id: `${base}_motion`, state_topic, value_template: '{{ (value_json.motion * 100) | round(0) }}', unit_of_measurement: '%', state_class: 'measurement', icon: 'mdi:motion-sensor' },
    },
    {
      topic: `${settings.prefix}/sensor/${base}_breathing/config`,
      payload: { ...common, name: 'Breathing rate', unique_id: `${base}_breathing`, state_topic, value_template: '{{ value_json.breathing_bpm if value_json.breathing_bpm is not none else None }}', unit_of_measurement: 'breaths/min', state_class: 'measurement', icon: 'mdi:lungs', json_attributes_topic: state_topic, json_attributes_template: '{{ {"reason": value_json.breathing_reason} | tojson }}' },
    },
  ];
}

/**
 * Discovery config messages for one environment: a `sensor` for occupancy and two
 * `binary_sensor`s (fall detected, any alert). They share one HA device per environment and
 * the client's availability topic (its last will says offline).
 */
export function discoveryMessages(layout: TopicLayout, environmentId: string, settings: DiscoverySettings): DiscoveryMessage[] {
  const { base, common } = deviceFields(layout, environmentId, settings);
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
