import { configSection, definePlugin, serviceToken, Tokens, type ConfigStore, type ServiceReader, type WiflowPlugin } from '@wiflow/core';
import { z } from 'zod';
import { registerAuthCommands } from './cli-commands.js';
import { AuthConfigSchema, type AuthConfig } from './config.js';
import { IdentityService } from './identity-service.js';

/** The plugin's name (tap name of every hook). */
export const PLUGIN_NAME = '@wiflow/plugin-identity';

/** Service token of a runtime's IdentityService (`identityOf(ctx)` resolves it typed). */
export const IdentityToken = serviceToken<IdentityService>('wiflow.identity.IdentityService');

/** Options for embedding (tests). */
export interface IdentityPluginOptions {
  /** Where the first-start admin password is printed (default stderr: a notice, so CLI commands' stdout stays machine-readable). */
  print?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
}

/** The IdentityService (registered by this plugin), from anything holding services: a plugin context, an embedding runtime. */
export function identityOf(holder: { services: ServiceReader }): IdentityService {
  return holder.services.get(IdentityToken);
}

/**
 * `api.auth` as this plugin reads it: the `api` section is the pose API's (which validates it
 * with the same AuthConfigSchema); without that plugin the same schema fills the defaults.
 */
const ApiAuthView = configSection('api', z.object({ auth: AuthConfigSchema }).loose().prefault({}));

/** `api.auth` in force (re-read after config updates). */
function authConfigOf(config: ConfigStore): () => AuthConfig {
  return () => config.read(ApiAuthView).auth;
}

/**
 * Build the identity plugin: registers the IdentityService (users, tokens, API keys), taps
 * `hooks.authenticate` (Bearer JWT, API key), creates the first admin on start, and adds the
 * `users` / `api-keys` commands. Its routes (`identityRoutes`) are served by an API that
 * mounts them (the pose API, under /api/v1/auth).
 */
export function createIdentityPlugin(options: IdentityPluginOptions = {}): WiflowPlugin {
  return definePlugin({
    name: PLUGIN_NAME,
    setup(ctx) {
      // `api.auth` is the pose API's section: read through the configuration, with the same schema.
      const config = ctx.services.get(Tokens.Config);
      const env = options.env ?? process.env;
      let identity: IdentityService | undefined;
      // Created on first use: reads or creates the signing secret in the data directory.
      const service = () =>
        (identity ??= new IdentityService({ dataDir: ctx.dataDir, storage: () => (ctx.hasStorage ? ctx.storage : undefined), config: authConfigOf(config), env }));
      ctx.services.provide(IdentityToken, service);
      const print = options.print ?? ((line: string) => process.stderr.write(`${line}\n`));
      ctx.registerCommand((program, cli) => registerAuthCommands(program, cli));
      ctx.hooks.authenticate.tapPromise(PLUGIN_NAME, (request) => service().authenticate(request));
      ctx.hooks.start.tapPromise(PLUGIN_NAME, async (system) => {
        service();
        if (system.hasStorage) await service().bootstrapAdmin(print, env);
        else ctx.logger.warn('no storage: logins and API keys are unavailable until a storage plugin is installed');
      });
    },
  });
}

/** The identity plugin with default options. */
const plugin: WiflowPlugin = createIdentityPlugin();
export default plugin;

export { AuthConfigSchema, type AuthConfig } from './config.js';
export { IdentityErrors, identityErrorCatalogue } from './errors.js';
export { IdentityService, type IdentityServiceOptions, type TokenGrant } from './identity-service.js';
export { identityRoutes } from './identity-routes.js';
export { TokenRevocation, revokeUserTokens, REVOKED_SESSIONS_NAMESPACE, USER_NOT_BEFORE_NAMESPACE } from './token-revocation.js';
export { registerAuthCommands } from './cli-commands.js';
