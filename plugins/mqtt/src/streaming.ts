import { z } from 'zod';
import { configSection, type ConfigStore } from '@wiflow/core';

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
  const fromPose = config.read(PoseStreamingView)?.streaming?.mqtt_enabled;
  if (typeof fromPose === 'boolean') return fromPose;
  return config.read(StreamingSection).mqtt_enabled;
}

/** The `streaming` section this plugin declares, by name and schema. */
export const StreamingSection = configSection('streaming', StreamingConfigSchema);

/** `pose.streaming.mqtt_enabled`: the one key of the pose API's section read here (the pose API may be absent). */
const PoseStreamingView = configSection('pose', z.object({ streaming: z.object({ mqtt_enabled: z.unknown() }).loose().optional() }).loose().optional());
