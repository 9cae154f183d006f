// Test-only plugins: simple node types and an authentication plugin backed by the real storage's users and API keys.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { definePlugin, defineNode, Runtime, type FlowData, type Principal, type WiflowPlugin } from '@wiflow/core';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import supertest from 'supertest';
import { afterAll } from 'vitest';
import { z } from 'zod';
import studioServerPlugin from '../index.js';

// The abort listener goes when the timer fires: a source that waits often on its pipeline's
// one signal would otherwise pile them up (MaxListenersExceededWarning after 10).
const delay = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

/** Node types for flow-service tests. */
export const testNodesPlugin: WiflowPlugin = definePlugin({
  name: 'studio-test-nodes',
  setup(ctx) {
    ctx.registerNode(
      defineNode({
        type: 'stest.upper',
        title: 'Upper case',
        category: 'testing',
        description: 'Upper-cases text and appends a suffix.',
        inputs: { text: { type: 'any', required: true } },
        outputs: { text: { type: 'text' } },
        config: z.object({ suffix: z.string().max(20).default('') }),
        create: (c) => ({ receive: (_p, v) => c.emit('text', `${String(v).toUpperCase()}${c.config.suffix}`) }),
      }),
    );
    ctx.registerNode(
      defineNode({
        type: 'stest.words',
        title: 'Words',
        category: 'testing',
        description: 'Emits its text word by word (each word with the spaces after it), as a model streaming tokens does.',
        inputs: { text: { type: 'any', required: true } },
        outputs: { text: { type: 'text' } },
        config: z.object({}),
        create: (c) => ({
          async receive(_p, v) {
            for (const word of String(v).match(/\S+\s*/g) ?? []) await c.emit('text', word);
          },
        }),
      }),
    );
    ctx.registerNode(
      defineNode({
        type: 'stest.add',
        title: 'Add',
        category: 'testing',
        description: 'Adds `amount` to a number.',
        inputs: { value: { type: 'any', required: true } },
        outputs: { value: { type: 'number' } },
        config: z.object({ amount: z.number().default(1) }),
        create: (c) => ({ receive: (_p, v) => c.emit('value', Number(v) + c.config.amount) }),
      }),
    );
    ctx.registerNode(
      defineNode({
        type: 'stest.fail',
        title: 'Fail',
        category: 'testing',
        description: 'Throws on every value.',
        inputs: { value: { type: 'any', required: true } },
        outputs: { value: { type: 'any' } },
        config: z.object({ message: z.string().default('boom') }),
        create: (c) => ({
          receive: () => {
            throw new Error(c.config.message);
          },
        }),
      }),
    );
    ctx.registerNode(
      defineNode({
        type: 'stest.slow',
        title: 'Slow',
        category: 'testing',
        description: 'Waits `steps` times `delayMs`, reporting progress, then passes the value on.',
        inputs: { value: { type: 'any', required: true } },
        outputs: { value: { type: 'any' } },
        config: z.object({ steps: z.number().int().min(1).default(5), delayMs: z.number().int().min(0).default(20) }),
        create: (c) => ({
          async receive(_p, v) {
            for (let i = 0; i < c.config.steps; i++) {
              await delay(c.config.delayMs, c.signal);
              if (c.signal.aborted) return;
              c.progress((i + 1) / c.config.steps, `step ${i + 1}/${c.config.steps}`);
            }
            await c.emit('value', v);
          },
        }),
      }),
    );
    ctx.registerNode(
      defineNode({
        type: 'stest.secret',
        title: 'Secret user',
        category: 'testing',
        description: 'Emits `label:<length of apiKey>` (proves the secret reached the node).',
        inputs: { value: { type: 'any', required: true } },
        outputs: { text: { type: 'text' } },
        config: z.object({ apiKey: z.string().default(''), label: z.string().default('key') }),
        secrets: ['apiKey'],
        create: (c) => ({ receive: () => c.emit('text', `${c.config.label}:${c.config.apiKey.length}`) }),
      }),
    );
    ctx.registerNode(
      defineNode({
        type: 'stest.filesize',
        title: 'File size',
        category: 'testing',
        description: 'Reads a file path and emits its size in bytes.',
        inputs: { path: { type: 'any', required: true } },
        outputs: { size: { type: 'number' } },
        config: z.object({}),
        create: (c) => ({
          async receive(_p, v) {
            const { stat } = await import('node:fs/promises');
            await c.emit('size', (await stat(String(v))).size);
          },
        }),
      }),
    );
    ctx.registerNode(
      defineNode({
        type: 'stest.filesource',
        title: 'File source',
        category: 'testing',
        description: 'Source: emits the size of the file at config `path` (like csi.file, the path is config).',
        inputs: {},
        outputs: { size: { type: 'number' } },
        config: z.object({ path: z.string().min(1) }),
        source: true,
        create: (c) => ({
          async run() {
            const { stat } = await import('node:fs/promises');
            await c.emit('size', (await stat(c.config.path)).size);
          },
        }),
      }),
    );
    ctx.registerNode(
      defineNode({
        type: 'stest.count',
        title: 'Count',
        category: 'testing',
        description: 'Counts the values it receives and emits the count when upstream is done.',
        inputs: { value: { type: 'any', required: true } },
        outputs: { count: { type: 'number' } },
        config: z.object({}),
        create: (c) => {
          let n = 0;
          return {
            receive: () => void n++,
            flush: () => c.emit('count', n),
          };
        },
      }),
    );
    ctx.registerNode(
      defineNode({
        type: 'stest.ticker',
        title: 'Ticker',
        category: 'testing',
        description: 'Stream source: emits 1, 2, 3... every `everyMs` until stopped.',
        inputs: {},
        outputs: { value: { type: 'number' } },
        config: z.object({ everyMs: z.number().int().min(1).default(5) }),
        source: true,
        create: (c) => ({
          async run() {
            for (let n = 1; !c.signal.aborted; n++) {
              await c.emit('value', n);
              await delay(c.config.everyMs, c.signal);
            }
          },
        }),
      }),
    );
    ctx.registerNode(
      defineNode({
        type: 'stest.sink',
        title: 'Sink',
        category: 'testing',
        description: 'Swallows values.',
        inputs: { value: { type: 'any', required: true } },
        outputs: {},
        config: z.object({}),
        create: () => ({ receive: () => {} }),
      }),
    );
  },
});

