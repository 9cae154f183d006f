import os from 'node:os';
import path from 'node:path';
import { runSimBench } from '../bench/sim-bench.js';
import { realismReport, type PropagationOverrides } from '../realism/realism-report.js';
import { readCapture } from '@wiflow/plugin-csi';
import { existsSync } from 'node:fs';
import { SingleBar, Presets } from 'cli-progress';
import type { CliContext } from '@wiflow/core';
import type { Command } from 'commander';
import { writeDataset } from '../dataset/dataset.js';
import { Simulator } from '../engine/simulator.js';
import { SimErrors } from '../errors.js';
import { openRecordingSink, type RecordingFormat } from '../recording/recording-sink.js';
import { loadScenario } from '../scenario/load.js';
import { randomScenario } from '../scenario/randomise.js';
import { REALISM_LEVELS, type RealismLevel } from '../scenario/realism.js';
import { validateScenario } from '../scenario/load.js';
import { applyProfile, HARDWARE_PROFILE_NAMES } from '../radio/profiles.js';
import type { CapturePhase } from '../scene/distractors.js';

function realism(value: string): RealismLevel {
  if (!(REALISM_LEVELS as readonly string[]).includes(value)) throw new Error(`--realism expects one of ${REALISM_LEVELS.join(', ')}, got ${JSON.stringify(value)}`);
  return value as RealismLevel;
}

function phase(value: string): CapturePhase {
  if (value !== 'recording' && value !== 'reference') throw new Error(`--phase expects recording or reference, got ${JSON.stringify(value)}`);
  return value;
}

function number(name: string, integer = false) {
  return (value: string): number => {
    const v = Number(value);
    if (!Number.isFinite(v) || (integer && !Number.isInteger(v))) throw new Error(`--${name} expects ${integer ? 'an integer' : 'a number'}, got ${JSON.stringify(value)}`);
    return v;
  };
}

function progressBar(unit: string): SingleBar {
  return new SingleBar(
    { format: `{bar} {percentage}% | {value}/{total} ${unit} | {speed}× real time | eta {eta_formatted}`, stream: process.stderr, hideCursor: true, etaBuffer: 50 },
    Presets.shades_classic,
  );
}

function format(value: string): RecordingFormat {
  if (value !== 'wfr' && value !== 'jsonl') throw new Error(`--format expects wfr or jsonl, got ${JSON.stringify(value)}`);
  return value;
}

function propagationJson(value: string): PropagationOverrides {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    parsed = null;
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`--propagation expects a JSON object of propagation settings, got ${JSON.stringify(value)}`);
  return parsed as PropagationOverrides;
}

