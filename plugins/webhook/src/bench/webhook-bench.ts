// Benchmark: webhook delivery throughput to a local HTTP receiver — raw fetch loop (baseline) vs the WebhookDispatcher.
import { createServer } from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Tokens, type SecretBox, type WiflowPlugin } from '@wiflow/core';
import { createTestRuntime } from '@wiflow/core/testing';
import sqlitePlugin from '@wiflow/plugin-sqlite';
import webhookPlugin, { WebhookTokens, type WebhookDispatcher } from '../index.js';

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 3000);
const CONCURRENCY = 4;
const SECRET = 'bench-secret-0123456789abcdef';

/** A receiver that answers 200 at once and counts requests. */
async function receiver() {
  let count = 0;
  let target = Infinity;
  let onTarget: (() => void) | undefined;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      if (++count >= target) onTarget?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hook`;
  return {
    url,
    reset() {
      count = 0;
    },
    waitFor(n: number): Promise<void> {
      target = n;
      if (count >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${count} of ${n} requests arrived`)), 300_000);
        onTarget = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

const alertData = (n: number) => ({
  alert_id: `alert-${n}`,
  timestamp: new Date().toISOString(),
  alert_type: 'fall_detection',
  severity: 'critical',
  environment_id: 'bench',
  message: 'fall detected in bench',
  data: { person_id: 0, location: { x: 1.2, y: 3.4 }, confidence: 0.93 },
  actions_required: ['check on person'],
  event_id: `evt-${n}`,
  source: 'healthcare.fall/hip-drop-v1',
});

/** Baseline: POST the same bodies with fetch, CONCURRENCY at a time, no signing, no log. */
async function rawFetch(url: string, n: number): Promise<number> {
  const bodies = Array.from({ length: n }, (_, i) => JSON.stringify({ id: `dlv_${i}`, type: 'alert.fall_detection', data: alertData(i) }));
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const body = bodies[next++];
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await response.arrayBuffer();
      }
    }),
  );
  return performance.now() - started;
}

/** The dispatcher: sign, rate-limit (raised), log to storage, deliver; until the receiver got all and the log is written. */
async function dispatcher(url: string, n: number, plugins: WiflowPlugin[], rx: Awaited<ReturnType<typeof receiver>>): Promise<{ ms: number; deliveredMs: number; logged: number }> {
  const runtime = await createTestRuntime({ plugins: [...plugins, webhookPlugin], config: { webhooks: { concurrency: CONCURRENCY, rateLimit: { events: 10_000_000, windowSeconds: 3600 }, queueLimit: n, logLimit: n } } });
  await runtime.start();
  const service = runtime.services.get(WebhookTokens.Dispatcher);
  // Register as the API does: a sealed secret, then the dispatcher's live endpoint.
  const record = { id: 'wh_bench', url, eventTypes: ['alert.*'], description: null, active: true, secretSealed: runtime.services.get(Tokens.SecretBox).seal(SECRET), createdAt: Date.now(), updatedAt: Date.now(), createdBy: 'bench' };
  await service.load();
  service.upsert(record);
  rx.reset();
  const started = performance.now();
  for (let i = 0; i < n; i++) await service.dispatch('alert.fall_detection', 'bench', alertData(i));
  await rx.waitFor(n);
  const deliveredMs = performance.now() - started;
  await service.idle(300_000);
  const ms = performance.now() - started;
  const logged = service.endpointStats('wh_bench')?.delivered ?? 0;
  await runtime.stop(10_000);
  return { ms, deliveredMs, logged };
}

async function main(): Promise<void> {
  const rx = await receiver();
  console.log(`# webhook bench: ${DELIVERIES} alert deliveries to a local HTTP receiver (answers 200 at once), ${CONCURRENCY} in flight per endpoint; node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('| run | deliveries | ms (all delivered) | deliveries/s | notes |');
  console.log('|---|---|---|---|---|');
  const row = (name: string, ms: number, notes = '') => console.log(`| ${name} | ${DELIVERIES} | ${ms.toFixed(0)} | ${((DELIVERIES / ms) * 1000).toFixed(0)} | ${notes} |`);
  await rawFetch(rx.url, 300); // warm-up
  for (let round = 1; round <= 2; round++) {
    rx.reset();
    row(`baseline: raw fetch POST loop, no signing/log [round ${round}]`, await rawFetch(rx.url, DELIVERIES));
    let result = await dispatcher(rx.url, DELIVERIES, [], rx);
    row(`wiflow: WebhookDispatcher, delivery log in memory (no storage) [round ${round}]`, result.deliveredMs, `log written after ${result.ms.toFixed(0)} ms; delivered ${result.logged}`);
    result = await dispatcher(rx.url, DELIVERIES, [sqlitePlugin], rx);
    row(`wiflow: WebhookDispatcher, delivery log in SQLite settings [round ${round}]`, result.deliveredMs, `log written after ${result.ms.toFixed(0)} ms; delivered ${result.logged}`);
  }
  await rx.close();
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
