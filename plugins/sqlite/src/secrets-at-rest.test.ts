import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { definePlugin, defineNode, SEALED_SECRET_PREFIX } from '@wiflow/core';
import { createTestRuntime } from '@wiflow/core/testing';
import { describe, expect, it } from 'vitest';
import sqlitePlugin from './index.js';

const brokerNode = defineNode({
  type: 'test.broker',
  title: 'Broker with a password',
  category: 'transports',
  description: 'A node with a secret config field',
  inputs: {},
  outputs: {},
  config: z.object({ url: z.string(), password: z.string().optional() }),
  secrets: ['password'],
  create: () => ({}),
});
const brokerPlugin = definePlugin({ name: 'test-broker', setup: (ctx) => ctx.registerNode(brokerNode) });

describe('SQLite files and node secrets at rest', () => {
  it('creates the database, -wal and -shm owner-only (0600) and stores node secrets sealed with encryption off', async () => {
    const runtime = await createTestRuntime({ plugins: [sqlitePlugin, brokerPlugin], config: { storage: { kind: 'sqlite' }, privacy: { enable_encryption: false } } });
    await runtime.start();
    try {
      const storage = runtime.storage;
      const password = 'mqtt-password-in-clear-0451';
      const flow = await storage.flows.create({
        name: 'publish',
        data: { nodes: [{ id: 'b1', type: 'test.broker', position: { x: 0, y: 0 }, data: { nodeType: 'test.broker', config: { url: 'mqtt://broker.local', password } } }], edges: [] },
      });
      await storage.flows.update(flow.id, { name: 'publish (renamed)' });
      // Storage hands the secret back to the runtime (which needs it to connect); the API layer masks it.
      const read = await storage.flows.get(flow.id);
      expect((read!.data as any).nodes[0].data.config.password).toBe(password);
      const revision = await storage.revisions.get(flow.id, 1);
      expect((revision!.flow.data as any).nodes[0].data.config.password).toBe(password);

      const file = (storage as unknown as { file: string }).file;
      const onDisk = ['', '-wal', '-shm'].map((suffix) => `${file}${suffix}`);
      for (const f of onDisk) expect(statSync(f).mode & 0o777, f).toBe(0o600);
      expect(statSync(path.join(runtime.dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
      const bytes = Buffer.concat(onDisk.map((f) => readFileSync(f)));
      expect(bytes.includes(Buffer.from(password))).toBe(false);
      expect(bytes.includes(Buffer.from(SEALED_SECRET_PREFIX))).toBe(true);
      // The rest of the flow stays readable in the file (only secrets are sealed when encryption is off).
      expect(bytes.includes(Buffer.from('mqtt://broker.local'))).toBe(true);
    } finally {
      await runtime.stop(5000);
    }
  });
});
