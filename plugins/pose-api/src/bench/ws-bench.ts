// /ws/pose fan-out: N real ws clients (a child process, spread over 127.0.1.x addresses to
// respect the per-address limit) subscribed to pose_updates while a pipeline publishes F
// frames/s. Latency: pose.publish handing the frame to the hub (engine output) → client
// parsed it, both as performance.timeOrigin + performance.now().
import { fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { startBenchServer } from './bench-server.js';

const clients = Number(process.env.BENCH_WS_CLIENTS ?? 1000);
const fps = Number(process.env.BENCH_WS_FPS ?? 20);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const perAddress = 50;
const addresses = Array.from({ length: Math.ceil(clients / perAddress) }, (_, i) => `127.0.1.${i + 1}`);

const server = await startBenchServer({ intervalMs: 1000 / fps, websocket: { systemStatusIntervalMs: 5000 } });
const sent = new Map<number, number>();
let recording = false;
// The hub stamps each frame (performance.now) when pose.publish hands it over, before any send;
// timeOrigin + now is comparable across processes of one machine.
server.api.hub.subscribe({
  frame: (frame, outputAt) => {
    if (recording) sent.set(frame.frameId, performance.timeOrigin + outputAt);
  },
});
const child = fork(fileURLToPath(new URL('./ws-clients.js', import.meta.url)), { stdio: 'inherit' });
const next = (cmd: string) => new Promise<any>((resolve) => child.on('message', function on(m: any) { if (m.cmd === cmd) { child.off('message', on); resolve(m); } }));
await next('ready');
child.send({ cmd: 'connect', start: { url: server.url, token: server.token, clients, addresses } });
const connected = await next('connected');
await server.api.system.start();
await server.api.system.settled();
await new Promise((resolve) => setTimeout(resolve, 2000));
const cpuBefore = process.cpuUsage();
const framesBefore = server.api.hub.counters.framesPublished;
const skippedBefore = server.api.stream.counters.framesSkipped;
recording = true;
child.send({ cmd: 'record' });
const began = performance.now();
await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
recording = false;
const elapsed = (performance.now() - began) / 1000;
const cpu = process.cpuUsage(cpuBefore);
const frames = server.api.hub.counters.framesPublished - framesBefore;
// Let in-flight messages land before asking for results.
await new Promise((resolve) => setTimeout(resolve, 500));
child.send({ cmd: 'stop', sent: [...sent.entries()] });
const result = await next('result');
const expected = frames * clients;
const stream = server.api.stream.counters;
console.log(
  [
    `load average at the end: ${os.loadavg().map((l) => l.toFixed(1)).join(' / ')} (1/5/15 min)`,
    `machine: ${os.cpus().length} CPU (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}; server and clients on one machine (clients in a child process)`,
    `clients: ${clients} over ${addresses.length} addresses (${connected.open} open after connect, ${(connected.ms / 1000).toFixed(1)} s to connect and subscribe)`,
    `frames published: ${frames} in ${elapsed.toFixed(1)} s (${(frames / elapsed).toFixed(1)} frames/s, target ${fps})`,
    `messages delivered: ${result.received} of ${expected} expected (${((100 * result.received) / Math.max(1, expected)).toFixed(1)} %), frames skipped for slow clients: ${server.api.stream.counters.framesSkipped - skippedBefore}, clients closed: ${result.closed}`,
    `engine output → client latency ms: p50 ${result.p50?.toFixed(2)}, p90 ${result.p90?.toFixed(2)}, p99 ${result.p99?.toFixed(2)}, max ${result.max?.toFixed(2)} (goal p99 < 50)`,
    `stream: ${server.api.stream.clients.size} clients held, ${stream.messagesSent} messages sent in total, ${result.unmatched} received messages from before the window`,
    `server process CPU: ${(((cpu.user + cpu.system) / 1e6 / elapsed) * 100).toFixed(0)} % of one core`,
  ].join('\n'),
);
await server.runtime.stop(3000);
process.exit(0);
