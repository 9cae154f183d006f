import { randomBytes } from 'node:crypto';
import type { Command } from 'commander';
import { ROLES, type CliContext, type Runtime, type UserRecord } from '@wiflow/core';
import { revokeUserTokens } from './token-revocation.js';

async function withStorage<T>(cli: CliContext, work: (runtime: Runtime) => Promise<T>): Promise<T> {
  const runtime = await cli.runtime();
  await runtime.start();
  try {
    if (!runtime.hasStorage) throw new Error('no storage plugin is installed: users and API keys need one (@wiflow/plugin-sqlite)');
    return await work(runtime);
  } finally {
    await runtime.stop(5000);
  }
}

/** Run `work` with the stored user named `username`; a name nobody has fails the command. */
function withUser<T>(cli: CliContext, username: string, work: (runtime: Runtime, user: UserRecord) => Promise<T>): Promise<T> {
  return withStorage(cli, async (runtime) => {
    const user = await runtime.storage.users.getByUsername(username);
    if (!user) throw new Error(`no user ${username}`);
    return work(runtime, user);
  });
}

/** A new password: WIFLOW_NEW_PASSWORD (12 characters at least), or generated, in which case `shown` prints it once. */
function newPassword(cli: CliContext): { password: string; shown(): void } {
  const given = process.env.WIFLOW_NEW_PASSWORD;
  if (given !== undefined && given.length > 0 && given.length < 12) throw new Error('WIFLOW_NEW_PASSWORD must be at least 12 characters');
  const password = given || randomBytes(18).toString('base64url');
  return { password, shown: () => (given ? undefined : cli.print(`password (shown once): ${password}`)) };
}

function role(value: string): string {
  if (!(ROLES as readonly string[]).includes(value)) throw new Error(`role must be one of ${ROLES.join(', ')}`);
  return value;
}

/**
 * `wiflow users add|passwd|list` and `wiflow api-keys create|list|revoke`: manage the users
 * and keys in storage. Passwords come from WIFLOW_NEW_PASSWORD or are generated
 * and printed once; keys are printed once.
 */
export function registerAuthCommands(program: Command, cli: CliContext): void {
  const users = program.command('users').description('users of the pose API and the studio (passwords stored hashed)');
  users
    .command('add <username>')
    .description('create a user; the password is WIFLOW_NEW_PASSWORD or generated and printed once')
    .option('-r, --role <role>', `role: ${ROLES.join(', ')}`, 'viewer')
    .action(async (username: string, options: { role: string }) => {
      const chosen = role(options.role);
      await withStorage(cli, async (runtime) => {
        const { password, shown } = newPassword(cli);
        const user = await runtime.storage.users.create({ username, password, roles: [chosen] });
        cli.print(`created user ${user.username} (${chosen})`);
        shown();
      });
    });
  users
    .command('passwd <username>')
    .description('set a new password (WIFLOW_NEW_PASSWORD or generated and printed once); revokes the user\'s refresh and access tokens')
    .action(async (username: string) => {
      await withUser(cli, username, async (runtime, user) => {
        const { password, shown } = newPassword(cli);
        await runtime.storage.users.setPassword(user.id, password);
        // Refresh and access tokens issued before die too, on every server sharing this store.
        await revokeUserTokens(runtime.storage, user.id);
        cli.print(`password of ${user.username} changed`);
        shown();
      });
    });
  users
    .command('list')
    .description('list users and roles')
    .action(async () => {
      await withStorage(cli, async (runtime) => {
        const page = await runtime.storage.users.list({ page: 1, perPage: 1000 });
        for (const u of page.items) cli.print(`${u.username}\t${u.roles.join(',')}\t${u.isActive ? 'active' : 'disabled'}`);
      });
    });

  const keys = program.command('api-keys').description('API keys (X-API-Key; stored as hashes)');
  keys
    .command('create')
    .description('create an API key for a user; the key is printed once')
    .requiredOption('-u, --user <username>', 'owner')
    .requiredOption('-n, --name <name>', 'what the key is for')
    .option('-r, --role <role>', 'role the key carries (never more than the owner has)')
    .option('--expires-days <days>', 'expiry in days')
    .action(async (options: { user: string; name: string; role?: string; expiresDays?: string }) => {
      await withUser(cli, options.user, async (runtime, user) => {
        const roles = options.role ? [role(options.role)] : user.roles;
        if (options.role && ROLES.indexOf(options.role as never) > Math.max(...user.roles.map((r) => ROLES.indexOf(r as never)))) throw new Error(`${user.username} does not have the ${options.role} role`);
        const days = options.expiresDays ? Number(options.expiresDays) : undefined;
        if (days !== undefined && !(days > 0)) throw new Error('--expires-days must be a positive number');
        const created = await runtime.storage.apiKeys.create({ userId: user.id, name: options.name, scopes: roles, expiresAt: days ? Date.now() + days * 86_400_000 : null });
        cli.print(`created API key ${created.record.id} (${roles.join(',')}) for ${user.username}`);
        cli.print(`key (shown once): ${created.key}`);
      });
    });
  keys
    .command('list <username>')
    .description("a user's keys (never the keys themselves)")
    .action(async (username: string) => {
      await withUser(cli, username, async (runtime, user) => {
        for (const k of await runtime.storage.apiKeys.list(user.id)) cli.print(`${k.id}\t${k.name}\t${k.prefix}…\t${k.scopes.join(',')}\t${k.revokedAt ? 'revoked' : 'active'}`);
      });
    });
  keys
    .command('revoke <id>')
    .description('revoke an API key')
    .action(async (id: string) => {
      await withStorage(cli, async (runtime) => {
        if (!(await runtime.storage.apiKeys.revoke(id))) throw new Error(`no API key ${id}`);
        cli.print(`revoked API key ${id}`);
      });
    });
}
