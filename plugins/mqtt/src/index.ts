// Public entry of @wiflow/plugin-mqtt: each export named on purpose.
import { definePlugin } from '@wiflow/core';
import { MqttService, MqttTokens } from './mqtt-service.js';
import { mqttPublishNode } from './publish-node.js';
import { StreamingSection } from './streaming.js';

const PLUGIN_NAME = '@wiflow/plugin-mqtt';

/** plugin-mqtt: the `mqtt.publish` node, the shared MqttService and the `streaming` switches. */
const mqttPlugin = definePlugin({
  name: PLUGIN_NAME,
  config: { streaming: StreamingSection.schema },
  setup(ctx) {
    // The service is created on first use; stopping closes it only if it exists.
    let service: MqttService | undefined;
    ctx.services.provide(MqttTokens.Service, () => (service = new MqttService(ctx.logger)));
    ctx.registerNode(mqttPublishNode);
    ctx.hooks.stop.tapPromise(PLUGIN_NAME, async () => {
      await service?.close();
    });
  },
});

export default mqttPlugin;
export { mqttPlugin };
export { mqttPublishNode, MqttPublishConfig } from './publish-node.js';
export { MqttService, MqttTokens } from './mqtt-service.js';
export { MqttConnection, checkBrokerSettings, connectionKey, type BrokerSettings, type PublishOptions, type ConnectionStats } from './mqtt-connection.js';
export { TopicLayout, topicLevel, checkTopicPrefix } from './topics.js';
export { discoveryMessages, isFallType, type DiscoverySettings, type DiscoveryMessage } from './discovery.js';
export { poseFrameToWire, poseSummaryToWire, occupancyToWire, eventToWire, alertToWire, personToWire, presentPersons } from './wire.js';
export { StreamingConfigSchema, StreamingSection, isMqttEnabled, type StreamingConfig } from './streaming.js';
export { MqttErrors, mqttErrorCatalogue } from './errors.js';
