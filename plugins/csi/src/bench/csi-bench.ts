// Benchmark: frames/s and MB/s per reader (streaming from a file), and frames/s through the signal chain.
// Run: npm run bench -w @wiflow/plugin-csi  [-- --data <dir>] [-- --out <markdown file>]
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CsiFrame } from '@wiflow/core';
import { CsiWindower, decodeCapture, encodeRecording, hampelFrame, HampelState, normalizeAmplitude, openCapture, resampleFrame, sanitizePhase, SignalChain } from '../index.js';

const args = process.argv.slice(2);
const option = (name: string) => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const DATA = resolve(option('--data') ?? resolve(import.meta.dirname, '../../test-fixtures'));
const TARGET_FRAMES = Number(option('--frames') ?? 100_000);

interface Row { name: string; frames: number; bytes: number; seconds: number; cpuSeconds: number }

/** CPU seconds (user + system) this process used since `start`: the figure a busy shared machine distorts least. */
function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

/** Repeat a capture's records to about `frames` frames (keeping any file header once). */
function enlarge(name: string, content: Buffer, header: number, frames: number, perCopy: number): Buffer {
  const body = content.subarray(header);
  const copies = Math.max(1, Math.ceil(frames / perCopy));
  return Buffer.concat([content.subarray(0, header), ...Array.from({ length: copies }, () => body)]);
}

async function timeRead(path: string, chip?: string): Promise<Row & { readSeconds: number }> {
  // Baseline: reading the same bytes with no decoding, same chunk size.
  const handle = await open(path, 'r');
  const buf = Buffer.allocUnsafe(256 * 1024);
  let t = performance.now();
  let bytes = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buf, 0, buf.length, null);
    if (!bytesRead) break;
    bytes += bytesRead;
  }
  await handle.close();
  const readSeconds = (performance.now() - t) / 1000;
  t = performance.now();
  const cpu = process.cpuUsage();
  const reader = await openCapture(path, { chip: chip as never });
  let frames = 0;
  for await (const frame of reader) if (frame.nsc > 0) frames++;
  const seconds = (performance.now() - t) / 1000;
  return { name: '', frames, bytes, seconds, cpuSeconds: cpuSince(cpu), readSeconds };
}

