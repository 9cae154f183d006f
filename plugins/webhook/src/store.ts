import type { JsonValue, SettingRecord, SettingRepository } from '@wiflow/core';

/** Namespace of webhook registrations in the settings store. */
export const WEBHOOK_NAMESPACE = 'webhooks';

/** Namespace of one webhook's delivery log. */
export function deliveryNamespace(webhookId: string): string {
  return `webhook-deliveries:${webhookId}`;
}

/** A stored registration. The secret is kept sealed (SecretBox), never in clear. */
export interface WebhookRecord {
  id: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  active: boolean;
  /** `SecretBox.seal(secret)`. */
  secretSealed: string;
  createdAt: number;
  updatedAt: number;
  createdBy: string | null;
}

/** Status of a delivery. */
export type DeliveryStatus = 'queued' | 'sending' | 'retrying' | 'delivered' | 'failed' | 'dropped';

/** One delivery log entry (updated as attempts happen). */
export interface DeliveryRecord {
  id: string;
  webhookId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  /** HTTP status of the last attempt, null when it got no answer. */
  responseCode: number | null;
  /** Duration of the last attempt. */
  latencyMs: number | null;
  /** Why the last attempt failed, or why the delivery was dropped. */
  error: string | null;
  createdAt: number;
  updatedAt: number;
  /** When the next attempt is due (retrying only). */
  nextAttemptAt: number | null;
  payloadBytes: number;
}

/** Key that sorts log entries by creation time. */
export function deliveryKey(record: Pick<DeliveryRecord, 'createdAt' | 'id'>): string {
  return `${String(record.createdAt).padStart(15, '0')}-${record.id}`;
}

/**
 * Generic settings documents kept in memory: used only when no storage plugin resolved a
 * storage (persistence is off for the whole runtime then); same contract as the storage's.
 */
export class MemorySettingRepository implements SettingRepository {
  readonly #data = new Map<string, Map<string, SettingRecord>>();

  async get<T extends JsonValue = JsonValue>(namespace: string, key: string): Promise<SettingRecord<T> | null> {
    return (this.#data.get(namespace)?.get(key) as SettingRecord<T> | undefined) ?? null;
  }

  async set<T extends JsonValue>(namespace: string, key: string, value: T, options: { expectedRevision?: number } = {}): Promise<SettingRecord<T>> {
    let space = this.#data.get(namespace);
    if (!space) this.#data.set(namespace, (space = new Map()));
    const current = space.get(key);
    if (options.expectedRevision !== undefined && (current?.revision ?? 0) !== options.expectedRevision) {
      throw new Error(`setting ${namespace}/${key} is at revision ${current?.revision ?? 0}, expected ${options.expectedRevision}`);
    }
    const record: SettingRecord<T> = { namespace, key, value: structuredClone(value), updatedAt: Date.now(), revision: (current?.revision ?? 0) + 1 };
    space.set(key, record);
    return record;
  }

  async delete(namespace: string, key: string): Promise<boolean> {
    return this.#data.get(namespace)?.delete(key) ?? false;
  }

  async list(namespace: string): Promise<SettingRecord[]> {
    const space = this.#data.get(namespace);
    if (!space) return [];
    return [...space.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
}

/** Registrations and delivery logs on the settings store. */
export class WebhookStore {
  constructor(readonly settings: SettingRepository) {}

  async list(): Promise<WebhookRecord[]> {
    return (await this.settings.list(WEBHOOK_NAMESPACE)).map((r) => r.value as unknown as WebhookRecord);
  }

  async get(id: string): Promise<WebhookRecord | null> {
    const record = await this.settings.get(WEBHOOK_NAMESPACE, id);
    return record ? (record.value as unknown as WebhookRecord) : null;
  }

  async save(record: WebhookRecord): Promise<void> {
    await this.settings.set(WEBHOOK_NAMESPACE, record.id, record as unknown as JsonValue);
  }

  /** Delete a registration and its delivery log; false when it did not exist. */
  async delete(id: string): Promise<boolean> {
    const existed = await this.settings.delete(WEBHOOK_NAMESPACE, id);
    const namespace = deliveryNamespace(id);
    for (const entry of await this.settings.list(namespace)) await this.settings.delete(namespace, entry.key);
    return existed;
  }

  async saveDelivery(record: DeliveryRecord): Promise<void> {
    await this.settings.set(deliveryNamespace(record.webhookId), deliveryKey(record), record as unknown as JsonValue);
  }

  /** A webhook's deliveries, newest first. */
  async deliveries(webhookId: string): Promise<DeliveryRecord[]> {
    const entries = await this.settings.list(deliveryNamespace(webhookId));
    return entries.map((e) => e.value as unknown as DeliveryRecord).reverse();
  }

  /** Keep the newest `keep` log entries of a webhook; returns how many were deleted. */
  async trimDeliveries(webhookId: string, keep: number): Promise<number> {
    const namespace = deliveryNamespace(webhookId);
    const entries = await this.settings.list(namespace);
    const excess = entries.length - keep;
    for (let i = 0; i < excess; i++) await this.settings.delete(namespace, entries[i].key);
    return Math.max(0, excess);
  }
}
