import type { CliContext } from '@wiflow/core';
import type { Command } from 'commander';
import { CAPTURE_FORMATS, NEXMON_CHIPS, type CaptureFormat, type NexmonChip } from '../readers/decoder.js';
import { convertCapture } from './convert.js';
import { captureInfo, formatCaptureInfo } from './info.js';
import { runRecord, runReplay } from './record-replay.js';

function readerOptions(options: { format?: string; chip?: string; skip?: boolean }) {
  if (options.format && !(CAPTURE_FORMATS as readonly string[]).includes(options.format)) throw new Error(`unknown --format ${options.format} (one of ${CAPTURE_FORMATS.join(', ')})`);
  if (options.chip && !(options.chip in NEXMON_CHIPS)) throw new Error(`unknown --chip ${options.chip} (one of ${Object.keys(NEXMON_CHIPS).join(', ')})`);
  return { format: options.format as CaptureFormat | undefined, chip: options.chip as NexmonChip | undefined, onError: options.skip ? ('skip' as const) : undefined };
}

/** Abort on the first SIGINT (so a recording closes cleanly). */
function interruptSignal(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onInt = () => controller.abort();
  process.once('SIGINT', onInt);
  return { signal: controller.signal, dispose: () => process.off('SIGINT', onInt) };
}

/** Register `wiflow csi info|convert`, `wiflow record` and `wiflow replay`. */
export function registerCsiCommands(program: Command, cli: CliContext): void {
  const csi = program.command('csi').description('CSI capture files: inspect and convert');
  csi
    .command('info')
    .description('format, links, rate, duration, subcarriers and RSSI of a capture file')
    .argument('<file>', 'capture file')
    .option('--format <format>', `force a format (${CAPTURE_FORMATS.join(', ')})`)
    .option('--chip <chip>', `Nexmon chip (${Object.keys(NEXMON_CHIPS).join(', ')})`)
    .option('--skip', 'pass over bad records instead of stopping at the first')
    .option('--json', 'print the facts as JSON')
    .action(async (file: string, options: { format?: string; chip?: string; skip?: boolean; json?: boolean }) => {
      const info = await captureInfo(file, readerOptions(options));
      if (options.json) cli.print(JSON.stringify(info, null, 2));
      else for (const line of formatCaptureInfo(info)) cli.print(line);
      if (info.error) process.exitCode = 1;
    });
  csi
    .command('convert')
    .description('convert a capture to JSON lines (one object per frame) or a wiflow recording')
    .argument('<file>', 'capture file')
    .requiredOption('--to <target>', 'json or wiflow')
    .option('-o, --output <file>', 'output file (json defaults to stdout)')
    .option('--format <format>', 'force a format')
    .option('--chip <chip>', 'Nexmon chip')
    .option('--skip', 'pass over bad records')
    .action(async (file: string, options: { to: string; output?: string; format?: string; chip?: string; skip?: boolean }) => {
      if (options.to !== 'json' && options.to !== 'wiflow') throw new Error(`--to must be json or wiflow, not ${options.to}`);
      const result = await convertCapture(file, { ...readerOptions(options), to: options.to, output: options.output }, cli.print);
      if (options.output) cli.print(`${result.frames} frames written to ${options.output}`);
    });
  program
    .command('record')
    .description('record live CSI (or a capture file) into a wiflow recording')
    .argument('<output>', 'recording to create (.wfr)')
    .option('--nexmon-udp [port]', 'receive Nexmon CSI on UDP (default port 5500)')
    .option('--esp32-udp [port]', 'receive ESP32 CSI lines on UDP (default port 5566)')
    .option('--esp32-serial <device>', 'read ESP32 CSI lines from a serial device')
    .option('--baud <rate>', 'serial speed (set with stty)', (v) => Number(v))
    .option('--file <capture>', 'record a capture file instead')
    .option('--host <address>', 'address to bind for UDP')
    .option('--chip <chip>', 'Nexmon chip')
    .option('--duration <seconds>', 'stop after this long', (v) => Number(v))
    .option('--frames <count>', 'stop after this many frames', (v) => Number(v))
    .action(async (output: string, options: { nexmonUdp?: string | boolean; esp32Udp?: string | boolean; esp32Serial?: string; baud?: number; file?: string; host?: string; chip?: string; duration?: number; frames?: number }) => {
      const port = (value: string | boolean | undefined, fallback: number) => (value === undefined ? undefined : value === true ? fallback : Number(value));
      const interrupt = interruptSignal();
      try {
        const result = await runRecord(cli, output, { nexmonUdp: port(options.nexmonUdp, 5500), esp32Udp: port(options.esp32Udp, 5566), esp32Serial: options.esp32Serial, baudRate: options.baud, file: options.file, host: options.host, chip: options.chip }, { durationSeconds: options.duration, frames: options.frames, signal: interrupt.signal });
        cli.print(`recorded ${result.frames} frames (${result.bytes} bytes) to ${output}`);
      } finally {
        interrupt.dispose();
      }
    });
  program
    .command('replay')
    .description('replay a recording (or any capture) in real time, scaled, or as fast as possible')
    .argument('<file>', 'recording or capture file')
    .option('--speed <factor>', '1 = real time, 2 = twice as fast, 0 = as fast as possible', (v) => Number(v), 1)
    .option('--loop', 'start over at the end')
    .option('--json', 'print every frame as a JSON line')
    .option('--limit <frames>', 'stop after this many frames', (v) => Number(v))
    .action(async (file: string, options: { speed: number; loop?: boolean; json?: boolean; limit?: number }) => {
      const interrupt = interruptSignal();
      try {
        await runReplay(file, { speed: options.speed, loop: Boolean(options.loop), json: Boolean(options.json), limit: options.limit, signal: interrupt.signal }, cli.print);
      } finally {
        interrupt.dispose();
      }
    });
}
