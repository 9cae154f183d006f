// A real mqtt.js subscriber that records what arrives and lets tests wait for it (no sleeps).
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
  readonly #waiters: { test: () => boolean; resolve: () => void }[] = [];

  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      this.messages.push({ topic, text: payload.toString(), retain: packet.retain, qos: packet.qos });
      for (const waiter of [...this.#waiters]) {
        if (waiter.test()) {
          this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
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
  async until(test: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    if (test()) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => this.#waiters.push({ test, resolve })),
      new Promise<void>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; got ${this.messages.length} messages: ${this.messages.slice(-8).map((m) => m.topic).join(', ')}`)), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