/** Bearer tokens the test auth plugin accepts (token → principal). */
export const testBearerTokens = new Map<string, Principal>();

/** Authenticates API keys through the storage's real key table, and bearer tokens from `testBearerTokens`. */
export const testAuthPlugin: WiflowPlugin = definePlugin({
  name: 'studio-test-auth',
  setup(ctx) {
    ctx.hooks.authenticate.tapPromise('studio-test-auth', async ({ apiKey, bearer }) => {
      if (bearer) return testBearerTokens.get(bearer);
      if (!apiKey) return undefined;
      const record = await ctx.storage.apiKeys.verify(apiKey);
      if (!record) return undefined;
      const user = await ctx.storage.users.get(record.userId);
      return user ? { userId: user.id, username: user.username, roles: user.roles, via: 'apikey' } : undefined;
    });
  },
});

/** A user of a test server with credentials. */
export interface TestUser {
  id: string;
  username: string;
  apiKey: string;
  token: string;
  /** Authorization header value. */
  auth: { Authorization: string };
}

/** A started runtime with the studio server on a free loopback port. */
export interface TestStudio {
  runtime: Runtime;
  url: string;
  dataDir: string;
  http: supertest.Agent;
  /** Operators (they create, run and deploy flows). */
  alice: TestUser;
  bob: TestUser;
  /** A viewer: read-only. */
  vera: TestUser;
  close(): Promise<void>;
}

/**
 * Start a runtime with SQLite storage, the studio server, test nodes and test auth; two users with
 * keys and tokens. `dataDir`: reopen an earlier studio's data (a restart); its users are reused.
 */