/** `wiflow simulate <scenario> --out <file>`: run a scenario and write a recording with ground truth. */
export function registerSimulateCommand(program: Command, cli: CliContext): void {
  program
    .command('simulate')
    .description('simulate a scenario and write a CSI recording with ground truth')
    .argument('[scenario]', 'scenario file (.json, .yaml) or "random" for a randomised room')
    .option('-o, --out <file>', 'recording to write (.wfr; .jsonl with --format jsonl)')
    .option('--bench', 'measure the simulator on the standard scenario (3×3, 30 subcarriers, 100 Hz, three people, a fan, drift and every impairment) beside the bare path sum; --duration sets the simulated seconds (default 30)')
    .option('--json', 'with --bench: print {"realTimeFactor","framesPerCpuSecond","baselineRealTimeFactor"}')
    .option('-d, --duration <seconds>', 'simulated seconds (default: the scenario durationS, else 60)', number('duration'))
    .option('-s, --seed <n>', 'seed of every random draw (default: the scenario seed)', number('seed', true))
    .option('--format <format>', 'wfr (wiflow recording) or jsonl', format, 'wfr' as RecordingFormat)
    .option('--no-impairments', 'write the clean channel (no noise, offsets, quantisation or loss)')
    .option('--profile <name>', `replace the radios by a hardware profile: ${HARDWARE_PROFILE_NAMES.join(', ')}`)
    .option('--tx <n>', 'transmit antennas with --profile (Intel 5300: 1–3)', number('tx', true))
    .option('--realism <level>', `for "random": ${REALISM_LEVELS.join(' or ')} (v2: distractors, drift, radios as they are)`, realism, 'none' as RealismLevel)
    .option('--phase <phase>', 'recording (default) or reference: the installation\'s empty-room capture of the scenario', phase, 'recording' as CapturePhase)
    .option('-q, --quiet', 'no progress bar')
    .action(async (source: string | undefined, options: { out?: string; bench?: boolean; json?: boolean; duration?: number; seed?: number; format: RecordingFormat; impairments: boolean; profile?: string; tx?: number; realism: RealismLevel; phase: CapturePhase; quiet?: boolean }) => {
      if (options.bench) {
        const r = runSimBench('standard', options.duration ?? 30, 3);
        if (options.json) cli.print(JSON.stringify({ realTimeFactor: r.realTimeFactor, framesPerCpuSecond: r.framesPerCpuSecond, baselineRealTimeFactor: r.baselineRealTimeFactor }));
        else cli.print(`${r.scenario}: ${r.realTimeFactor}× real time, ${r.framesPerCpuSecond} frames per CPU-second; bare path sum ${r.baselineRealTimeFactor}× in the same rounds (load average ${os.loadavg()[0].toFixed(1)})`);
        return;
      }
      if (!source || !options.out) throw SimErrors.scenarioInvalid('', 'simulate needs a scenario and --out <file> (or --bench)');
      let scenario = source === 'random' ? randomScenario({ seed: options.seed ?? 1, durationS: options.duration ?? 60, ranges: { realism: options.realism } }) : loadScenario(source);
      if (options.profile) scenario = validateScenario(applyProfile(scenario, options.profile, { txAntennas: options.tx }), `${path.basename(source)} with profile ${options.profile}`);
      const durationS = options.duration ?? scenario.durationS ?? 60;
      if (!(durationS > 0)) throw SimErrors.scenarioInvalid('', 'duration must be positive');
      const sim = new Simulator(scenario, { seed: options.seed, impairments: options.impairments ? undefined : 'off', phase: options.phase });
      const sink = await openRecordingSink(path.resolve(options.out), {
        source: '@wiflow/plugin-sim',
        scenario: scenario.name,
        environmentId: scenario.environmentId,
        seed: options.seed ?? scenario.seed,
        durationS,
        ...(options.profile ? { profile: options.profile } : {}),
        ...(options.phase === 'reference' ? { phase: 'reference' } : {}),
        links: sim.links.map((l) => l.id),
        camera: sim.camera,
      }, options.format);
      const total = Math.round(durationS * sim.rateHz);
      const bar = options.quiet ? null : progressBar('ticks');
      bar?.start(total, 0, { speed: '0' });
      const started = performance.now();
      let ticks = 0;
      try {
        for (const tick of sim.run(durationS)) {
          for (const frame of tick.frames) await sink.write(frame);
          ticks++;
          if (bar && ticks % 25 === 0) bar.update(ticks, { speed: ((tick.t * 1000) / Math.max(1, performance.now() - started)).toFixed(1) });
        }
      } finally {
        bar?.update(ticks);
        bar?.stop();
        await sink.close();
      }
      const seconds = (performance.now() - started) / 1000;
      cli.print(
        `simulated ${durationS} s of ${scenario.name} (${sim.links.length} link${sim.links.length === 1 ? '' : 's'}, ${sim.scenario.people.length} people${options.phase === 'reference' ? ', empty-room reference' : ''}): ` +
          `${sink.frames} frames in ${seconds.toFixed(1)} s (${(durationS / Math.max(seconds, 1e-9)).toFixed(1)}× real time) → ${sink.file} [${sink.format}]`,
      );
    });
}