async function main() {
  if (!existsSync(DATA)) {
    console.error(`CSI sample captures not found at ${DATA} (pass --data <dir>)`);
    process.exitCode = 1;
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'wiflow-csi-bench-'));
  const inputs: { name: string; file: string; header: number; chip?: string }[] = [
    { name: 'Intel 5300 .dat', file: 'intel/log.all_csi.6.7.6.dat', header: 0 },
    { name: 'Atheros (big-endian)', file: 'atheros/example_bigEndian.dat', header: 1 },
    { name: 'ESP32-CSI-Tool CSV', file: 'esp32/example_data.csv', header: readFileSync(resolve(DATA, 'esp32/example_data.csv'), 'latin1').indexOf('\n') + 1 },
    { name: 'Nexmon pcap (bcm4366c0, 80 MHz)', file: 'nexmon/example_4366c0.pcap', header: 24, chip: 'bcm4366c0' },
    { name: 'PicoScenes (IWL5300)', file: 'picoscenes/picoscenes_iwl5300_example.csi', header: 0 },
  ];
  const rows: (Row & { readSeconds: number })[] = [];
  for (const input of inputs) {
    const content = readFileSync(resolve(DATA, input.file));
    const perCopy = decodeCapture(content, { chip: input.chip as never }).frames.length;
    const big = enlarge(input.name, content, input.header, TARGET_FRAMES, perCopy);
    const path = join(dir, input.file.replace('/', '_'));
    writeFileSync(path, big);
    await timeRead(path, input.chip); // warm-up
    const row = await timeRead(path, input.chip);
    rows.push({ ...row, name: input.name });
  }
  {
    const esp = decodeCapture(readFileSync(resolve(DATA, 'esp32/example_data.csv'))).frames;
    const many: CsiFrame[] = [];
    while (many.length < TARGET_FRAMES) many.push(...esp);
    const path = join(dir, 'esp.wfr');
    writeFileSync(path, encodeRecording(many));
    await timeRead(path);
    rows.push({ ...(await timeRead(path)), name: 'wiflow recording (ESP32 frames)' });
  }

  // Signal chain on ESP32-size frames (51 subcarriers → 56-tone grid), one link, one core.
  const esp = decodeCapture(readFileSync(resolve(DATA, 'esp32/example_data.csv'))).frames;
  const chainFrames = 100_000;
  const frames: CsiFrame[] = Array.from({ length: 600 }, (_, i) => ({ ...esp[i % esp.length], timestamp: i * 1000 }));
  const runChain = (chain: SignalChain) => {
    let windows = 0;
    const t = performance.now();
    const cpu = process.cpuUsage();
    for (let i = 0; i < chainFrames; i++) windows += chain.push(frames[i % frames.length]).length;
    return { seconds: (performance.now() - t) / 1000, cpuSeconds: cpuSince(cpu), windows };
  };
  runChain(new SignalChain({ window: { length: 64, hop: 16 } }));
  const minimal = runChain(new SignalChain({ hampel: false, normalize: 'none', window: { length: 64, hop: 16 } }));
  const full = runChain(new SignalChain({ window: { length: 64, hop: 16 } }));
  // Baseline: the same steps as separate functions producing intermediate frames (what chaining the single nodes does).
  const unfused = (() => {
    const hampel = new HampelState(9, 3);
    const windower = new CsiWindower({ length: 64, hop: 16, environmentId: 'bench' });
    const n = 50_000;
    const t = performance.now();
    const cpu = process.cpuUsage();
    for (let i = 0; i < n; i++) windower.push(normalizeAmplitude(hampelFrame(sanitizePhase(resampleFrame(frames[i % frames.length], 'ht20')), hampel), 'mean'));
    return { seconds: (performance.now() - t) / 1000, cpuSeconds: cpuSince(cpu), frames: n };
  })();

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const lines = [
    `Machine: ${cpus().length}-core container (${cpu}), Node ${process.version}, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end; one process, one core (the main thread). Command: \`npm run bench -w @wiflow/plugin-csi\`.`,
    'Per CPU-second = frames over the CPU time (user + system) the process used: on a shared machine it is the steadier figure; wall-clock figures are beside it.',
    '',
    '| reader (streaming from a file, 256 KiB reads) | frames | MB | frames per CPU-second | MB per CPU-second | frames/s (wall) | baseline: plain read MB/s (wall) |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.name} | ${r.frames} | ${(r.bytes / 1e6).toFixed(1)} | ${Math.round(r.frames / r.cpuSeconds).toLocaleString('en')} | ${(r.bytes / 1e6 / r.cpuSeconds).toFixed(1)} | ${Math.round(r.frames / r.seconds).toLocaleString('en')} | ${(r.bytes / 1e6 / r.readSeconds).toFixed(0)} |`),
    '',
    '| signal chain (ESP32 frames, 51 → 56 subcarriers, window 64 / hop 16) | frames | frames per CPU-second | frames/s (wall) |',
    '|---|---:|---:|---:|',
    `| resample + sanitise + window (fused \`SignalChain\`, Hampel and normalise off) | ${chainFrames} | ${Math.round(chainFrames / minimal.cpuSeconds).toLocaleString('en')} | ${Math.round(chainFrames / minimal.seconds).toLocaleString('en')} |`,
    `| resample + sanitise + Hampel(9) + normalise + window (\`csi.signal-chain\` defaults) | ${chainFrames} | ${Math.round(chainFrames / full.cpuSeconds).toLocaleString('en')} | ${Math.round(chainFrames / full.seconds).toLocaleString('en')} |`,
    `| baseline: the same five steps as separate functions with intermediate frames | ${unfused.frames} | ${Math.round(unfused.frames / unfused.cpuSeconds).toLocaleString('en')} | ${Math.round(unfused.frames / unfused.seconds).toLocaleString('en')} |`,
  ];
  const text = lines.join('\n');
  console.log(text);
  const out = option('--out');
  if (out) writeFileSync(out, text + '\n');
  rmSync(dir, { recursive: true, force: true });
}

await main();