export async function startTestStudio(options: { studio?: Record<string, unknown>; jobs?: Record<string, unknown>; plugins?: WiflowPlugin[]; discover?: boolean; dataDir?: string } = {}): Promise<TestStudio> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'wiflow-studio-'));
  const runtime = await Runtime.create({
    discover: options.discover ?? false,
    dataDir,
    config: { server: { port: 0, host: '127.0.0.1', shutdownTimeoutMs: 3000 }, storage: { kind: 'sqlite' }, ...(options.studio ? { studio: options.studio } : {}), ...(options.jobs ? { jobs: options.jobs } : {}) },
    plugins: [sqlitePlugin, studioServerPlugin, testNodesPlugin, testAuthPlugin, ...(options.plugins ?? [])],
    logger: quietLogger(),
  });
  const { url } = await runtime.listen(0, '127.0.0.1');
  const makeUser = async (username: string, roles: string[]): Promise<TestUser> => {
    const user = (await runtime.storage.users.getByUsername(username)) ?? (await runtime.storage.users.create({ username, password: `${username}-password-123`, roles }));
    const { key } = await runtime.storage.apiKeys.create({ userId: user.id, name: 'test' });
    const token = `token-${randomUUID()}`;
    testBearerTokens.set(token, { userId: user.id, username, roles, via: 'jwt' });
    return { id: user.id, username, apiKey: key, token, auth: { Authorization: `Bearer ${token}` } };
  };
  const alice = await makeUser('alice', ['operator']);
  const bob = await makeUser('bob', ['operator']);
  const vera = await makeUser('vera', ['viewer']);
  return { runtime, url, dataDir, http: supertest.agent(url), alice, bob, vera, close: () => runtime.stop(3000) };
}

/**
 * A test studio for the test file that awaits it at its top level: started at once, closed after
 * the file's tests. The files that share one studio across their tests start it this way.
 */
export async function testStudioForFile(options: Parameters<typeof startTestStudio>[0] = {}): Promise<TestStudio> {
  const studio = await startTestStudio(options);
  afterAll(() => studio.close());
  return studio;
}

function quietLogger() {
  const noop = () => {};
  const logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => logger };
  return logger as never;
}

/** A flow data graph: io.input `text` → stest.upper → io.output `result` (collect last). */
export function upperFlow(options: { suffix?: string; description?: string } = {}): FlowData {
  return {
    nodes: [
      { id: 'in', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'text', description: options.description ?? 'Text to shout', valueType: 'text' } } },
      { id: 'up', position: { x: 200, y: 0 }, data: { nodeType: 'stest.upper', title: 'Shouter', config: { suffix: options.suffix ?? '' } } },
      { id: 'out', position: { x: 400, y: 0 }, data: { nodeType: 'io.output', config: { name: 'result', collect: 'last', schema: { type: 'string' } } } },
    ],
    edges: [
      { id: 'e1', source: 'in', sourceHandle: 'value', target: 'up', targetHandle: 'text' },
      { id: 'e2', source: 'up', sourceHandle: 'text', target: 'out', targetHandle: 'value' },
    ],
    viewport: { x: 0, y: 0, zoom: 1 },
  };
}

/** A linear flow: io.input `value` (given type) → nodes of the given types in a chain → io.output `result`. */
export function chainFlow(steps: { type: string; config?: Record<string, unknown>; inPort?: string; outPort?: string }[], input: { name?: string; valueType?: string } = {}): FlowData {
  const nodes: FlowData['nodes'] = [{ id: 'in', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: input.name ?? 'value', valueType: input.valueType ?? 'number' } } }];
  const edges: FlowData['edges'] = [];
  let prev = { id: 'in', port: 'value' };
  steps.forEach((s, i) => {
    const id = `n${i}`;
    nodes.push({ id, position: { x: 200 * (i + 1), y: 0 }, data: { nodeType: s.type, config: s.config ?? {} } });
    edges.push({ id: `e${i}`, source: prev.id, sourceHandle: prev.port, target: id, targetHandle: s.inPort ?? 'value' });
    prev = { id, port: s.outPort ?? 'value' };
  });
  nodes.push({ id: 'out', position: { x: 200 * (steps.length + 1), y: 0 }, data: { nodeType: 'io.output', config: { name: 'result', collect: 'last' } } });
  edges.push({ id: 'e-out', source: prev.id, sourceHandle: prev.port, target: 'out', targetHandle: 'value' });
  return { nodes, edges };
}

/** A supertest body parser that keeps the raw bytes (zip downloads). */
export const binaryParser = ((res: NodeJS.ReadableStream, callback: (err: Error | null, body: Buffer) => void): void => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}) as never;
