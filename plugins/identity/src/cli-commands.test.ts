import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Runtime, createLogger } from '@wiflow/core';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import { createIdentityPlugin, registerAuthCommands } from './index.js';

/** The commands over a fresh SQLite data folder: what they printed, a runtime on it, and `run(...args)`. */
function commands(prefix: string) {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  const printed: string[] = [];
  const make = () => Runtime.create({ dataDir, discover: false, logger: createLogger({ level: 'silent' }), plugins: [sqlitePlugin, createIdentityPlugin({ print: (l) => printed.push(l), env: {} })] });
  const run = async (...args: string[]) => {
    const program = new Command().exitOverride();
    registerAuthCommands(program, { runtime: make, print: (line) => printed.push(line) });
    await program.parseAsync(args, { from: 'user' });
  };
  return { printed, make, run };
}

describe('wiflow users / api-keys commands', () => {
  it('adds a user with a printed-once password, creates, lists and revokes an API key', async () => {
    const { printed, make, run } = commands('wiflow-identity-cli-');
    await run('users', 'add', 'alice', '--role', 'operator');
    const password = printed.find((l) => l.startsWith('password (shown once): '))!.slice('password (shown once): '.length);
    expect(password.length).toBeGreaterThanOrEqual(20);
    await run('api-keys', 'create', '--user', 'alice', '--name', 'ci', '--role', 'viewer');
    const key = printed.find((l) => l.startsWith('key (shown once): '))!.slice('key (shown once): '.length);
    const id = /created API key (\S+)/.exec(printed.join('\n'))![1];
    await expect(run('api-keys', 'create', '--user', 'alice', '--name', 'x', '--role', 'admin')).rejects.toThrow(/does not have the admin role/);
    const runtime = await make();
    await runtime.start();
    try {
      expect(await runtime.storage.users.verifyPassword('alice', password)).not.toBeNull();
      expect((await runtime.storage.apiKeys.verify(key))?.scopes).toEqual(['viewer']);
    } finally {
      await runtime.stop(2000);
    }
    printed.length = 0;
    await run('api-keys', 'list', 'alice');
    expect(printed.join('\n')).toContain(id);
    expect(printed.join('\n')).not.toContain(key);
    await run('api-keys', 'revoke', id);
    await run('users', 'list');
    expect(printed.join('\n')).toMatch(/alice\toperator\tactive/);
  });

  afterEach(() => vi.unstubAllEnvs());

  it('passwd sets WIFLOW_NEW_PASSWORD (12 characters at least) or prints a generated one once; an unknown user fails', async () => {
    const { printed, make, run } = commands('wiflow-identity-passwd-');
    vi.stubEnv('WIFLOW_NEW_PASSWORD', 'bob-first-password-1');
    await run('users', 'add', 'bob');
    expect(printed.filter((l) => l.startsWith('password (shown once): '))).toEqual([]);
    vi.stubEnv('WIFLOW_NEW_PASSWORD', 'too-short');
    await expect(run('users', 'passwd', 'bob')).rejects.toThrow('WIFLOW_NEW_PASSWORD must be at least 12 characters');
    await expect(run('users', 'passwd', 'nobody')).rejects.toThrow('no user nobody');
    await expect(run('api-keys', 'list', 'nobody')).rejects.toThrow('no user nobody');
    vi.stubEnv('WIFLOW_NEW_PASSWORD', '');
    await run('users', 'passwd', 'bob');
    const generated = printed.find((l) => l.startsWith('password (shown once): '))!.slice('password (shown once): '.length);
    expect(printed).toContain('password of bob changed');
    const runtime = await make();
    await runtime.start();
    try {
      expect(await runtime.storage.users.verifyPassword('bob', 'bob-first-password-1')).toBeNull();
      expect(await runtime.storage.users.verifyPassword('bob', generated)).not.toBeNull();
    } finally {
      await runtime.stop(2000);
    }
  });
});