/** `wiflow dataset --out <dir>`: randomised rooms and people, split train/val/test by room. */
export function registerDatasetCommand(program: Command, cli: CliContext): void {
  program
    .command('dataset')
    .description('generate a simulated dataset: randomised rooms and people, split by room into train/val/test')
    .requiredOption('-o, --out <dir>', 'output directory')
    .option('--rooms <n>', 'distinct rooms', number('rooms', true), 10)
    .option('--seconds <s>', 'simulated seconds per session', number('seconds'), 30)
    .option('--sessions <k>', 'sessions (people and scripts) per room', number('sessions', true), 1)
    .option('--seed <n>', 'seed', number('seed', true), 1)
    .option('--split <train,val,test>', 'room fractions per split', '0.7,0.15,0.15')
    .option('--format <format>', 'wfr (wiflow recording) or jsonl', format, 'wfr' as RecordingFormat)
    .option('--no-impairments', 'clean channels')
    .option('--realism <level>', `${REALISM_LEVELS.join(' or ')} (v2: distractors, drift, radios as they are)`, realism, 'none' as RealismLevel)
    .option('--threads <n>', 'worker threads (default: every core); the files are the same bytes whatever the count', number('threads', true))
    .option('-q, --quiet', 'no progress bar')
    .action(async (options: { out: string; rooms: number; seconds: number; sessions: number; seed: number; split: string; format: RecordingFormat; impairments: boolean; realism: RealismLevel; threads?: number; quiet?: boolean }) => {
      if (options.threads !== undefined && options.threads < 1) throw SimErrors.datasetInvalid(`--threads must be at least 1, got ${options.threads}`);
      const parts = options.split.split(',').map(Number);
      if (parts.length !== 3 || parts.some((v) => !Number.isFinite(v) || v < 0)) throw SimErrors.datasetInvalid(`--split expects three non-negative numbers, got ${options.split}`);
      const bar = options.quiet ? null : progressBar('ticks');
      const started = performance.now();
      let begun = false;
      const manifest = await writeDataset(
        path.resolve(options.out),
        {
          rooms: options.rooms,
          secondsPerSession: options.seconds,
          sessionsPerRoom: options.sessions,
          seed: options.seed,
          split: { train: parts[0], val: parts[1], test: parts[2] },
          impairments: options.impairments ? undefined : 'off',
          format: options.format,
          threads: options.threads,
          ...(options.realism !== 'none' ? { ranges: { realism: options.realism } } : {}),
        },
        (p) => {
          if (!bar) return;
          if (!begun) {
            bar.start(p.totalTicks, 0, { speed: '0' });
            begun = true;
          }
          const simulated = p.ticks / p.rateHz;
          bar.update(p.ticks, { speed: (simulated / Math.max(1e-3, (performance.now() - started) / 1000)).toFixed(1) });
        },
      );
      bar?.stop();
      const frames = manifest.sessions.reduce((s, x) => s + x.frames, 0);
      cli.print(
        `dataset of ${manifest.rooms} rooms (train ${manifest.splits.train.length}, val ${manifest.splits.val.length}, test ${manifest.splits.test.length}), ` +
          `${manifest.sessions.length} sessions, ${frames} frames in ${((performance.now() - started) / 1000).toFixed(1)} s → ${path.join(path.resolve(options.out), 'manifest.json')}`,
      );
    });
}

/** `wiflow realism [--real <dir>]`: the "simulated vs real" statistics table (docs/simulator.md). */
export function registerRealismCommand(program: Command, cli: CliContext): void {
  program
    .command('realism')
    .description('compare simulated and real CSI: amplitude spread and autocorrelation when still, walking spectrum, breathing depth, how a fall looks')
    .option('--real <dir>', 'folder of real captures (evaluation only; nothing is copied)', '../shared/data/real')
    .option('--json', 'print the rows as JSON')
    .option('--propagation <json>', 'propagation settings merged into every simulated scenario (a what-if), e.g. \'{"reverberation":{"decayNs":13}}\'', propagationJson)
    .option('--seed <n>', 'seed of every simulated scenario (default: each scenario\'s own, 1); other seeds give the rows\' run-to-run spread', number('seed', true))
    .action(async (options: { real: string; json?: boolean; propagation?: PropagationOverrides; seed?: number }) => {
      const dir = path.resolve(options.real);
      const present = existsSync(dir);
      if (!present) cli.print(`real captures not found at ${dir}: printing the simulated column only`);
      const rows = await realismReport(present ? dir : null, (file) => readCapture(file), options.propagation ?? {}, options.seed);
      if (options.json) {
        cli.print(JSON.stringify(rows, null, 2));
        return;
      }
      const fmt = (v: number | null) => (v === null || !Number.isFinite(v) ? '—' : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(3));
      cli.print('| statistic | radio | real (median over files) | simulated |');
      cli.print('|---|---|---:|---:|');
      for (const r of rows) cli.print(`| ${r.statistic} | ${r.radio} | ${fmt(r.real)}${r.realFiles ? ` (${r.realFiles})` : ''} | ${fmt(r.simulated)} |`);
    });
}
