import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import mqtt, { type IClientOptions, type MqttClient } from 'mqtt';
import { scrubUrlPasswords, type Logger } from '@wiflow/core';
import { MqttErrors } from './errors.js';
import { checkTopicPrefix, TopicLayout } from './topics.js';

/** How to reach a broker and how the shared client behaves. */
export interface BrokerSettings {
  /** mqtt://, mqtts://, tcp://, ssl://, ws:// or wss:// URL. */
  url: string;
  username?: string;
  password?: string;
  /** MQTT client id; a random `wiflow_<hex>` when absent. */
  clientId?: string;
  /** First topic level(s) of every topic, e.g. `wiflow`. */
  topicPrefix: string;
  /** Wait between reconnect attempts (mqtt.js reconnectPeriod). */
  reconnectPeriodMs: number;
  connectTimeoutMs: number;
  keepaliveSeconds: number;
  /** Messages kept while offline or while too many publishes are in flight; the oldest go first. */
  bufferSize: number;
  /** Publishes awaiting their broker acknowledgement (or socket write, QoS 0) before new ones are buffered. */
  maxInFlight: number;
}

/** QoS and retain flag of one publish. */
export interface PublishOptions {
  qos: 0 | 1 | 2;
  retain?: boolean;
  /** 'low' messages (pose frames) are dropped first when the buffer is full. */
  priority?: 'high' | 'low';
}

/** Live figures of one shared connection. */
export interface ConnectionStats {
  url: string;
  clientId: string;
  connected: boolean;
  /** Nodes holding the connection. */
  users: number;
  /** Publishes acknowledged by the broker (QoS 1/2) or written to the socket (QoS 0). */
  published: number;
  /** Publishes mqtt.js reported as failed. */
  failed: number;
  /** Messages dropped because the buffer was full (the oldest, pose frames first). */
  dropped: number;
  /** Messages buffered now. */
  buffered: number;
  /** Publishes in flight now. */
  inFlight: number;
  /** Successful connections (the first one included). */
  connects: number;
  /** Reconnect attempts mqtt.js made. */
  reconnectAttempts: number;
  /** Times an established connection went down. */
  disconnects: number;
  /** Retained topics the connection republishes on every (re)connect. */
  retainedTopics: number;
  lastError: string | null;
}

interface Pending {
  topic: string;
  payload: string;
  qos: 0 | 1 | 2;
  retain: boolean;
}

/** A FIFO with O(1) shift (head index, compacted now and then). */
class Fifo<T> {
  #items: T[] = [];
  #head = 0;
  get length(): number {
    return this.#items.length - this.#head;
  }
  push(item: T): void {
    this.#items.push(item);
  }
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head++];
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }
  clear(): number {
    const n = this.length;
    this.#items = [];
    this.#head = 0;
    return n;
  }
}

const PROTOCOLS = new Set(['mqtt:', 'mqtts:', 'tcp:', 'ssl:', 'ws:', 'wss:']);

/** Validate broker settings; throws MqttErrors.invalidSettings. */
export function checkBrokerSettings(settings: BrokerSettings): void {
  let url: URL;
  try {
    url = new URL(settings.url);
  } catch {
    throw MqttErrors.invalidSettings(`url ${JSON.stringify(scrubUrlPasswords(settings.url))} is not a URL`);
  }
  if (!PROTOCOLS.has(url.protocol)) throw MqttErrors.invalidSettings(`url protocol ${url.protocol} is not one of ${[...PROTOCOLS].join(', ')}`);
  const prefixProblem = checkTopicPrefix(settings.topicPrefix);
  if (prefixProblem) throw MqttErrors.invalidSettings(`topicPrefix ${prefixProblem}`);
  if (settings.password && !settings.username) throw MqttErrors.invalidSettings('a password needs a username');
}

/** The key under which nodes share one client: same broker, credentials, client id and prefix. */
export function connectionKey(settings: BrokerSettings): string {
  const secret = settings.password ? createHash('sha256').update(settings.password).digest('hex').slice(0, 16) : '';
  return JSON.stringify([settings.url, settings.username ?? '', secret, settings.clientId ?? '', settings.topicPrefix]);
}

