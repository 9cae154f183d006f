import { NODE_CAPABILITIES } from '@wiflow/core';
import { z } from 'zod';

/** The `studio` configuration section (flow service, jobs, files, MCP). */
export const StudioConfigSchema = z
  .object({
    maxFileSizeUploadMb: z.number().positive().default(100).describe('Largest upload in MB (max_file_size_upload); bigger ones get 413'),
    eventDelivery: z.enum(['polling', 'streaming', 'direct']).default('streaming').describe('Default delivery of build events'),
    frontendTimeout: z.number().int().min(0).default(0).describe('Seconds the studio waits for a build (0: no limit)'),
    publicUrl: z.string().url().optional().describe('Base URL clients reach this server at (mcp_base_url); default: from the request'),
    defaultFolderName: z.string().min(1).default('Starter Project').describe('Project that holds flows created without one'),
    autoSaving: z.boolean().default(true),
    autoSavingInterval: z.number().int().positive().default(1000).describe('ms'),
    healthCheckMaxRetries: z.number().int().positive().default(5),
    webhookPollingInterval: z.number().int().positive().default(5000).describe('ms'),
    publicFlowCleanupInterval: z.number().int().positive().default(3600).describe('seconds'),
    publicFlowExpiration: z.number().int().positive().default(86400).describe('seconds'),
    webhookAuthEnable: z.boolean().default(false).describe('Webhook calls need an API key of the flow owner'),
    serializationMaxItemsLength: z.number().int().positive().default(1000),
    serializationMaxTextLength: z.number().int().positive().default(20000),
    hideGettingStartedProgress: z.boolean().default(false),
    allowCustomComponents: z.boolean().default(false),
    voiceModeAvailable: z.boolean().default(false),
    featureFlags: z.object({ mvp_components: z.boolean().default(false), ext_deployments: z.boolean().default(false) }).strict().prefault({}),
    imports: z
      .object({
        maxEntries: z.number().int().positive().default(500).describe('Most entries a zip import may list'),
        maxEntryMb: z.number().positive().default(20).describe('Most MB one zip entry may inflate to'),
        maxTotalMb: z.number().positive().default(64).describe('Most MB all entries of one zip import may inflate to'),
      })
      .prefault({})
      .describe('Limits of flow and project archive imports (zip bombs get 413)'),
    rateLimit: z
      .object({
        requests: z.number().int().positive().default(1200).describe('Requests one caller (user, or address when anonymous) may make per window'),
        windowSeconds: z.number().int().positive().default(60),
      })
      .prefault({})
      .describe('Rate limit of the flow service (429 with X-RateLimit-* headers beyond it)'),
    quotas: z
      .object({
        deploymentsPerUser: z.number().int().min(0).default(4).describe('Pipelines one user may have running at once (failed or stopped deployments do not count)'),
        deploymentsTotal: z.number().int().min(0).default(16).describe('Pipelines running through the flow service at once, all users together'),
        jobsPerUser: z.number().int().positive().default(16).describe('Unfinished (queued or running) jobs one user may have'),
        jobsTotal: z.number().int().positive().default(128).describe('Unfinished jobs of all users together'),
        deploymentMaxMinutes: z.number().min(0).default(0).describe('Minutes after which a deployed pipeline is undeployed (0: never)'),
      })
      .prefault({})
      .describe('How much work users may start (429 beyond); jobs also end at their timeout (jobs.timeoutMs, maxRunTimeoutMs)'),
    roleCapabilities: z
      .object({
        viewer: z.array(z.enum(NODE_CAPABILITIES)).default([]),
        operator: z.array(z.enum(NODE_CAPABILITIES)).default(['fs.read', 'fs.write', 'net.connect', 'net.listen', 'device']),
        admin: z.array(z.enum(NODE_CAPABILITIES)).default([...NODE_CAPABILITIES]),
      })
      .prefault({})
      .describe('Node capabilities a flow may use, by the role of its owner'),
    fileRoots: z.array(z.string().min(1)).default([]).describe('Folders (absolute) file nodes of flow-service runs may use besides the owner\'s own file folder'),
    maxRunTimeoutMs: z.number().int().positive().default(3_600_000).describe('Upper bound of a per-run timeout a caller may ask for'),
    examplesDir: z.string().nullable().default(null).describe('Folder of example flow JSON files loaded into the owner\'s default project on first start'),
    examplesOwner: z.string().default(process.env.WIFLOW_ADMIN_USER ?? 'admin').describe('User who owns the example flows'),
    autoLogin: z.boolean().default(false).describe('Requests without credentials act as one local user (single-user installs only)'),
    mcp: z
      .object({
        installHome: z.string().optional().describe('Home directory whose client configs `install` writes (default: the OS home)'),
        allowedOrigins: z.array(z.string()).default([]).describe('Browser origins allowed to call MCP endpoints besides the server itself'),
        oauthCacheMs: z.number().int().min(0).default(60_000).describe('How long a validated OAuth token is trusted before re-checking'),
      })
      .prefault({}),
  })
  .prefault({});

/** Parsed studio configuration. */
export type StudioConfig = z.output<typeof StudioConfigSchema>;
