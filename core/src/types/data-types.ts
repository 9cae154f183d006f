/**
 * Ids of the data types that travel on ports. Plugins may use other ids; these are the
 * shared ones of ARCHITECTURE §4. `any` connects to everything.
 */
export const DataTypes = {
  Any: 'any',
  CsiFrame: 'CsiFrame',
  CsiWindow: 'CsiWindow',
  PoseFrame: 'PoseFrame',
  SensingFrame: 'SensingFrame',
  AnalyticsEvent: 'AnalyticsEvent',
  Alert: 'Alert',
  Json: 'json',
  Text: 'text',
  Number: 'number',
  File: 'file',
} as const;

/** A data type id. */
export type DataTypeId = string;
