import { serviceToken, type Logger } from '@wiflow/core';
import { MqttErrors } from './errors.js';
import { connectionKey, MqttConnection, type BrokerSettings, type ConnectionStats } from './mqtt-connection.js';

/** Tokens of the services plugin-mqtt registers. */
export const MqttTokens = Object.freeze({
  /** The MqttService: one shared client per broker connection settings. */
  Service: serviceToken<MqttService>('wiflow.mqtt.Service'),
});

/**
 * Shares one MQTT client per broker settings (url, credentials, client id, topic prefix)
 * between every node of every running flow; the client closes when its last user releases it.
 */
export class MqttService {
  readonly #connections = new Map<string, MqttConnection>();
  readonly #logger: Logger;
  #closed = false;

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Get (or open) the connection for these settings and count the caller as a user. */
  acquire(settings: BrokerSettings): MqttConnection {
    if (this.#closed) throw MqttErrors.serviceClosed();
    const key = connectionKey(settings);
    let connection = this.#connections.get(key);
    if (!connection) {
      connection = new MqttConnection(settings, this.#logger);
      this.#connections.set(key, connection);
    }
    connection.addUser();
    return connection;
  }

  /** Stop using a connection; the last user closes it (availability goes offline). */
  async release(connection: MqttConnection): Promise<void> {
    if (connection.removeUser() > 0) return;
    if (this.#connections.get(connection.key) === connection) this.#connections.delete(connection.key);
    await connection.close();
  }

  /** Every open connection. */
  connections(): MqttConnection[] {
    return [...this.#connections.values()];
  }

  /** Figures of every open connection. */
  stats(): ConnectionStats[] {
    return [...this.#connections.values()].map((c) => c.stats());
  }

  /** Close every connection (runtime stopping). */
  async close(): Promise<void> {
    this.#closed = true;
    const all = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}
