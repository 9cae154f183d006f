// A test authentication plugin: fixed bearer tokens and API keys mapped to principals.
import { definePlugin, type Principal, type WiflowPlugin } from '@wiflow/core';

const principals: Record<string, Principal> = {
  'admin-token': { userId: 'u1', username: 'alice', roles: ['admin'], via: 'jwt' },
  'viewer-token': { userId: 'u2', username: 'victor', roles: ['viewer'], via: 'jwt' },
  'operator-key': { userId: 'u3', username: 'olga', roles: ['operator'], via: 'apikey:k1' },
};

/** Taps `authenticate`: bearer admin-token / viewer-token, X-API-Key operator-key. */
export const testAuthPlugin: WiflowPlugin = definePlugin({
  name: 'test:auth',
  setup(ctx) {
    ctx.hooks.authenticate.tapPromise('test:auth', async ({ bearer, apiKey }) => {
      if (bearer && bearer !== 'operator-key') return principals[bearer];
      if (apiKey === 'operator-key') return principals[apiKey];
      return undefined;
    });
  },
});
