import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeValue } from './codec.js';
import { NATS_SERVER, startNatsServer } from './nats-server.test-helper.js';
import { Subjects } from './subjects.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const bin = path.join(root, 'core/bin/wiflow.js');
const workPlugin = path.resolve(here, '../test-fixtures/work-plugin.mjs');

if (!NATS_SERVER) console.warn('NATS cluster test skipped: nats-server is not installed (apt-get install nats-server; .ci/run installs it)');

function flow(nodes: Record<string, [string, Record<string, unknown>]>, edges: [string, string][]) {
  return {
    name: 'cluster',
    data: {
      nodes: Object.entries(nodes).map(([id, [nodeType, config]]) => ({ id, position: { x: 0, y: 0 }, data: { nodeType, config } })),
      edges: edges.map(([s, t], i) => ({ id: `e${i}`, source: s.split('.')[0], sourceHandle: s.split('.')[1], target: t.split('.')[0], targetHandle: t.split('.')[1] })),
    },
  };
}

function startRuntime(flowFile: string, url: string, dataDir: string): ChildProcess {
  // Only the NATS plugin (and the test plugin) load: faster starts, nothing else involved.
  const config = path.join(path.dirname(flowFile), 'runtime-config.json');
  writeFileSync(config, JSON.stringify({ plugins: { allow: ['@wiflow/plugin-nats'] } }));
  return spawn(process.execPath, [bin, 'pipeline', flowFile, '--plugin', workPlugin, '--config', config, '--data-dir', dataDir], {
    cwd: root,
    env: { ...process.env, WIFLOW_NATS_URL: url, WIFLOW_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe.skipIf(!NATS_SERVER)('NATS JetStream across processes', () => {
  let server: Awaited<ReturnType<typeof startNatsServer>>;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await server?.stop();
  });

  it('two workers share frames of 4 environments; one is killed mid-stream; every frame comes out exactly once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-cluster-'));
    const outFile = path.join(dir, 'poses.jsonl');
    const workerFlow = path.join(dir, 'worker.json');
    const apiFlow = path.join(dir, 'api.json');
    writeFileSync(workerFlow, JSON.stringify(flow(
      {
        sub: ['nats.subscribe', { subject: 'csi.>', durable: 'model-workers', batch: 8, ackWaitMs: 1000 }],
        work: ['clustertest.work', { ms: 4 }],
        pub: ['nats.publish', { subject: 'pose.{environment}', messageId: '{environment}.{link}.{seq}' }],
      },
      [['sub.out', 'work.in'], ['work.out', 'pub.in']],
    )));
    writeFileSync(apiFlow, JSON.stringify(flow(
      { sub: ['nats.subscribe', { subject: 'pose.>', durable: 'api', batch: 64 }], rec: ['clustertest.record', { file: outFile }] },
      [['sub.out', 'rec.in']],
    )));

    const environments = ['kitchen', 'bedroom', 'hall', 'office'];
    const perEnvironment = 150;
    const nc = await connect({ servers: server.url });
    // Start the consumers first so their durable consumers exist.
    const workerA = startRuntime(workerFlow, server.url, path.join(dir, 'a'));
    const workerB = startRuntime(workerFlow, server.url, path.join(dir, 'b'));
    const api = startRuntime(apiFlow, server.url, path.join(dir, 'api'));
    children.push(workerA, workerB, api);
    await Promise.all([workerA, workerB, api].map((c) => new Promise<void>((resolve, reject) => {
      let out = '';
      c.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('pipeline_started')) resolve();
      });
      c.once('exit', (code) => reject(new Error(`runtime exited early (${code})`)));
    })));

    const js = jetstream(nc);
    for (let seq = 0; seq < perEnvironment; seq++) {
      for (const environment of environments) {
        const value = { environmentId: environment, link: { tx: 'ap', rx: 'rx1' }, seq, payload: new Float32Array([seq, seq + 0.5]) };
        await js.publish(Subjects.csi(environment, 'ap-rx1'), encodeValue(value), { msgID: `${environment}.${seq}` });
      }
    }
    const total = environments.length * perEnvironment;

    // Kill worker A once some (not all) results are out.
    const count = () => (existsSync(outFile) ? readFileSync(outFile, 'utf8').trim().split('\n').filter(Boolean).length : 0);
    const deadline = Date.now() + 60_000;
    while (count() < total * 0.2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    workerA.kill('SIGKILL');
    const killedAt = count();
    while (count() < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    // Wait past the redelivery and duplicate window effects, then read everything.
    await new Promise((r) => setTimeout(r, 2500));
    const records = readFileSync(outFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { environmentId: string; seq: number; processedBy: number; payloadType: string });
    const keys = records.map((r) => `${r.environmentId}.${r.seq}`);
    expect(killedAt).toBeLessThan(total);
    expect(new Set(keys).size).toBe(total);
    expect(records.length).toBe(total);
    const pids = new Set(records.map((r) => r.processedBy));
    expect(pids.has(workerA.pid!)).toBe(true);
    expect(pids.has(workerB.pid!)).toBe(true);
    expect(records.every((r) => r.payloadType === 'Float32Array')).toBe(true);
    await nc.close();
  }, 120_000);
});
