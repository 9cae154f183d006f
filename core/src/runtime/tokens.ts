/** Tokens of the services core registers in every runtime's container. */
export const Tokens = Object.freeze({
  /** The Runtime itself. */
  Runtime: Symbol.for('wiflow.Runtime'),
  /** The resolved Storage service. */
  Storage: Symbol.for('wiflow.Storage'),
  /** The runtime's Logger. */
  Logger: Symbol.for('wiflow.Logger'),
  /** The ConfigStore. */
  Config: Symbol.for('wiflow.Config'),
  /** The JobManager. */
  Jobs: Symbol.for('wiflow.Jobs'),
  /** The SecretBox for encrypting secrets at rest. */
  SecretBox: Symbol.for('wiflow.SecretBox'),
});
