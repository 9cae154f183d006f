import path from 'node:path';
import type { CliContext, CsiFrame } from '@wiflow/core';
import type { Command } from 'commander';
import type { EnvironmentGeometry } from '../model/environment.js';
import { loadSim } from '../sim/pose-dataset.js';
import { DEFAULT_RECORDING_SECONDS } from './reference-desk.js';
import { EmptyRoomRecording, type RecordingReport } from './reference-recording.js';
import { checkFrameFitsReference, linkKey, referenceForEnvironment } from './reference-check.js';
import { readReference, writeReference } from './reference.js';
import { PoseErrors } from '../errors.js';

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
    .requiredOption('--environment <file|id>', 'environment geometry (JSON) or simulator scenario (JSON/YAML); with a server as --source, the environment id')
    .requiredOption('--source <source>', 'a capture file of the radios (any format @wiflow/plugin-csi reads); sim: the scenario given as --environment, run as if live; or a wiflow server URL (http://127.0.0.1:8080): its running pipeline records from the live receivers and stores the reference itself')
    .option('--seconds <n>', 'seconds of empty room to record', (v) => Number(v), DEFAULT_RECORDING_SECONDS)
    .option('--out <file>', 'reference file to write (wiflow-empty-room/1 JSON); not with a server, which writes the flow\'s own file')
    .option('--token <token>', 'with a server: an operator\'s or admin\'s access token (default: WIFLOW_TOKEN)')
    .action(async (opts: { environment: string; source: string; seconds: number; out?: string; token?: string }) => {
      if (!(opts.seconds > 0)) throw new Error(`--seconds must be a positive number, got ${String(opts.seconds)}`);
      if (/^https?:\/\//.test(opts.source)) {
        if (opts.out) throw new Error('--out is not for a server source: the server writes the flow\'s own reference file (its answer says where)');
        await recordThroughServer(cli, opts.source, opts.environment, opts.seconds, opts.token ?? process.env.WIFLOW_TOKEN);
        return;
      }
      if (!opts.out) throw new Error('give --out <file>: where to write the reference');
      await cli.runtime();
      const environment = await readEnvironment(opts.environment);
      const recording = new EmptyRoomRecording(environment, opts.source === 'sim' ? `simulator: ${path.basename(opts.environment)}, ${opts.seconds} s` : path.basename(opts.source));
      cli.print(leaveTheRoom(environment.id, opts.seconds, opts.source, environment.links.length));
      let first: number | null = null, tenths = 0;
      const environmentLinks = new Set(environment.links.map((l) => linkKey(l)));
      const otherLinks = new Set<string>();
      for await (const frame of await openSource(opts.source, opts.environment)) {
        first ??= frame.time;
        if (!environmentLinks.has(linkKey(frame.link))) otherLinks.add(linkKey(frame.link));
        if ((frame.time - first) / 1000 >= opts.seconds) break;
        recording.push(frame);
        const done = Math.floor((10 * (frame.time - first)) / 1000 / opts.seconds);
        if (done > tenths) {
          tenths = done;
          cli.print(progressLine(done / 10, opts.seconds));
        }
      }
      const report = recording.report();
      if (otherLinks.size > 0 && report.links.every((l) => l.packets === 0)) throw PoseErrors.captureLinksUnknown(opts.source, [...otherLinks].join(', '), environment.id, [...environmentLinks].join(', '));
      if (report.seconds < opts.seconds * 0.9) cli.print(`the source ended after ${report.seconds.toFixed(1)} s of the ${opts.seconds} s asked`);
      for (const line of formatRecordingReport(report)) cli.print(line);
      const { reference } = recording.finish();
      writeReference(path.resolve(opts.out), reference);
      cli.print(`wrote ${opts.out}: ${reference.links.map((l) => `${l.tx}->${l.rx} ${l.packets} packets`).join(', ')}; give it to pose.locate (references) for ${environment.id}`);
    });
}

function leaveTheRoom(environmentId: string, seconds: number, source: string, links?: number): string {
  return `Leave the room now and keep doors, fans and pets still: recording ${seconds} s of ${environmentId}${links === undefined ? '' : ` (${links} link${links === 1 ? '' : 's'})`} from ${source}`;
}

