// Child process of ws-bench: opens N real ws clients spread over several 127.x addresses,
// subscribes each to pose_updates, and records the receive time of every frame.
import { WebSocket } from 'ws';

interface Start {
  url: string;
  token: string;
  clients: number;
  addresses: string[];
}

const received: { frame: Int32Array; at: Float64Array; n: number } = { frame: new Int32Array(1 << 22), at: new Float64Array(1 << 22), n: 0 };
let recording = false;
const sockets: WebSocket[] = [];

function record(frameId: number): void {
  if (!recording || received.n >= received.frame.length) return;
  received.frame[received.n] = frameId;
  received.at[received.n] = performance.timeOrigin + performance.now();
  received.n++;
}

async function open(start: Start, index: number): Promise<void> {
  const socket = new WebSocket(`${start.url.replace('http', 'ws')}/ws/pose?token=${encodeURIComponent(start.token)}`, { localAddress: start.addresses[index % start.addresses.length] });
  sockets.push(socket);
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('message', (data) => {
      const buffer = data as Buffer;
      if (buffer.subarray(0, 21).toString() === '{"type":"pose_update"') {
        // Read the frame id without parsing the whole message: this process plays 1,000
        // clients on a shared machine and must not be the bottleneck it measures.
        const at = buffer.indexOf('"frame_id":');
        let id = 0;
        for (let i = at + 11; i < buffer.length && buffer[i] >= 48 && buffer[i] <= 57; i++) id = id * 10 + buffer[i] - 48;
        record(id);
        return;
      }
      const text = buffer.toString();
      if (text.includes('"subscription_confirmed"')) resolve();
      else if (text.includes('"connection_established"')) socket.send(JSON.stringify({ type: 'subscribe', channel: 'pose_updates', filters: {} }));
    });
  });
}

process.on('message', async (message: { cmd: string; start?: Start; sent?: [number, number][] }) => {
  if (message.cmd === 'connect') {
    const start = message.start!;
    const began = Date.now();
    for (let i = 0; i < start.clients; i += 50) await Promise.all(Array.from({ length: Math.min(50, start.clients - i) }, (_, k) => open(start, i + k)));
    process.send!({ cmd: 'connected', ms: Date.now() - began, open: sockets.filter((s) => s.readyState === WebSocket.OPEN).length });
  } else if (message.cmd === 'record') {
    recording = true;
  } else if (message.cmd === 'stop') {
    recording = false;
    const sent = new Map(message.sent!);
    const latencies: number[] = [];
    let unmatched = 0;
    for (let i = 0; i < received.n; i++) {
      const t = sent.get(received.frame[i]);
      if (t === undefined) unmatched++;
      else latencies.push(received.at[i] - t);
    }
    latencies.sort((a, b) => a - b);
    const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? null;
    process.send!({ cmd: 'result', received: received.n - unmatched, unmatched, p50: pick(0.5), p90: pick(0.9), p99: pick(0.99), max: latencies[latencies.length - 1] ?? null, closed: sockets.filter((s) => s.readyState !== WebSocket.OPEN).length });
    for (const s of sockets) s.terminate();
    setTimeout(() => process.exit(0), 100);
  }
});
process.send!({ cmd: 'ready' });
