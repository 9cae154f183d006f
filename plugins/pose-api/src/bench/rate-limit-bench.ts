// What cluster mode adds to every rate-limited request: RateLimiter.check against the NATS KV
// store (NatsRateLimitStore, a real nats-server on loopback) beside the in-memory store, in the
// same run, alternating rounds. Sequential (one request at a time: added latency) and 32 in
// flight over 1,000 callers (throughput), and 32 in flight on one caller (compare-and-set conflicts).
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { NatsRateLimitStore } from '@wiflow/plugin-nats';
import { startNatsServer } from '@wiflow/plugin-nats/testing';
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from '../limits/rate-limiter.js';

const checks = Number(process.env.BENCH_CHECKS ?? 2000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

/** CPU seconds a process used so far (user + system, from /proc). */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function measure(store: RateLimitStore, inFlight: number, callers: number, serverPid: number) {
  const limiter = new RateLimiter(store);
  let next = 0;
  const cpu = process.cpuUsage();
  const serverCpu = cpuOf(serverPid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < checks) {
        const i = next++;
        await limiter.check('pose_read', `key:${i % callers}`, 1_000_000, 3600);
      }
    }),
  );
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { perSecond: (checks / wallMs) * 1000, meanMs: (wallMs * inFlight) / checks, clientCpuUs: (used.user + used.system) / checks, serverCpuUs: ((cpuOf(serverPid) - serverCpu) * 1e6) / checks };
}

const server = await startNatsServer();
const nc = await server.connect();
const load = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');
console.log(`rate-limit bench: ${checks} checks per case, ${rounds} rounds, nproc ${os.cpus().length}, load before ${load()}`);
const cases = [
  { name: 'sequential, 1,000 callers', inFlight: 1, callers: 1000 },
  { name: '32 in flight, 1,000 callers', inFlight: 32, callers: 1000 },
  { name: '32 in flight, one caller', inFlight: 32, callers: 1 },
];
const rows: string[] = [];
for (const c of cases) {
  const results: Record<string, ReturnType<typeof measure> extends Promise<infer R> ? R[] : never> = { memory: [], nats: [] };
  for (let round = 0; round < rounds; round++) {
    results.memory.push(await measure(new MemoryRateLimitStore(), c.inFlight, c.callers, server.process.pid!));
    const store = new NatsRateLimitStore(nc, { bucket: `bench_${round}_${c.inFlight}_${c.callers}` });
    await store.hit('warm-up', 60_000, Date.now());
    results.nats.push(await measure(store, c.inFlight, c.callers, server.process.pid!));
  }
  for (const [name, list] of Object.entries(results)) {
    const range = (f: (r: (typeof list)[number]) => number, digits = 0) => {
      const v = list.map(f);
      return `${Math.min(...v).toFixed(digits)}–${Math.max(...v).toFixed(digits)}`;
    };
    rows.push(`| ${c.name} | ${name} | ${range((r) => r.perSecond)} | ${range((r) => r.meanMs, 3)} | ${range((r) => r.clientCpuUs)} | ${name === 'nats' ? range((r) => r.serverCpuUs) : '—'} |`);
  }
}
console.log('| case | store | checks/s | mean latency ms | API process CPU µs/check | nats-server CPU µs/check |');
console.log('|---|---|---|---|---|---|');
for (const row of rows) console.log(row);
console.log(`load after ${load()}`);
await server.stop();
