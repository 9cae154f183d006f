import { defineError } from '@wiflow/core';

/** Every error plugin-mqtt raises, one place (codes are never reused). */
export const MqttErrors = {
  /** A value on an input port is not the data type the port declares. */
  invalidInput: defineError('WIFLOW_MQTT_INVALID_INPUT', 400, (port: string, reason: string) => `mqtt.publish: the value on port ${port} is not valid: ${reason}`),
  /** Broker settings do not describe a usable connection. */
  invalidSettings: defineError('WIFLOW_MQTT_INVALID_SETTINGS', 422, (reason: string) => `mqtt: invalid broker settings: ${reason}`),
  /** The service was closed (runtime stopping) while a node still wanted a connection. */
  serviceClosed: defineError('WIFLOW_MQTT_SERVICE_CLOSED', 503, () => 'mqtt: the MQTT service is closed (runtime stopping)'),
} as const;

/** The documented error definitions, for docs and tests. */
export const mqttErrorCatalogue: { code: string; status: number }[] = Object.values(MqttErrors).map((e) => ({ code: e.code, status: e.status }));
