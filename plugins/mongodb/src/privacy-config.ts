/** The runtime `privacy` section is declared once, in @wiflow/storage-kit (snake_case keys accepted). */
export { PrivacyConfigSchema, toPrivacySettings } from '@wiflow/storage-kit';
