// Test fixtures: a runtime with the real SQLite storage, the pose API on loopback, and a
// pose source node standing in for the model (the API is under test, not the model).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import supertest from 'supertest';
import { z } from 'zod';
import { Runtime, createLogger, defineNode, definePlugin, type CsiFrame, type WiflowPlugin } from '@wiflow/core';
import { syntheticFrame, syntheticSourcePlugin } from './bench/synthetic-source.js';
import healthcarePlugin from '@wiflow/plugin-healthcare';
import retailPlugin from '@wiflow/plugin-retail';
import securityPlugin from '@wiflow/plugin-security';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import { createIdentityPlugin } from '@wiflow/plugin-identity';
import { createPoseApiPlugin, PoseApiToken, type PoseApi } from './index.js';

/** Synthetic frames (the API is under test, not the model). */
export const makeFrame = syntheticFrame;

/**
 * `fixture.csi-pose`: a stand-in model for the POST /pose/process wiring: one PoseFrame per
 * `every` CsiFrames, persons = receive antennas of the last frame, confidence from its mean amplitude.
 */
export const fixtureCsiPose = defineNode({
  type: 'fixture.csi-pose',
  title: 'Fixture CSI to pose',
  category: 'models',
  description: 'Test stand-in model',
  inputs: { frames: { type: 'CsiFrame', required: true } },
  outputs: { poses: { type: 'PoseFrame' } },
  config: z.object({ every: z.number().int().positive().default(2) }),
  create(ctx) {
    let seen = 0;
    return {
      receive(_port, value) {
        const frame = value as CsiFrame;
        if (++seen % ctx.config.every) return;
        let sum = 0;
        for (let i = 0; i < frame.csi.re.length; i++) sum += Math.hypot(frame.csi.re[i], frame.csi.im[i]);
        const pose = syntheticFrame(seen, 'api', frame.nrx, frame.time);
        pose.persons.forEach((p) => (p.confidence = Math.min(1, sum / frame.csi.re.length)));
        pose.metadata = { ...pose.metadata, modelId: 'fixture-csi-pose', processingMode: 'job', provenance: frame.provenance };
        return ctx.emit('poses', pose);
      },
    };
  },
});

const fixturePlugin = definePlugin({ name: 'fixture', setup: (ctx) => ctx.registerNode(fixtureCsiPose) });

/** A running server for tests. */
export interface TestServer {
  runtime: Runtime;
  api: PoseApi;
  url: string;
  dataDir: string;
  http: supertest.Agent;
  adminPassword: string;
  printed: string[];
  /** An access token for a user with the role (created on demand). */
  token(role: 'viewer' | 'operator' | 'admin'): Promise<string>;
  close(): Promise<void>;
}

/** Start a runtime with SQLite, the fixture source and the pose API on 127.0.0.1:0. */
export async function startTestServer(options: { dataDir?: string; convention?: 'A' | 'B'; config?: Record<string, unknown>; env?: Record<string, string>; alertEvery?: number; intervalMs?: number; logLines?: string[]; plugins?: WiflowPlugin[]; withoutDomainPlugins?: boolean } = {}): Promise<TestServer> {
  // A given dataDir is another start of a server on the same data (restart tests).
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'wiflow-pose-api-'));
  const flowFile = path.join(dataDir, 'pipeline.json');
  writeFileSync(
    flowFile,
    JSON.stringify({
      id: 'fixture-pipeline',
      name: 'fixture pipeline',
      data: {
        nodes: [
          { id: 'source', position: { x: 0, y: 0 }, data: { nodeType: 'synthetic.poses', config: { intervalMs: options.intervalMs ?? 20, alertEvery: options.alertEvery ?? 0 } } },
          { id: 'publish', position: { x: 200, y: 0 }, data: { nodeType: 'pose.publish', config: {} } },
        ],
        edges: [
          { id: 'e1', source: 'source', sourceHandle: 'poses', target: 'publish', targetHandle: 'poses' },
          { id: 'e2', source: 'source', sourceHandle: 'alerts', target: 'publish', targetHandle: 'alerts' },
        ],
      },
    }),
  );
  const printed: string[] = [];
  const config = { ...(options.config ?? {}) } as Record<string, any>;
  config.api = { convention: options.convention ?? 'A', ...(config.api ?? {}), pipeline: { flow: flowFile, ...(config.api?.pipeline ?? {}) } };
  config.storage = { kind: 'sqlite', flushIntervalMs: 5, ...(config.storage ?? {}) };
  const env = { WIFLOW_JWT_SECRET: '', ...(options.env ?? {}) };
  const runtime = await Runtime.create({
    dataDir,
    discover: false,
    logger: options.logLines ? createLogger({ level: 'debug', write: (line) => options.logLines!.push(line) }) : createLogger({ level: 'silent' }),
    config,
    plugins: [sqlitePlugin, syntheticSourcePlugin, fixturePlugin, ...(options.withoutDomainPlugins ? [] : [healthcarePlugin, retailPlugin, securityPlugin]), ...(options.plugins ?? []), createIdentityPlugin({ print: (line) => printed.push(line), env }), createPoseApiPlugin({ env })],
  });
  const address = await runtime.listen(0, '127.0.0.1');
  const api = runtime.services.get(PoseApiToken);
  const adminPassword = printed.find((l) => /^wiflow: \S+$/.test(l))?.slice('wiflow: '.length) ?? options.env?.WIFLOW_ADMIN_PASSWORD ?? '';
  const tokens = new Map<string, string>();
  const server: TestServer = {
    runtime,
    api,
    url: address.url,
    dataDir,
    http: supertest.agent(address.url),
    adminPassword,
    printed,
    async token(role) {
      const known = tokens.get(role);
      if (known) return known;
      if (role !== 'admin' && !(await runtime.storage.users.getByUsername(role))) {
        await runtime.storage.users.create({ username: role, password: `${role}-password-123`, roles: [role] });
      }
      const username = role === 'admin' ? (options.env?.WIFLOW_ADMIN_USER ?? 'admin') : role;
      const password = role === 'admin' ? adminPassword : `${role}-password-123`;
      const grant = api.auth.signAccessToken((await runtime.storage.users.getByUsername(username))!);
      void password;
      tokens.set(role, grant.token);
      return grant.token;
    },
    async close() {
      await runtime.stop(5000);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return server;
}

/** Wait until `check` is true (polling the event loop, bounded). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
