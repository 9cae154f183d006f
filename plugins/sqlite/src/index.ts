import { SecretBox, Tokens, definePlugin, type StorageHost } from '@wiflow/core';
import { registerBackupCommand } from './backup-command.js';
import { PrivacyConfigSchema, SqliteStorageConfigSchema, toPrivacySettings } from './privacy-config.js';
import { SqliteStorage } from './sqlite-storage.js';
import { resolveDatabaseFile } from './storage-config.js';

const PLUGIN_NAME = '@wiflow/plugin-sqlite';

export { SqliteStorage, type SqliteStorageOptions, type BodySealer } from './sqlite-storage.js';
export { backupDatabase } from './backup-command.js';
export { PrivacyConfigSchema, SqliteStorageConfigSchema, toPrivacySettings } from './privacy-config.js';
export { MIGRATIONS, SCHEMA_VERSION, migrate, type Migration } from './schema.js';
export { resolveDatabaseFile } from './storage-config.js';

/** Build the SQLite storage for a runtime: file, batching and privacy from its config, the runtime's SecretBox for encryption. */
export function createSqliteStorage(host: StorageHost, dataDir: string): SqliteStorage {
  const section = host.config.get('storage');
  const options = SqliteStorageConfigSchema.parse(section ?? {});
  return new SqliteStorage({
    file: resolveDatabaseFile(dataDir, section),
    flushIntervalMs: options.flushIntervalMs,
    flushMaxRecords: options.flushMaxRecords,
    retentionIntervalMs: options.retentionIntervalMs,
    privacy: () => toPrivacySettings(host.config.get('privacy')),
    // Resolved on first use: the key file (<dataDir>/secret.key, 0600, unless WIFLOW_SECRET_KEY is set) is created when a
    // flow first holds a node secret or encryption is turned on.
    sealer: {
      seal: (plain) => host.services.get(Tokens.SecretBox).seal(plain),
      open: (sealed) => host.services.get(Tokens.SecretBox).open(sealed),
    },
    secretFieldsOf: (nodeType) => host.registry.get(nodeType)?.secrets ?? [],
    onError: (error) => host.logger.error(`sqlite background write failed: ${error instanceof Error ? error.message : String(error)}`),
  });
}

/** The embedded default storage: one SQLite file under the data directory. */
export default definePlugin({
  name: PLUGIN_NAME,
  // The pose API declares the same section with the same keys; whichever registers last, the values agree.
  config: { privacy: PrivacyConfigSchema },
  setup(ctx) {
    ctx.hooks.resolveStorage.tapPromise(PLUGIN_NAME, async (request) => {
      if (request.kind !== 'sqlite') return undefined;
      return createSqliteStorage(request.host, request.dataDir);
    });
    ctx.registerCommand((program, cli) => registerBackupCommand(program, cli));
  },
});
