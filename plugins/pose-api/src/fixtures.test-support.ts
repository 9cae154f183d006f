// Test fixtures: a runtime with the real SQLite storage, the pose API on loopback, and a
// pose source node standing in for the model (the API is under test, not the model).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import supertest from 'supertest';
import { COCO_KEYPOINTS, Runtime, createLogger, defineNode, definePlugin, type Alert, type Person, type PoseFrame } from '@wiflow/core';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import { createPoseApiPlugin, PoseApiToken, type PoseApi } from './index.js';

/** A deterministic frame: `persons` people walking across a 6 m room. */
export function makeFrame(frameId: number, environmentId = 'lab', persons = 2, timestamp = Date.now()): PoseFrame {
  const people: Person[] = Array.from({ length: persons }, (_, i) => {
    const x = (frameId * 0.05 + i) % 6;
    const y = 1 + i;
    return {
      id: i,
      trackId: 100 + i,
      confidence: i === 0 ? 0.9 : 0.4,
      keypoints: COCO_KEYPOINTS.map((name, k) => ({ name, x: 100 + x * 50 + k, y: 50 + k * 10, confidence: 0.8, visible: true })),
      boundingBox: { x: 90 + x * 50, y: 40, width: 60, height: 180 },
      keypoints3d: [],
      position: { x, y },
      velocity: { x: 0.5, y: 0 },
      trackAge: frameId,
      trackStatus: 'active',
      densePose: { source: 'derived', bodyParts: [{ partId: 1, partName: 'torso', uvCoordinates: [[0.5, 0.5]], confidence: 0.7 }] },
      activity: i === 0 ? 'walking' : 'sitting',
    };
  });
  return {
    timestamp,
    frameId,
    environmentId,
    processingTimeMs: 3.5,
    persons: people,
    metadata: { modelId: 'fixture-source', modelHash: 'sha256:fixture', modelVersion: '0', processingMode: 'realtime', provenance: 'simulated', csiQuality: 0.9, linkCount: 3, pipeline: 'fixture' },
  };
}

/** `fixture.poses`: emits frames every `intervalMs` until stopped, an alert every `alertEvery` frames. */
export const fixturePoseSource = defineNode({
  type: 'fixture.poses',
  title: 'Fixture pose source',
  category: 'sources',
  description: 'Test frames',
  inputs: {},
  outputs: { poses: { type: 'PoseFrame' }, alerts: { type: 'Alert' } },
  config: z.object({ intervalMs: z.number().default(20), alertEvery: z.number().default(0), environmentId: z.string().default('lab') }),
  source: true,
  create(ctx) {
    return {
      async run() {
        let frameId = 0;
        while (!ctx.signal.aborted) {
          frameId++;
          await ctx.emit('poses', makeFrame(frameId, ctx.config.environmentId));
          if (ctx.config.alertEvery && frameId % ctx.config.alertEvery === 0) {
            const alert: Alert = {
              alertId: `alert-${frameId}`,
              alertType: frameId % (2 * ctx.config.alertEvery) === 0 ? 'intrusion' : 'fall_detection',
              severity: frameId % (2 * ctx.config.alertEvery) === 0 ? 'critical' : 'high',
              timestamp: Date.now(),
              environmentId: ctx.config.environmentId,
              message: 'fixture alert',
              data: { person_id: 0, location: { x: 1, y: 2 }, confidence: 0.95 },
              actionsRequired: ['check_room'],
              eventId: null,
              source: 'fixture',
            };
            await ctx.emit('alerts', alert);
          }
          await new Promise((resolve) => setTimeout(resolve, ctx.config.intervalMs));
        }
      },
    };
  },
});

const fixturePlugin = definePlugin({ name: 'fixture', setup: (ctx) => ctx.registerNode(fixturePoseSource) });

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
export async function startTestServer(options: { convention?: 'A' | 'B'; config?: Record<string, unknown>; env?: Record<string, string>; alertEvery?: number; intervalMs?: number } = {}): Promise<TestServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-pose-api-'));
  const flowFile = path.join(dataDir, 'pipeline.json');
  writeFileSync(
    flowFile,
    JSON.stringify({
      id: 'fixture-pipeline',
      name: 'fixture pipeline',
      data: {
        nodes: [
          { id: 'source', position: { x: 0, y: 0 }, data: { nodeType: 'fixture.poses', config: { intervalMs: options.intervalMs ?? 20, alertEvery: options.alertEvery ?? 0 } } },
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
  const runtime = await Runtime.create({
    dataDir,
    discover: false,
    logger: createLogger({ level: 'silent' }),
    config,
    plugins: [sqlitePlugin, fixturePlugin, createPoseApiPlugin({ print: (line) => printed.push(line), env: { WIFLOW_JWT_SECRET: '', ...(options.env ?? {}) } })],
  });
  const address = await runtime.listen(0, '127.0.0.1');
  const api = runtime.resolve<PoseApi>(PoseApiToken);
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