/**
 * One mqtt.js client shared by every node with the same broker settings. It keeps the
 * latest payload of every retained topic and republishes them on each (re)connect, so the
 * retained state survives a broker restart without persistence. While offline (or while
 * `maxInFlight` publishes await acknowledgement) messages wait in a bounded buffer; when it
 * is full the oldest pose frames are dropped first, and every drop is counted.
 */
export class MqttConnection extends EventEmitter {
  readonly key: string;
  readonly layout: TopicLayout;
  readonly client: MqttClient;
  readonly clientId: string;
  readonly #settings: BrokerSettings;
  readonly #logger: Logger;
  readonly #retained = new Map<string, { payload: string; qos: 0 | 1 | 2 }>();
  readonly #high = new Fifo<Pending>();
  readonly #low = new Fifo<Pending>();
  readonly #homeAssistantStatus = new Set<string>();
  readonly #drainWaiters: (() => void)[] = [];
  #users = 0;
  #inFlight = 0;
  #closed = false;
  #published = 0;
  #failed = 0;
  #dropped = 0;
  #connects = 0;
  #reconnectAttempts = 0;
  #disconnects = 0;
  #lastError: string | null = null;
  #wasConnected = false;
  #loggedErrors = new Set<string>();

  constructor(settings: BrokerSettings, logger: Logger) {
    super();
    checkBrokerSettings(settings);
    this.key = connectionKey(settings);
    this.#settings = settings;
    this.#logger = logger;
    this.layout = new TopicLayout(settings.topicPrefix);
    this.clientId = settings.clientId || `wiflow_${randomBytes(5).toString('hex')}`;
    const options: IClientOptions = {
      clientId: this.clientId,
      username: settings.username || undefined,
      password: settings.password || undefined,
      reconnectPeriod: settings.reconnectPeriodMs,
      connectTimeout: settings.connectTimeoutMs,
      keepalive: settings.keepaliveSeconds,
      clean: true,
      // QoS 0 publishes are never queued by mqtt.js while offline: this class buffers (bounded).
      queueQoSZero: false,
      will: { topic: this.layout.availability(), payload: Buffer.from('offline'), qos: 1, retain: true },
    };
    this.client = mqtt.connect(settings.url, options);
    this.client.on('connect', () => this.#onConnect());
    this.client.on('reconnect', () => {
      this.#reconnectAttempts++;
    });
    this.client.on('close', () => {
      if (this.#wasConnected) this.#disconnects++;
      this.#wasConnected = false;
    });
    this.client.on('error', (error) => this.#onError(error));
    this.client.on('message', (topic, payload) => {
      if (this.#homeAssistantStatus.has(topic) && payload.toString() === 'online') this.#republishRetained();
    });
  }

  /** Whether the client is connected now. */
  get connected(): boolean {
    return this.client.connected;
  }

  /** Count a node as a user. */
  addUser(): void {
    this.#users++;
  }

  /** Remove a user; returns how many remain. */
  removeUser(): number {
    this.#users = Math.max(0, this.#users - 1);
    return this.#users;
  }

  /**
   * Publish a message. Retained messages also become the topic's remembered state; while
   * offline only that state is kept for them (it is republished on connect).
   */
  publish(topic: string, payload: string, options: PublishOptions): void {
    if (this.#closed) {
      this.#dropped++;
      return;
    }
    const retain = options.retain ?? false;
    if (retain) this.#retained.set(topic, { payload, qos: options.qos });
    const message: Pending = { topic, payload, qos: options.qos, retain };
    if (this.client.connected && this.#high.length === 0 && this.#low.length === 0 && this.#inFlight < this.#settings.maxInFlight) {
      this.#send(message);
      return;
    }
    if (retain && !this.client.connected) return;
    (options.priority === 'low' ? this.#low : this.#high).push(message);
    if (this.#high.length + this.#low.length > this.#settings.bufferSize) {
      (this.#low.length > 0 ? this.#low : this.#high).shift();
      this.#dropped++;
    }
  }

  /** Remember retained state without sending it now if it is already the latest (e.g. discovery configs). */
  retain(topic: string, payload: string, qos: 0 | 1 | 2): void {
    const known = this.#retained.get(topic);
    if (known && known.payload === payload && known.qos === qos) return;
    this.publish(topic, payload, { qos, retain: true });
  }

  /** Republish retained state whenever Home Assistant announces itself on `<prefix>/status`. */
  watchHomeAssistant(discoveryPrefix: string): void {
    const topic = `${discoveryPrefix}/status`;
    if (this.#homeAssistantStatus.has(topic)) return;
    this.#homeAssistantStatus.add(topic);
    if (this.client.connected) this.#subscribeHomeAssistant([topic]);
  }

  #subscribeHomeAssistant(topics: string[]): void {
    this.client.subscribe(topics, { qos: 1 }, (error) => {
      if (error) this.#onError(error);
      else this.emit('watching', topics);
    });
  }

  /** Resolve once nothing is buffered or in flight (true), or after `timeoutMs` (false). */
  async drain(timeoutMs: number): Promise<boolean> {
    if (this.#idle()) return true;
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      new Promise<boolean>((resolve) => this.#drainWaiters.push(() => resolve(true))),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    return drained;
  }

  /** Live figures. */
  stats(): ConnectionStats {
    return {
      url: scrubUrlPasswords(this.#settings.url),
      clientId: this.clientId,
      connected: this.client.connected,
      users: this.#users,
      published: this.#published,
      failed: this.#failed,
      dropped: this.#dropped,
      buffered: this.#high.length + this.#low.length,
      inFlight: this.#inFlight,
      connects: this.#connects,
      reconnectAttempts: this.#reconnectAttempts,
      disconnects: this.#disconnects,
      retainedTopics: this.#retained.size,
      lastError: this.#lastError,
    };
  }

  /** Say offline (retained) when connected, then disconnect; buffered messages are dropped and counted. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.client.connected) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 1000);
        this.client.publish(this.layout.availability(), 'offline', { qos: 1, retain: true }, () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.#dropped += this.#high.clear() + this.#low.clear();
    // A graceful end waits for in-flight acknowledgements; a broker that stops answering
    // must not hold the shutdown, so force the end after a second.
    let timer: NodeJS.Timeout | undefined;
    const graceful = this.client.endAsync(!this.client.connected).then(() => true, () => true);
    const ended = await Promise.race([graceful, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 1000)))]);
    clearTimeout(timer);
    if (!ended) await this.client.endAsync(true).catch(() => undefined);
    for (const wake of this.#drainWaiters.splice(0)) wake();
  }

  #idle(): boolean {
    return this.#inFlight === 0 && this.#high.length === 0 && this.#low.length === 0;
  }

  #send(message: Pending): void {
    this.#inFlight++;
    this.client.publish(message.topic, message.payload, { qos: message.qos, retain: message.retain }, (error) => {
      this.#inFlight--;
      if (error) {
        this.#failed++;
        this.#onError(error);
      } else {
        this.#published++;
      }
      this.#pump();
    });
  }

  #pump(): void {
    while (this.client.connected && this.#inFlight < this.#settings.maxInFlight) {
      const next = this.#high.shift() ?? this.#low.shift();
      if (!next) break;
      this.#send(next);
    }
    if (this.#idle()) for (const wake of this.#drainWaiters.splice(0)) wake();
  }

  #republishRetained(): void {
    for (const [topic, { payload, qos }] of this.#retained) this.#send({ topic, payload, qos, retain: true });
  }

  #onConnect(): void {
    this.#connects++;
    this.#wasConnected = true;
    this.#lastError = null;
    this.#loggedErrors.clear();
    if (this.#connects > 1) this.#logger.info('mqtt reconnected', { url: this.#settings.url, clientId: this.clientId, attempts: this.#reconnectAttempts });
    this.#send({ topic: this.layout.availability(), payload: 'online', qos: 1, retain: true });
    if (this.#homeAssistantStatus.size > 0) this.#subscribeHomeAssistant([...this.#homeAssistantStatus]);
    this.#republishRetained();
    this.#pump();
    this.emit('connect');
  }

  #onError(error: Error): void {
    this.#lastError = error.message;
    // One log line per distinct error per connection: a broker that is down must not flood the log.
    if (this.#loggedErrors.has(error.message)) return;
    this.#loggedErrors.add(error.message);
    this.#logger.warn('mqtt client error', { url: this.#settings.url, clientId: this.clientId, error: error.message });
  }
}
