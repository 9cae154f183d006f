import { SecretBox, Tokens, definePlugin, type StorageHost } from '@wiflow/core';
import { resolveConnection } from './config.js';
import { MongoStorage } from './mongo-storage.js';
import { PrivacyConfigSchema, toPrivacySettings } from './privacy-config.js';

const PLUGIN_NAME = '@wiflow/plugin-mongodb';

export { MongoStorage, type MongoStorageOptions, type BodySealer } from './mongo-storage.js';
export { MongoStorageConfigSchema, resolveConnection, redactUrl, databaseFromUrl, type MongoStorageConfig } from './config.js';
export { PrivacyConfigSchema, toPrivacySettings } from './privacy-config.js';

/** Build the MongoDB storage for a runtime: URL from `storage.url` or MONGODB_URL, privacy from the config. */
export function createMongoStorage(host: StorageHost, env: NodeJS.ProcessEnv = process.env): MongoStorage {
  const connection = resolveConnection(host.config.get('storage'), env);
  return new MongoStorage({
    url: connection.url,
    database: connection.database,
    maxPoolSize: connection.maxPoolSize,
    minPoolSize: connection.minPoolSize,
    serverSelectionTimeoutMS: connection.serverSelectionTimeoutMS,
    flushIntervalMs: connection.flushIntervalMs,
    flushMaxRecords: connection.flushMaxRecords,
    retentionIntervalMs: connection.retentionIntervalMs,
    privacy: () => toPrivacySettings(host.config.get('privacy')),
    sealer: {
      seal: (plain) => host.services.get(Tokens.SecretBox).seal(plain),
      open: (sealed) => host.services.get(Tokens.SecretBox).open(sealed),
    },
    onError: (error) => host.logger.error(`mongodb background write failed: ${error instanceof Error ? error.message : String(error)}`),
  });
}

/** MongoDB storage for deployments that outgrow one machine. */
export default definePlugin({
  name: PLUGIN_NAME,
  config: { privacy: PrivacyConfigSchema },
  setup(ctx) {
    ctx.hooks.resolveStorage.tapPromise(PLUGIN_NAME, async (request) => {
      if (request.kind !== 'mongodb') return undefined;
      return createMongoStorage(request.host);
    });
  },
});
