import path from 'node:path';
import type { CliContext, CsiFrame } from '@wiflow/core';
import type { Command } from 'commander';
import type { EnvironmentGeometry } from '../model/environment.js';
import { loadSim } from '../sim/pose-dataset.js';
import { DEFAULT_RECORDING_SECONDS } from './reference-desk.js';
import { EmptyRoomRecording, type RecordingReport } from './reference-recording.js';
import { checkFrameFitsReference, linkKey, referenceForEnvironment } from './reference-check.js';
import { readReference, writeReference } from './reference.js';

/** Lines that show a quality check, one per link, then the verdict. */
export function formatRecordingReport(report: RecordingReport): string[] {
  const lines = [`quality check of ${report.environmentId} (${report.seconds.toFixed(1)} s):`];
  for (const l of report.links) {
    const figures = [
      `${l.packets} packets`,
      l.rateHz === null ? 'rate unknown' : `${l.rateHz.toFixed(1)} packets/s`,
      l.powerSpreadDb === null ? 'power spread unknown' : `power spread ${l.powerSpreadDb.toFixed(1)} dB`,
      l.agcValues ? `AGC ${l.agcValues.join('/')}` : 'AGC not reported',
      l.snrDb === null ? 'noise floor unknown' : `noise floor ${l.snrDb.toFixed(1)} dB under the channel`,
    ];
    lines.push(`  ${l.link}: ${figures.join(', ')}: ${l.problems.length ? `FAILED: ${l.problems.join('; ')}` : 'ok'}`);
  }
  lines.push(report.passed ? 'passed' : 'refused: nothing written');
  return lines;
}

/** Frames of a source: a capture file, or `sim` (the environment's scenario run as if live, with its people and drift). */
async function openSource(source: string, environmentFile: string): Promise<AsyncIterable<CsiFrame> | Iterable<CsiFrame>> {
  if (source === 'sim') {
    const sim = (await loadSim()) as Awaited<ReturnType<typeof loadSim>> & { loadScenario(file: string): unknown };
    const simulator = new sim.Simulator(sim.loadScenario(environmentFile) as never);
    return (function* frames() {
      for (const tick of simulator.run(Number.MAX_SAFE_INTEGER)) yield* tick.frames as CsiFrame[];
    })();
  }
  const { openCapture } = await import('@wiflow/plugin-csi');
  return openCapture(source);
}

/**
 * `wiflow locate record`: the installer's guided recording. Says to leave the room,
 * records `--seconds` of every link of the environment from the source, shows progress, runs
 * the quality check and writes the reference only when it passes (else exits with
 * WIFLOW_POSE_REFERENCE_REFUSED and every link's reason).
 */
export function registerRecordCommand(locate: Command, cli: CliContext, readEnvironment: (file: string) => Promise<EnvironmentGeometry>): void {
  locate
    .command('record')
    .description('guided recording of the empty room: leave the room, record, check the quality (packets, rate, AGC, noise floor, motion), write the reference only if it passes')
    .requiredOption('--environment <file>', 'environment geometry (JSON) or simulator scenario (JSON/YAML)')
    .requiredOption('--source <source>', 'a capture file of the radios (any format @wiflow/plugin-csi reads), or sim: the scenario given as --environment, run as if live')
    .option('--seconds <n>', 'seconds of empty room to record', (v) => Number(v), DEFAULT_RECORDING_SECONDS)
    .requiredOption('--out <file>', 'reference file to write (wiflow-empty-room/1 JSON)')
    .action(async (opts: { environment: string; source: string; seconds: number; out: string }) => {
      if (!(opts.seconds > 0)) throw new Error(`--seconds must be a positive number, got ${String(opts.seconds)}`);
      await cli.runtime();
      const environment = await readEnvironment(opts.environment);
      const recording = new EmptyRoomRecording(environment, opts.source === 'sim' ? `simulator: ${path.basename(opts.environment)}, ${opts.seconds} s` : path.basename(opts.source));
      cli.print(`Leave the room now and keep doors, fans and pets still: recording ${opts.seconds} s of ${environment.id} (${environment.links.length} link${environment.links.length === 1 ? '' : 's'}) from ${opts.source}`);
      let first: number | null = null, tenths = 0;
      for await (const frame of await openSource(opts.source, opts.environment)) {
        first ??= frame.time;
        if ((frame.time - first) / 1000 >= opts.seconds) break;
        recording.push(frame);
        const done = Math.floor((10 * (frame.time - first)) / 1000 / opts.seconds);
        if (done > tenths) {
          tenths = done;
          cli.print(`  recording ${'#'.repeat(done)}${'.'.repeat(10 - done)} ${((opts.seconds * done) / 10).toFixed(opts.seconds < 20 ? 1 : 0)}/${opts.seconds} s`);
        }
      }
      const report = recording.report();
      if (report.seconds < opts.seconds * 0.9) cli.print(`the source ended after ${report.seconds.toFixed(1)} s of the ${opts.seconds} s asked`);
      for (const line of formatRecordingReport(report)) cli.print(line);
      const { reference } = recording.finish();
      writeReference(path.resolve(opts.out), reference);
      cli.print(`wrote ${opts.out}: ${reference.links.map((l) => `${l.tx}->${l.rx} ${l.packets} packets`).join(', ')}; give it to pose.locate (references) for ${environment.id}`);
    });
}

/**
 * `wiflow locate check`: does a reference fit an environment (a link entry for
 * every link, its antenna counts) and, given a capture, the radios as they are now (antennas,
 * subcarriers, bandwidth, channel)? Errors name the link and the field.
 */
export function registerCheckCommand(locate: Command, cli: CliContext, readEnvironment: (file: string) => Promise<EnvironmentGeometry>): void {
  locate
    .command('check')
    .description('check that a reference fits an environment and, given a capture, its radios (antennas, subcarriers, bandwidth, channel); errors name the link and field')
    .requiredOption('--environment <file>', 'environment geometry (JSON) or simulator scenario (JSON/YAML)')
    .requiredOption('--reference <file>', 'the reference file (wiflow-empty-room/1 JSON)')
    .option('--capture <file>', 'a capture of the radios now: its first packet of every link is checked against the reference')
    .action(async (opts: { environment: string; reference: string; capture?: string }) => {
      await cli.runtime();
      const environment = await readEnvironment(opts.environment);
      const fitted = referenceForEnvironment(environment, [readReference(path.resolve(opts.reference))]);
      let checked = 0;
      if (opts.capture) {
        const { openCapture } = await import('@wiflow/plugin-csi');
        const seen = new Set<string>();
        for await (const frame of await openCapture(opts.capture)) {
          const key = linkKey(frame.link);
          const link = fitted.links.find((l) => linkKey(l) === key);
          if (!link || seen.has(key)) continue;
          checkFrameFitsReference(frame, link);
          seen.add(key);
          if (seen.size === fitted.links.length) break;
        }
        checked = seen.size;
      }
      cli.print(`${opts.reference} fits ${environment.id}: ${fitted.links.map((l) => `${linkKey(l)} ${l.ntx}×${l.nrx}×${l.subcarriers.length}${l.bandwidthHz ? ` ${l.bandwidthHz / 1e6} MHz` : ''}`).join(', ')}${opts.capture ? `; ${checked} link${checked === 1 ? '' : 's'} of ${opts.capture} checked` : ''}`);
    });
}
