/** The runtime `privacy` section is declared once, in core (snake_case keys accepted). */
export { PrivacyConfigSchema, toPrivacySettings } from '@wiflow/storage-kit';
