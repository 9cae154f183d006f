// Authenticated GET /api/v1/pose/latest under autocannon on loopback, beside a bare Express
// route answering the same JSON, measured in the same run (alternating rounds).
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import express from 'express';
import { startBenchServer } from './bench-server.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const autocannonBin = path.join(path.dirname(require.resolve('autocannon/package.json')), 'autocannon.js');

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const rounds = Number(process.env.BENCH_ROUNDS ?? 4);

interface Result {
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** Server CPU time (this process: both servers live here, autocannon runs apart) per request, µs. */
  cpuPerRequestUs: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Result> {
  const args = [autocannonBin, '-c', String(connections), '-d', String(seconds), '-j'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  const cpu = process.cpuUsage();
  const { stdout } = await run(process.execPath, args, { maxBuffer: 1 << 24 });
  const used = process.cpuUsage(cpu);
  const r = JSON.parse(stdout);
  const total = Math.max(1, r.requests.total);
  return { requests: r.requests.total, rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, cpuPerRequestUs: (used.user + used.system) / total };
}

const server = await startBenchServer({ intervalMs: 50 });
await server.api.system.start();
await server.api.system.settled();
await new Promise<void>((resolve) => {
  const off = server.api.hub.subscribe({ frame: () => (off(), resolve()) });
});
const probe = await fetch(`${server.url}/api/v1/pose/latest`, { headers: { Authorization: `Bearer ${server.token}` } });
const sample = await probe.json();
if (probe.status !== 200) throw new Error(`pose/latest answered ${probe.status}: ${JSON.stringify(sample)}`);

const bare = express();
bare.get('/bare', (_req, res) => res.json(sample));
const bareServer = await new Promise<import('node:http').Server>((resolve) => {
  const s = bare.listen(0, '127.0.0.1', () => resolve(s));
});
const barePort = (bareServer.address() as { port: number }).port;

const results: { round: number; bare: Result; api: Result }[] = [];
for (let round = 1; round <= rounds; round++) {
  const b = await load(`http://127.0.0.1:${barePort}/bare`, {});
  const a = await load(`${server.url}/api/v1/pose/latest`, { Authorization: `Bearer ${server.token}` });
  results.push({ round, bare: b, api: a });
}

const lines = [
  `load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} (1/5/15 min)`,
  `machine: ${os.cpus().length} CPU (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}, ${connections} connections, ${seconds} s per run, body ${JSON.stringify(sample).length} bytes`,
  '| round | route | requests | req/s | p50 ms | p99 ms | non-2xx | server CPU µs/request |',
  '|---|---|---|---|---|---|---|---|',
  ...results.flatMap((r) => [
    `| ${r.round} | bare Express (same JSON) | ${r.bare.requests} | ${r.bare.rps.toFixed(0)} | ${r.bare.p50} | ${r.bare.p99} | ${r.bare.non2xx} | ${r.bare.cpuPerRequestUs.toFixed(0)} |`,
    `| ${r.round} | GET /api/v1/pose/latest (JWT, rate limiter, hub) | ${r.api.requests} | ${r.api.rps.toFixed(0)} | ${r.api.p50} | ${r.api.p99} | ${r.api.non2xx} | ${r.api.cpuPerRequestUs.toFixed(0)} |`,
  ]),
];
const sum = (pick: (r: (typeof results)[number]) => number) => results.reduce((a, r) => a + pick(r), 0);
const ratio = sum((r) => r.api.rps) / sum((r) => r.bare.rps);
const cpuRatio = sum((r) => r.bare.cpuPerRequestUs * r.bare.requests) / sum((r) => r.bare.requests) / (sum((r) => r.api.cpuPerRequestUs * r.api.requests) / sum((r) => r.api.requests));
lines.push(
  '',
  `pose API throughput = ${(ratio * 100).toFixed(1)} % of the bare route over all rounds (goal >= 50 %)`,
  `CPU-normalised: the bare route costs ${(cpuRatio * 100).toFixed(1)} % of the pose API's server CPU per request, i.e. on equal CPU the pose API serves ${(cpuRatio * 100).toFixed(1)} % of the bare route's requests`,
);
console.log(lines.join('\n'));
bareServer.close();
await server.runtime.stop(3000);
process.exit(0);
