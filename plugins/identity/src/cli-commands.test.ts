import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { Runtime, createLogger } from '@wiflow/core';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import { createIdentityPlugin, registerAuthCommands } from './index.js';

describe('wiflow users / api-keys commands', () => {
  it('adds a user with a printed-once password, creates, lists and revokes an API key', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-identity-cli-'));
    const printed: string[] = [];
    const make = () => Runtime.create({ dataDir, discover: false, logger: createLogger({ level: 'silent' }), plugins: [sqlitePlugin, createIdentityPlugin({ print: (l) => printed.push(l), env: {} })] });
    const run = async (...args: string[]) => {
      const program = new Command().exitOverride();
      registerAuthCommands(program, { runtime: make, print: (line) => printed.push(line) });
      await program.parseAsync(args, { from: 'user' });
    };
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
});
