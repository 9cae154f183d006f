// Flow service benchmark: the cost the HTTP API and MCP add on top of running a job in-process.
// Run: npm run build -w @wiflow/studio-server && npm run bench -w @wiflow/studio-server
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { definePlugin, Runtime, type FlowData } from '@wiflow/core';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import studioServerPlugin from '../index.js';

const TOKEN = 'bench-token';
const echoFlow: FlowData = {
  nodes: [
    { id: 'in', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'text' } } },
    { id: 'out', position: { x: 200, y: 0 }, data: { nodeType: 'io.output', config: { name: 'result', collect: 'last', schema: { type: 'string' } } } },
  ],
  edges: [{ id: 'e', source: 'in', sourceHandle: 'value', target: 'out', targetHandle: 'value' }],
};

function summarise(name: string, samples: number[], wallMs: number): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  return `| ${name} | ${samples.length} | ${q(0.5).toFixed(2)} | ${q(0.99).toFixed(2)} | ${((samples.length / wallMs) * 1000).toFixed(0)} |`;
}

async function measure(n: number, op: (i: number) => Promise<unknown>, concurrency = 1): Promise<{ samples: number[]; wallMs: number }> {
  const samples: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const t = performance.now();
        await op(i);
        samples.push(performance.now() - t);
      }
    }),
  );
  return { samples, wallMs: performance.now() - start };
}

async function main(): Promise<void> {
  const n = Number(process.env.BENCH_N ?? 300);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wiflow-studio-bench-'));
  const runtime = await Runtime.create({
    discover: false,
    dataDir,
    config: { storage: { kind: 'sqlite' }, jobs: { maxConcurrent: 16, maxPerUser: 16, maxPerFlow: 16, timeoutMs: 60_000 } },
    plugins: [
      sqlitePlugin,
      studioServerPlugin,
      definePlugin({
        name: 'bench-auth',
        setup: (ctx) => void ctx.hooks.authenticate.tap('bench-auth', ({ bearer }) => (bearer === TOKEN ? { userId: '11111111-1111-4111-8111-111111111111', username: 'bench', roles: ['operator'], via: 'bench' } : undefined)),
      }),
    ],
  });
  const { url } = await runtime.listen(0, '127.0.0.1');
  const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${url}${p}`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${p}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  const project = await post('/api/v1/projects/', { name: 'bench' });
  const flow = await post('/api/v1/flows/', { name: 'echo', data: echoFlow, mcp_enabled: true, action_name: 'echo', folder_id: project.id });

  const rows: string[] = [];
  // warm-up
  for (let i = 0; i < 20; i++) {
    await (await runtime.runJob(echoFlow, { inputs: { text: 'x' } })).done;
    await post(`/api/v1/run/${flow.id}`, { input_value: 'x' });
  }
  const direct = await measure(n, async (i) => (await runtime.runJob(echoFlow, { inputs: { text: `m${i}` } })).done);
  rows.push(summarise('baseline: runtime.runJob in-process (no HTTP, no storage)', direct.samples, direct.wallMs));
  const ping = await measure(n, async () => (await fetch(`${url}/health`)).text());
  rows.push(summarise('baseline: GET /health (HTTP round trip on the same server)', ping.samples, ping.wallMs));
  const append = await measure(n, (i) => runtime.storage.messages.append({ flowId: String(flow.id), sessionId: 'bench', sender: 'User', senderName: 'User', text: `m${i}` }));
  rows.push(summarise('baseline: storage.messages.append (one durable SQLite write)', append.samples, append.wallMs));
  const run1 = await measure(n, (i) => post(`/api/v1/run/${flow.id}`, { input_value: `m${i}` }));
  rows.push(summarise('POST /api/v1/run/{id} (HTTP, messages stored)', run1.samples, run1.wallMs));
  const run8 = await measure(n, (i) => post(`/api/v1/run/${flow.id}`, { input_value: `m${i}` }), 8);
  rows.push(summarise('POST /api/v1/run/{id}, 8 concurrent clients', run8.samples, run8.wallMs));
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/v1/mcp/project/${project.id}/streamable`), { requestInit: { headers: { authorization: headers.authorization } } }));
  for (let i = 0; i < 20; i++) await client.callTool({ name: 'echo', arguments: { text: 'x' } });
  const mcp = await measure(n, (i) => client.callTool({ name: 'echo', arguments: { text: `m${i}` } }));
  rows.push(summarise('MCP tools/call over Streamable HTTP (SDK client, stateful)', mcp.samples, mcp.wallMs));
  await client.close();
  const create = await measure(Math.min(n, 200), (i) => post('/api/v1/flows/', { name: `f${i}`, data: echoFlow }));
  rows.push(summarise('POST /api/v1/flows/ (validate + store revision 1)', create.samples, create.wallMs));

  console.log(`flow service benchmark — node ${process.version}, ${n} operations each\n`);
  console.log('| operation | n | p50 ms | p99 ms | ops/s |\n|---|---|---|---|---|');
  for (const row of rows) console.log(row);
  await runtime.stop(3000);
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
