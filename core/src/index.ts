// Public entry of @wiflow/core: each export named on purpose.
export { WiflowError, CoreErrors, coreErrorCatalogue, defineError, errorMessage, type ErrorFactory } from './errors.js';
export type { Provenance, LinkId, ComplexArray, CsiFrame, CsiWindow } from './types/csi.js';
export { COCO_KEYPOINTS, type CocoKeypointName, type Activity, type Keypoint, type Keypoint3D, type BoundingBox, type DensePose, type Person, type PoseMetadata, type PoseActivitySource, type PoseFrame } from './types/pose.js';
export type { SensingState, SensingActivity, BreathingNullReason, SensingFallEvent, SensingFrame } from './types/sensing.js';
export type { GroundTruthPerson, GroundTruthEvent, GroundTruthFrame, GroundTruthDistractor } from './types/truth.js';
export type { Severity, AnalyticsEvent, Alert } from './types/analytics.js';
export { toActivityEventRecord, toAlertRecord, toSensingRecord, type ActivityEventRecord, type AlertRecord, type SensingRecord } from './types/spec-records.js';
export { DataTypes, type DataTypeId } from './types/data-types.js';
export { EMPTY_ROOM_REFERENCES, type EmptyRoomLinkQuality, type EmptyRoomRecordingReport, type EmptyRoomRecordingView, type EmptyRoomDeskRoom, type RoomCalibrationStatus, type RoomPoseChoiceView, type RoomPoseHeldOutFigures, type EmptyRoomReferenceDesk } from './types/empty-room.js';
export { createRuntimeHooks, type RuntimeHooks, type MessageTrace, type NodeErrorEvent, type StorageRequest, type AuthRequest, type Principal, type CliContext } from './hooks/hooks.js';
export { defineNode, NODE_CAPABILITIES, type NodeCapability, nodeConfigJsonSchema, redactSecrets, mergeSecrets, SECRET_MASK, type NodeDefinition, type NodeContext, type NodeInstance } from './nodes/define-node.js';
export { arePortsCompatible, portTypes, type PortSpec } from './nodes/ports.js';
export { NodeRegistry, type RegisteredNode, type NodeTypeDescription } from './nodes/registry.js';
export { definePlugin, PLUGIN_API_VERSION, type WiflowPlugin, type PluginContext, type PluginServices, type PluginConfig, type PluginConfigSchemas } from './plugins/define-plugin.js';
export { discoverPlugins, apiMajor, type DiscoveredPlugin } from './plugins/discovery.js';
export { PluginHost, type PluginReport, type PluginFilter } from './plugins/plugin-host.js';
export type { FlowNode, FlowEdge, FlowData, FlowDocument, OverflowPolicy } from './flows/flow.js';
export { flowEnvironments } from './flows/flow-environments.js';
export { FlowCompiler, type FlowProblem, type CompiledFlow, type CompiledNode, type CompiledEdge, type CompileResult, type CompileOptions } from './flows/compiler.js';
export { flowInterface, isJobFlow, flowIoSchemas, applyBindings, parseInputText, undeclaredInputProblem, FLOW_INPUT_NODE, FLOW_OUTPUT_NODE, FLOW_VALUE_TYPES, type FlowInterface, type FlowInput, type FlowOutput, type FlowBinding, type FlowValueType } from './flows/flow-interface.js';
export { ioPlugin, ioInputNode, ioOutputNode, IoInputConfig, IoOutputConfig, IoValueTypes } from './builtin/io-plugin.js';
export { LatencyHistogram } from './engine/latency-histogram.js';
export { EdgeQueue } from './engine/edge-queue.js';
export type { NodeCounters } from './engine/node-runner.js';
export { Pipeline, type PipelineOptions, type PipelineOutcome } from './engine/pipeline.js';
export { Job, JobManager, type JobStatus, type JobRequest, type JobSnapshot, type JobLimits, type JobStoreReport } from './engine/job.js';
export { JOB_RECORD_LIMITS, toJobRecord, type JobRecordLimits, type JobRecordSource } from './engine/job-record.js';
export { JobLog, type JobEvent } from './engine/job-log.js';
export { Runtime, WIFLOW_VERSION, type RuntimeOptions, type DeployedPipeline, type RunAccess } from './runtime/runtime.js';
export { ConfigStore, CoreConfigSchema, configSection, deepMerge, changedPaths, getPath, type ConfigSection, type CoreConfig, type CoreSectionName } from './runtime/config.js';
export type { FlowControl, JobRunnerInfo, NodeCatalog, RuntimeState, StorageHost, SystemInfo } from './runtime/capabilities.js';
export { createLogger, recordingLogger, scrubLogFields, scrubUrlPasswords, type Logger, type LogLevel } from './runtime/logger.js';
export { LogBuffer, type LogEntry, type LogEntryLevel } from './runtime/log-buffer.js';
export { Tokens } from './runtime/tokens.js';
export { Services, serviceToken, type ServiceToken, type ServiceReader } from './runtime/services.js';
export { sealNodeSecrets, openNodeSecrets, SEALED_SECRET_PREFIX, type SecretSealer } from './nodes/sealed-secrets.js';
export { abortableSleep } from './nodes/abortable-sleep.js';
export { HttpHost, type HttpRegistrar, type WebSocketHandler, type UpgradeGuard, type WebSocketRouteOptions } from './http/http-host.js';
export { jsonBodyParser, jsonNestingExceeds, isJsonTooDeep, isJsonNotObject, DEFAULT_JSON_MAX_DEPTH, JSON_TOO_DEEP_CODE, JSON_NOT_UTF8_CODE, JSON_NOT_OBJECT_CODE, type JsonBodyLimits } from './http/json-body.js';
export { boundedEcho, DEFAULT_ECHO_BOUNDS, type EchoBounds } from './http/bounded-echo.js';
export {
  ApiError,
  HttpErrors,
  SPEC_ERROR_CODES,
  MAX_FIELD_ERRORS_SHOWN,
  apiConventionInForce,
  defineApiError,
  errorEnvelope,
  flowServiceErrorBody,
  redactSecretFields,
  specCodeForStatus,
  toApiError,
  type ApiConvention,
  type ApiErrorFactory,
  type EnvelopeOptions,
  type FieldError,
  type SpecErrorCode,
  type ValidationIssue,
} from './http/api-errors.js';
export { authenticate, bearerFromHeader, credentialsOf, type Authentication, type CredentialSources, type Credentials } from './http/credentials.js';
export { ROLES, hasRole, requireRole, roleRank, type Role } from './http/roles.js';
export { defineRoute, expressPath, forConvention, type PerConvention, type RouteAccess, type RouteContext, type RouteDefinition, type RouteReply } from './http/route.js';
export { routeRouter, requestIdOf, type RouteKit, type RouteStep } from './http/route-router.js';
export { validatePart } from './http/validate.js';
export { buildOpenApi, errorSchema, successSchema, RATE_LIMIT_HEADERS, type OpenApiOptions } from './http/openapi.js';
export type {
  Storage, StorageHealth, PoseRepository, TrackRepository, EventRepository, AlertRepository, MetricRepository,
  FlowRepository, RevisionRepository, ProjectRepository, MessageRepository, FileRepository, UserRepository,
  ApiKeyRepository, RefreshTokenRepository, SettingRepository, SensingRepository, JobRepository,
} from './storage/storage.js';
export type { PageRequest, Page, CursorRequest, CursorPage, SortOrder, TimeRange } from './storage/paging.js';
export { StorageErrors, storageErrorCatalogue } from './storage/errors.js';
export type {
  JsonValue, PoseQuery, StoredPoseFrame, StoredPerson, PersonRecord, AvailableRange, PoseAggregateQuery, PoseAggregateBucket, PoseAggregateResult,
  TrackQuery, TrajectoryPoint, TrackSummary, EventQuery, StoredEvent, StoredAlert, AlertQuery, MetricSample, MetricQuery,
  RetentionReport, PrivacySettings, AccessType, FlowFields, FlowRecord, FlowCreate, FlowPatch, FlowUpdateOptions, FlowQuery,
  FlowRevision, ProjectFields, ProjectRecord, ProjectCreate, ProjectQuery, MessageRecord, MessageCreate, MessageQuery,
  FileRecord, FileCreate, FileQuery, UserRecord, UserCreate, UserPatch, ApiKeyRecord, ApiKeyCreate, RefreshTokenRecord,
  RefreshTokenIssue, RefreshTokenConsumption, SettingRecord, SensingQuery, StoredSensingFrame,
  StoredJobStatus, StoredJobEvent, JobRecord, JobSummaryRecord, JobQuery,
} from './storage/records.js';
export { SecretBox, hashSecret, verifySecret, loadOrCreateKey } from './security/secret-box.js';
export { FileAccess, type FileMode } from './security/file-access.js';
export {
  createIdentityRepositories,
  type IdentityRepositories,
  type IdentityStores,
  type UserStore,
  type StoredUser,
  type ApiKeyStore,
  type RefreshTokenStore,
} from './security/identity-rules.js';
export { generateToken, hashToken } from './security/secret-token.js';
export { barChartSvg, latencyHistogramSvg, type BarSeries } from './plots/svg-chart.js';
export { eventProblem, alertProblem } from './types/checks.js';
export { mulberry32 } from './random/mulberry32.js';