function progressLine(fraction: number, seconds: number): string {
  const done = Math.round(fraction * 10);
  return `  recording ${'#'.repeat(done)}${'.'.repeat(10 - done)} ${(seconds * fraction).toFixed(seconds < 20 ? 1 : 0)}/${seconds} s`;
}

/** A recording as the pose API answers it (GET /api/v1/system/reference/{id}). */
interface ServerRecording {
  recording_id: string;
  state: 'recording' | 'stored' | 'refused' | 'failed';
  progress: number;
  quality: { passed: boolean; seconds: number; links: { link: string; packets: number; rate_hz: number | null; power_spread_db: number | null; agc_values: number[] | null; snr_db: number | null; motion_seconds: number[]; problems: string[] }[] } | null;
  stored_in: string | null;
  message: string;
}

/** Record through a running server: its pose.locate node records the live CSI; this follows the progress once a second. */
async function recordThroughServer(cli: CliContext, server: string, environmentId: string, seconds: number, token: string | undefined): Promise<void> {
  if (!token) throw new Error('recording through a server needs an operator\'s access token: --token or WIFLOW_TOKEN (POST /api/v1/auth/token)');
  const call = async (pathname: string, body?: unknown): Promise<ServerRecording> => {
    const response = await fetch(new URL(`/api/v1${pathname}`, server), {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).catch((error: Error & { cause?: { code?: string; message?: string } }) => {
      // fetch says only "fetch failed"; the cause (ECONNREFUSED, ENOTFOUND…) and the server's usual address tell what to do.
      const cause = error.cause?.code ?? error.cause?.message ?? error.message;
      throw new Error(`cannot reach ${server} (${cause}): is \`wiflow serve\` running there? It prints its address when it starts (port 8080 unless --port or WIFLOW_PORT)`);
    });
    const parsed = (await response.json().catch(() => null)) as { error?: { message?: string }; data?: ServerRecording } & Partial<ServerRecording> | null;
    if (!response.ok) throw new Error(`${server}: ${response.status} ${parsed?.error?.message ?? response.statusText}`);
    // Convention B wraps the answer in {success, data}.
    return (parsed?.data ?? parsed) as ServerRecording;
  };
  let view = await call('/system/reference', { environment_id: environmentId, seconds });
  cli.print(leaveTheRoom(environmentId, seconds, server));
  let tenths = 0;
  while (view.state === 'recording') {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    view = await call(`/system/reference/${encodeURIComponent(view.recording_id)}`);
    const done = Math.floor(view.progress * 10);
    if (done > tenths && done < 10) {
      tenths = done;
      cli.print(progressLine(done / 10, seconds));
    }
  }
  if (view.quality) {
    const q = view.quality;
    for (const line of formatRecordingReport({ environmentId, seconds: q.seconds, passed: q.passed, links: q.links.map((l) => ({ link: l.link, packets: l.packets, rateHz: l.rate_hz, powerSpreadDb: l.power_spread_db, agcValues: l.agc_values, snrDb: l.snr_db, motionSeconds: l.motion_seconds, problems: l.problems })) })) cli.print(line);
  }
  if (view.state !== 'stored') throw new Error(`${server}: recording ${view.state}: ${view.message}`);
  cli.print(`the server ${view.message}`);
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
        const captureLinks = new Set<string>();
        for await (const frame of await openCapture(opts.capture)) {
          const key = linkKey(frame.link);
          captureLinks.add(key);
          const link = fitted.links.find((l) => linkKey(l) === key);
          if (!link || seen.has(key)) continue;
          checkFrameFitsReference(frame, link);
          seen.add(key);
          if (seen.size === fitted.links.length) break;
        }
        checked = seen.size;
        if (checked === 0) throw PoseErrors.captureLinksUnknown(opts.capture, [...captureLinks].join(', ') || 'none', environment.id, fitted.links.map((l) => linkKey(l)).join(', '));
      }
      cli.print(`${opts.reference} fits ${environment.id}: ${fitted.links.map((l) => `${linkKey(l)} ${l.ntx}×${l.nrx}×${l.subcarriers.length}${l.bandwidthHz ? ` ${l.bandwidthHz / 1e6} MHz` : ''}`).join(', ')}${opts.capture ? `; ${checked} link${checked === 1 ? '' : 's'} of ${opts.capture} checked` : ''}`);
    });
}
