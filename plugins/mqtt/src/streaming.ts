import { z } from 'zod';
import type { ConfigStore } from '@wiflow/core';

/**
 * The `streaming` config section: the spec's switches (pose service Configuration,
 * convention A: `streaming.{restream_enabled, websocket_enabled, mqtt_enabled}`).
 * plugin-mqtt honours `mqtt_enabled`; `websocket_enabled` belongs to the pose API.
 */
export const StreamingConfigSchema = z
  .object({
    mqtt_enabled: z.boolean().default(true).describe('Whether mqtt.publish nodes publish (off: they count and skip every message)'),
    websocket_enabled: z.boolean().default(true).describe('Whether /ws/pose streams (honoured by the pose API)'),
    restream_enabled: z.boolean().default(false).describe('Whether the pose stream is restreamed (honoured by the pose API)'),
  })
  .prefault({});

/** Parsed `streaming` section. */
export type StreamingConfig = z.output<typeof StreamingConfigSchema>;

/**
 * Whether MQTT publishing is on. The pose API keeps the spec's Configuration object in its
 * `pose` section (`pose.streaming.mqtt_enabled`, edited through PUT /api/v1/config); when that
 * section holds the switch it decides, otherwise the top-level `streaming` section does.
 */
export function isMqttEnabled(config: ConfigStore): boolean {
  const pose = config.get<{ streaming?: { mqtt_enabled?: unknown } } | undefined>('pose');
  const fromPose = pose?.streaming?.mqtt_enabled;
  if (typeof fromPose === 'boolean') return fromPose;
  const streaming = config.get<StreamingConfig | undefined>('streaming');
  return streaming?.mqtt_enabled ?? true;
}
