// Benchmark: frames per CPU-second of the per-link sensing (presence, motion, breathing, falls), with a
// same-run baseline that only normalises each packet's amplitudes (the least any CSI consumer does).
// Run: npm run bench -w @wiflow/plugin-sensing
import { cpus, loadavg } from 'node:os';
import type { CsiFrame } from '@wiflow/core';
import { SensingConfigSchema, sensingConfigHash, type SensingModels } from '../config.js';
import { DEFAULT_SENSING_MODELS } from '../model/defaults.js';
import { LinkSensor } from '../signal/link-sensor.js';
import { syntheticLinkFrames, type SyntheticOptions } from '../testing/synthetic-link.js';

/** CPU seconds (user + system) since `start`: what a shared, loaded machine distorts least. */
function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e6;
}

/** The baseline: per-packet amplitude normalisation of every stream, nothing else. */
function normaliseOnly(frames: CsiFrame[]): number {
  let checksum = 0;
  for (const f of frames) {
    const streams = f.ntx * f.nrx;
    for (let s = 0; s < streams; s++) {
      let mean = 0;
      for (let k = 0; k < f.nsc; k++) mean += Math.hypot(f.csi.re[s * f.nsc + k], f.csi.im[s * f.nsc + k]);
      mean = mean / f.nsc || 1;
      for (let k = 0; k < f.nsc; k++) checksum += Math.hypot(f.csi.re[s * f.nsc + k], f.csi.im[s * f.nsc + k]) / mean;
    }
  }
  return checksum;
}

/** The shipped models without the velocity-profile fall model: presence, motion, breathing and burst falls only. */
const WITHOUT_PROFILE_FALLS: SensingModels = { ...DEFAULT_SENSING_MODELS, profileFall: undefined };

function sense(frames: CsiFrame[], models: SensingModels = DEFAULT_SENSING_MODELS, overrides: Record<string, unknown> = {}): number {
  const config = SensingConfigSchema.parse(overrides);
  const sensor = new LinkSensor(frames[0].link, { environmentId: 'bench', config, models, configHash: sensingConfigHash(config, models) });
  let out = 0;
  for (const f of frames) out += sensor.push(f).length;
  return out + sensor.finish().length;
}

/** Walk in, then still: 5 min (inside the presence hold) unless a case says otherwise. */
const STORY: Parameters<typeof syntheticLinkFrames>[0] = [{ kind: 'moving', seconds: 60 }, { kind: 'still', seconds: 240, bpm: 15 }];

const cases: { name: string; options: SyntheticOptions; story?: Parameters<typeof syntheticLinkFrames>[0] }[] = [
  { name: 'Intel 5300-like 1×3×30, 100 Hz, 10 % loss', options: { rateHz: 100, loss: 0.1, nrx: 3, nsc: 30, seed: 1 } },
  { name: 'Intel 5300-like 1×3×30, 20 Hz, 10 % loss (per-second work spread over fewer frames)', options: { rateHz: 20, loss: 0.1, nrx: 3, nsc: 30, seed: 3 } },
  { name: 'ESP32-like 1×1×52, 100 Hz, 10 % loss', options: { rateHz: 100, loss: 0.1, nrx: 1, nsc: 52, seed: 2, format: 'esp32-csi-tool' } },
  { name: 'ESP32-like 1×1×52, 20 Hz, 10 % loss (the slow-link model, read against the link\'s floor)', options: { rateHz: 20, loss: 0.1, nrx: 1, nsc: 52, seed: 5, format: 'esp32-csi-tool' } },
  // Still for 9 min: past the 300-s hold, where presence reads the steady-line check every second.
  { name: 'Intel 5300-like 1×3×30, 20 Hz, 10 % loss, 9 min still (past the hold)', options: { rateHz: 20, loss: 0.1, nrx: 3, nsc: 30, seed: 4 }, story: [{ kind: 'moving', seconds: 60 }, { kind: 'still', seconds: 540, bpm: 15 }] },
];

const lines: string[] = [];
lines.push(`load average before: ${loadavg().map((v) => v.toFixed(2)).join(' ')} on ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`);
lines.push('| link | frames | baseline (normalise only), frames/CPU-s | presence + motion + breathing + burst falls, frames/CPU-s | the same + velocity-profile falls (the shipped Intel 5300 path), frames/CPU-s |');
lines.push('|---|---|---|---|---|');
for (const c of cases) {
  const frames = syntheticLinkFrames(c.story ?? STORY, c.options);
  normaliseOnly(frames.slice(0, 2000));
  sense(frames.slice(0, 2000));
  let start = process.cpuUsage();
  normaliseOnly(frames);
  const base = frames.length / cpuSince(start);
  start = process.cpuUsage();
  sense(frames, WITHOUT_PROFILE_FALLS);
  const burst = frames.length / cpuSince(start);
  start = process.cpuUsage();
  sense(frames);
  const full = frames.length / cpuSince(start);
  const fmt = (x: number) => Math.round(x).toLocaleString('en');
  // The profile detector applies to multi-chain Intel 5300 links only: elsewhere both columns run the same code.
  lines.push(`| ${c.name} | ${frames.length} | ${fmt(base)} | ${fmt(burst)} | ${c.options.format === undefined && (c.options.nrx ?? 3) > 1 ? fmt(full) : 'n/a (not applied)'} |`);
}
{
  // The steady-line keep's cost where it runs (past the hold), against the same link with it off, same run.
  const c = cases[cases.length - 1];
  const frames = syntheticLinkFrames(c.story ?? STORY, c.options);
  const rate = (overrides: Record<string, unknown>) => {
    const start = process.cpuUsage();
    sense(frames, WITHOUT_PROFILE_FALLS, overrides);
    return Math.round(frames.length / cpuSince(start)).toLocaleString('en');
  };
  const off = rate({ presenceSteadyKeepSeconds: 0 });
  const on = rate({});
  lines.push(`${c.name}, presence + motion + breathing + burst falls: steady-line keep off ${off}, on ${on} frames/CPU-s`);
}
lines.push(`load average after: ${loadavg().map((v) => v.toFixed(2)).join(' ')}`);
for (const line of lines) console.log(line);
