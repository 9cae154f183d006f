// A real mqtt.js subscriber that records what arrives and lets tests wait for it (no sleeps).
import { ArrivalWaiters } from '@wiflow/core/testing';
import mqtt, { type MqttClient } from 'mqtt';

/** One received message. */
export interface Received {
  topic: string;
  text: string;
  retain: boolean;
  qos: number;
}

/** A subscribed client with its log of received messages. */
export class Subscriber {
  readonly messages: Received[] = [];
  readonly #waiters = new ArrivalWaiters();

  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      this.messages.push({ topic, text: payload.toString(), retain: packet.retain, qos: packet.qos });
      this.#waiters.arrived();
    });
  }

  /** Connect and subscribe to `topics` (QoS 2 so the publisher's QoS shows through). */
  static async connect(url: string, topics: string[], options: { reconnectPeriod?: number } = {}): Promise<Subscriber> {
    const client = await mqtt.connectAsync(url, { reconnectPeriod: options.reconnectPeriod ?? 0, clean: true, clientId: `sub_${Math.random().toString(16).slice(2, 10)}` });
    const subscriber = new Subscriber(client);
    await client.subscribeAsync(topics, { qos: 2 });
    return subscriber;
  }

  /** Messages on one topic. */
  on(topic: string): Received[] {
    return this.messages.filter((m) => m.topic === topic);
  }

  /** The JSON payloads on one topic. */
  json(topic: string): Record<string, unknown>[] {
    return this.on(topic).map((m) => JSON.parse(m.text) as Record<string, unknown>);
  }

  /** Resolve when `test` holds (checked now and on every message); reject after `timeoutMs` with `what`. */
  until(test: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    return this.#waiters.until(test, what, timeoutMs, () => `${this.messages.length} messages: ${this.messages.slice(-8).map((m) => m.topic).join(', ')}`);
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
