import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Runtime, createLogger } from '@wiflow/core';
import { createIdentityPlugin } from '@wiflow/plugin-identity';
import { createPoseApiPlugin, PoseApiToken, type PoseApi } from '../index.js';
import { syntheticSourcePlugin } from './synthetic-source.js';

/** A runtime with the pose API (no storage: the hot paths read the hub) running a synthetic pipeline. */
export async function startBenchServer(options: { intervalMs: number; persons?: number; websocket?: Record<string, unknown> }): Promise<{ runtime: Runtime; api: PoseApi; url: string; token: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-pose-bench-'));
  const flow = path.join(dataDir, 'flow.json');
  writeFileSync(
    flow,
    JSON.stringify({
      nodes: [
        { id: 'source', position: { x: 0, y: 0 }, data: { nodeType: 'synthetic.poses', config: { intervalMs: options.intervalMs, persons: options.persons ?? 2 } } },
        { id: 'publish', position: { x: 0, y: 0 }, data: { nodeType: 'pose.publish', config: {} } },
      ],
      edges: [{ id: 'e', source: 'source', sourceHandle: 'poses', target: 'publish', targetHandle: 'poses' }],
    }),
  );
  const huge = { limit: 1_000_000_000, windowSeconds: 3600 };
  const runtime = await Runtime.create({
    dataDir,
    discover: false,
    logger: createLogger({ level: 'warn' }),
    config: {
      storage: { kind: 'none' },
      api: {
        convention: 'A',
        pipeline: { flow },
        // The limiter still counts every request; the limits are raised so the load is not refused.
        rateLimits: { pose_read: huge, auth: huge },
        websocket: { maxConnectionsPerIp: 100, ...(options.websocket ?? {}) },
      },
    },
    plugins: [syntheticSourcePlugin, createIdentityPlugin({ print: () => undefined, env: {} }), createPoseApiPlugin({ env: {} })],
  });
  const address = await runtime.listen(0, '127.0.0.1');
  const api = runtime.services.get(PoseApiToken);
  const token = api.auth.signAccessToken({ id: 'bench', username: 'bench', roles: ['viewer'] }).token;
  return { runtime, api, url: address.url, token };
}
