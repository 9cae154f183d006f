import { abortableSleep, type CliContext, type CsiFrame, type FlowData } from '@wiflow/core';
import { invalidArgument } from '../errors.js';
import { openCapture } from '../readers/capture.js';
import { LoopClock, Pacer } from '../nodes/pacing.js';
import { frameToJson } from './convert.js';

/** Where `wiflow record` takes frames from. */
export interface RecordSource {
  nexmonUdp?: number;
  esp32Udp?: number;
  esp32Serial?: string;
  baudRate?: number;
  file?: string;
  chip?: string;
  host?: string;
}

/** The flow `wiflow record` deploys: one source node into `csi.record`. */
export function recordFlow(output: string, source: RecordSource): FlowData {
  const chosen = [source.nexmonUdp !== undefined, source.esp32Udp !== undefined, source.esp32Serial !== undefined, source.file !== undefined].filter(Boolean).length;
  if (chosen !== 1) throw invalidArgument('record needs exactly one source: --nexmon-udp [port], --esp32-udp [port], --esp32-serial <device> or --file <capture>');
  let node: { nodeType: string; config: Record<string, unknown> };
  if (source.nexmonUdp !== undefined) node = { nodeType: 'csi.nexmon-udp', config: { port: source.nexmonUdp, host: source.host ?? '0.0.0.0', chip: source.chip ?? 'auto' } };
  else if (source.esp32Udp !== undefined) node = { nodeType: 'csi.esp32-udp', config: { port: source.esp32Udp, host: source.host ?? '0.0.0.0' } };
  else if (source.esp32Serial !== undefined) node = { nodeType: 'csi.esp32-serial', config: { path: source.esp32Serial, ...(source.baudRate ? { baudRate: source.baudRate } : {}) } };
  else node = { nodeType: 'csi.file', config: { path: source.file, chip: source.chip ?? 'auto', speed: 0 } };
  return {
    nodes: [
      { id: 'source', type: 'wiflowNode', position: { x: 0, y: 0 }, data: node },
      { id: 'record', type: 'wiflowNode', position: { x: 300, y: 0 }, data: { nodeType: 'csi.record', config: { path: output, source: `${node.nodeType} ${JSON.stringify(node.config)}` } } },
    ],
    edges: [{ id: 'source-record', source: 'source', sourceHandle: 'frames', target: 'record', targetHandle: 'frames' }],
  } as FlowData;
}

/** Run `wiflow record`: deploy source → csi.record until the source ends, the duration or frame count is reached, or the signal aborts. */
export async function runRecord(cli: CliContext, output: string, source: RecordSource, limits: { durationSeconds?: number; frames?: number; signal?: AbortSignal }): Promise<{ frames: number; bytes: number; stats: Record<string, unknown> }> {
  const runtime = await cli.runtime();
  await runtime.start();
  const deployed = await runtime.deploy(recordFlow(output, source));
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  limits.signal?.addEventListener('abort', onAbort, { once: true });
  const waits: Promise<unknown>[] = [deployed.pipeline.done];
  if (limits.durationSeconds) waits.push(abortableSleep(limits.durationSeconds * 1000, stop.signal));
  if (limits.signal) waits.push(new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true })));
  if (limits.frames) {
    waits.push((async () => {
      while (!stop.signal.aborted) {
        if ((deployed.pipeline.counters().record?.in ?? 0) >= limits.frames!) return;
        await abortableSleep(50, stop.signal);
      }
    })());
  }
  let last = Date.now();
  const progress = setInterval(() => {
    const counters = deployed.pipeline.counters();
    if (Date.now() - last >= 1000) {
      last = Date.now();
      process.stderr.write(`recording: ${counters.record?.in ?? 0} frames, source ${JSON.stringify(counters.source?.stats ?? {})}\n`);
    }
  }, 1000);
  try {
    await Promise.race(waits);
    const counters = deployed.pipeline.counters();
    await runtime.undeploy(deployed.id, 5000);
    const record = counters.record?.stats ?? {};
    return { frames: Number(record.frames ?? counters.record?.in ?? 0), bytes: Number(record.bytes ?? 0), stats: counters.source?.stats ?? {} };
  } finally {
    clearInterval(progress);
    stop.abort();
    limits.signal?.removeEventListener('abort', onAbort);
    await runtime.stop(5000);
  }
}

/** Run `wiflow replay`: play a recording (or any capture) at a speed, printing frames as JSON lines or a summary per second. */
export async function runReplay(path: string, options: { speed: number; loop: boolean; json: boolean; limit?: number; signal?: AbortSignal }, print: (line: string) => void): Promise<{ frames: number }> {
  const signal = options.signal ?? new AbortController().signal;
  const pacer = new Pacer(options.speed, signal);
  const clock = new LoopClock();
  let frames = 0;
  let second = performance.now();
  let inSecond = 0;
  const emit = (frame: CsiFrame) => {
    frames++;
    inSecond++;
    if (options.json) print(JSON.stringify(frameToJson(frame)));
    else if (performance.now() - second >= 1000) {
      print(`replay: ${frames} frames, ${inSecond} in the last second, device time ${(frame.timestamp / 1e6).toFixed(3)} s`);
      second = performance.now();
      inSecond = 0;
    }
  };
  do {
    const reader = await openCapture(path, { onError: 'throw' });
    for await (const raw of reader) {
      if (signal.aborted || (options.limit && frames >= options.limit)) return { frames };
      const frame = clock.apply(raw);
      await pacer.wait(frame);
      emit(frame);
    }
    clock.nextPass();
  } while (options.loop && !signal.aborted && frames > 0);
  if (!options.json) print(`replay: ${frames} frames`);
  return { frames };
}
