// A flow service in its own process, for tests that measure its memory or must survive its crash:
// SQLite storage, the built studio server (dist), and bearer tokens `viewer`, `operator`, `admin`
// (one user each). Prints one JSON line {url, pid, users} when listening. Config (JSON) in argv[2];
// argv[3], when given, is the data directory of an earlier child to reopen (its users are reused).
// Node type `child-test.wait` reports progress, then passes its input on after `ms` (a job that
// is still running when a test kills the process).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineNode, definePlugin, Runtime } from '@wiflow/core';
import { z } from 'zod';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import studioServerPlugin from '../../dist/index.js';

const extra = JSON.parse(process.argv[2] ?? '{}');
const dataDir = process.argv[3] || mkdtempSync(path.join(tmpdir(), 'wiflow-studio-child-'));
const principals = new Map();
const authPlugin = definePlugin({
  name: 'child-test-auth',
  setup(ctx) {
    ctx.hooks.authenticate.tapPromise('child-test-auth', async ({ bearer }) => principals.get(bearer));
  },
});
const waitPlugin = definePlugin({
  name: 'child-test-nodes',
  setup(ctx) {
    ctx.registerNode(
      defineNode({
        type: 'child-test.wait',
        inputs: { value: { type: 'any', required: true } },
        outputs: { value: { type: 'any' } },
        config: z.object({ ms: z.number().int().min(0).default(60_000) }),
        create: (c) => ({
          async receive(_port, value) {
            c.progress(0, `waiting ${c.config.ms} ms`);
            await new Promise((resolve) => {
              const timer = setTimeout(resolve, c.config.ms);
              c.signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
            });
            if (!c.signal.aborted) await c.emit('value', value);
          },
        }),
      }),
    );
  },
});
const silent = () => {};
const logger = { debug: silent, info: silent, warn: silent, error: (...args) => console.error(...args), child: () => logger };
const runtime = await Runtime.create({
  discover: false,
  dataDir,
  config: { server: { port: 0, host: '127.0.0.1', shutdownTimeoutMs: 2000 }, storage: { kind: 'sqlite' }, ...extra },
  plugins: [sqlitePlugin, studioServerPlugin, authPlugin, waitPlugin],
  logger,
});
const { url } = await runtime.listen(0, '127.0.0.1');
const users = {};
for (const role of ['viewer', 'operator', 'admin']) {
  const user = (await runtime.storage.users.getByUsername(role)) ?? (await runtime.storage.users.create({ username: role, password: `${role}-password-123`, roles: [role] }));
  principals.set(role, { userId: user.id, username: role, roles: [role], via: 'jwt' });
  users[role] = user.id;
}
process.stdout.write(`${JSON.stringify({ url, pid: process.pid, dataDir, users })}\n`);
process.on('SIGTERM', () => void runtime.stop(2000).then(() => process.exit(0)));
