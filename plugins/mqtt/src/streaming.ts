import { z } from 'zod';
import type { ConfigStore } from '@wiflow/core';

/**
 * The `streaming` config section: the spec's `mqtt_enabled` switch (pose service
 * Configuration, convention A: `streaming.mqtt_enabled`) for runtimes without the pose API.
 * `websocket_enabled` and `restream_enabled` belong to the pose API, which keeps the whole
 * Configuration object in its `pose` section (`pose.streaming.*`).
 */
export const StreamingConfigSchema = z
  .object({
    mqtt_enabled: z.boolean().default(true).describe('Whether mqtt.publish nodes publish (off: they count and skip every message); the pose API\'s pose.streaming.mqtt_enabled takes precedence when present'),
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
