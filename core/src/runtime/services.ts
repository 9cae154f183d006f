import { CoreErrors } from '../errors.js';

/**
 * A typed service token: the one key a service is provided and reached by. `Symbol.for`
 * keeps two copies of a token (two installs of one plugin's package) the same key.
 */
export interface ServiceToken<T> {
  /** The registry key. */
  readonly key: symbol;
  /** What messages call the service, e.g. 'wiflow.mqtt.Service'. */
  readonly name: string;
  /** Carries `T` for the type checker only; never set. */
  readonly __service?: T;
}

/** Declare a service token; `name` should be unique, e.g. 'wiflow.tracker.Service'. */
export function serviceToken<T>(name: string): ServiceToken<T> {
  return Object.freeze({ key: Symbol.for(name), name });
}

/** Reach services by token (what nodes and plugins get). */
export interface ServiceReader {
  /** The service of a token (created on first use); WIFLOW_SERVICE_MISSING when none is provided. */
  get<T>(token: ServiceToken<T>): T;
  /** Whether a service is provided for the token. */
  has(token: ServiceToken<unknown>): boolean;
}

interface ServiceEntry {
  factory: () => unknown;
  instance?: { value: unknown };
  /** The plugin that provided it ('core' for the runtime's own). */
  owner: string;
}

/**
 * The runtime's services: each created once, lazily, from the factory its provider gave.
 * Own registry rather than tsyringe's container: rolling back a failed plugin must remove
 * the services it provided, and tsyringe cannot unregister one token.
 */
export class Services implements ServiceReader {
  readonly #entries = new Map<symbol, ServiceEntry>();

  /** Provide a service; a later provider of the same token replaces the earlier one. */
  provide<T>(token: ServiceToken<T>, factory: () => T, owner = 'core'): void {
    this.#entries.set(token.key, { factory, owner });
  }

  /** Provide an existing value. */
  provideValue<T>(token: ServiceToken<T>, value: T, owner = 'core'): void {
    this.#entries.set(token.key, { factory: () => value, instance: { value }, owner });
  }

  get<T>(token: ServiceToken<T>): T {
    const entry = this.#entries.get(token.key);
    if (!entry) throw CoreErrors.serviceMissing(token.name);
    entry.instance ??= { value: entry.factory() };
    return entry.instance.value as T;
  }

  has(token: ServiceToken<unknown>): boolean {
    return this.#entries.has(token.key);
  }

  /** Remove a token's service if `owner` provided it (rollback of a failed plugin). */
  withdraw(token: ServiceToken<unknown>, owner: string): void {
    if (this.#entries.get(token.key)?.owner === owner) this.#entries.delete(token.key);
  }

  /** Read-only view for nodes and plugins. */
  reader(): ServiceReader {
    return { get: (token) => this.get(token), has: (token) => this.has(token) };
  }
}
