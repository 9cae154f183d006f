import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CliContext } from '@wiflow/core';
import { barChartSvg, COCO_KEYPOINTS, errorMessage } from '@wiflow/core';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { setupBackend } from '../backend/backend.js';
import { calibrateModel, formatCalibration } from '../calibrate/calibrate.js';
import { calibrateRoom, formatRoomCalibration } from '../room-pose/calibrate-room.js';
import { evaluateCalibrated, formatCalibratedReport } from '../room-pose/eval-calibrated.js';
import { evaluateReprojection, formatReprojectionReport } from '../room-pose/eval-reprojection.js';
import { FULL_PROTOCOL, SMALL_PROTOCOL } from '../room-pose/protocol.js';
import { formatEvaluation } from '../eval/format.js';
import { evaluateShippedModel } from '../eval/evaluate-split.js';
import { SHIPPED_MODEL_DIR } from '../model/pose-model.js';
import { trainShippedModel } from '../training/train-command.js';
import { registerLocateCommands } from '../locate/commands.js';

/** Options of `wiflow eval`. */
interface EvalCommandOptions {
  json?: boolean;
  split: string;
  small?: boolean;
  model?: string;
  tracking?: boolean;
  plot?: string;
}

const TRACKER_PACKAGE: string = '@wiflow/plugin-tracker';

async function runTrackingEvaluation(cli: CliContext, json: boolean): Promise<void> {
  let tracker: { evaluateTracking?: () => unknown; formatTrackingEvaluation?: (r: unknown) => string[] };
  try {
    tracker = (await import(TRACKER_PACKAGE)) as typeof tracker;
  } catch (error) {
    cli.print(`--tracking: @wiflow/plugin-tracker is not installed (${errorMessage(error).split('\n')[0]}); no tracking evaluation`);
    return;
  }
  if (typeof tracker.evaluateTracking !== 'function') {
    cli.print('--tracking: @wiflow/plugin-tracker exports no evaluateTracking; no tracking evaluation');
    return;
  }
  const result = tracker.evaluateTracking();
  if (json || typeof tracker.formatTrackingEvaluation !== 'function') cli.print(JSON.stringify({ tracking: result }, null, 2));
  else for (const line of tracker.formatTrackingEvaluation(result)) cli.print(line);
}

/** Register `wiflow train`, `wiflow eval`, `wiflow calibrate`, `wiflow calibrate-pose-v1`, `wiflow eval-calibrated` and `wiflow locate …`. */
export function registerPoseCommands(program: Command, cli: CliContext): void {
  registerLocateCommands(program, cli);
  program
    .command('train')
    .description('train the pose model on simulated rooms (dataset generated with @wiflow/plugin-sim and the @wiflow/plugin-csi signal chain); resumable, deterministic for a seed')
    .option('--out <dir>', 'model directory to write', 'models/wiflow-pose-v1')
    .option('--work-dir <dir>', 'dataset cache and checkpoints (default <data-dir>/pose-train)')
    .option('--epochs <n>', 'epochs', (v) => Number(v), 24)
    .option('--batch <n>', 'batch size', (v) => Number(v), 64)
    .option('--lr <rate>', 'initial learning rate (cosine decay)', (v) => Number(v), 0.002)
    .option('--seed <n>', 'seed of initialisation and shuffling', (v) => Number(v), 1)
    .option('--rooms <n>', 'simulated rooms (train/val/test split by room)', (v) => Number(v), 60)
    .option('--seconds <s>', 'simulated seconds per session', (v) => Number(v), 30)
    .option('--sessions <n>', 'sessions (people and scripts) per room', (v) => Number(v), 2)
    .option('--hop <frames>', 'frames between consecutive windows of a link', (v) => Number(v), 10)
    .option('--phase <kind>', 'phase feature: sanitised (csi.signal-chain default) or conjugate (chain with sanitize false)', 'sanitised')
    .option('--temporal <kind>', 'absolute bins, or deviation from the window mean', 'absolute')
    .option('--position-head <kind>', 'floor position head: anchors (convex mix of room corners, centre, radios) or direct', 'anchors')
    .option('--data-seed <seed>', 'seed of the simulated rooms and people', 'wiflow-pose-v1')
    .option('--time-budget <s>', 'stop after this many seconds of training (finishes the epoch)', (v) => Number(v))
    .option('--resume', 'continue from the last checkpoint in the work dir', false)
    .action(async (opts: { out: string; workDir?: string; epochs: number; batch: number; lr: number; seed: number; rooms: number; seconds: number; sessions: number; hop: number; positionHead: string; phase: string; temporal: string; dataSeed: string; timeBudget?: number; resume: boolean }) => {
      if (!['sanitised', 'conjugate'].includes(opts.phase)) throw new Error(`--phase must be sanitised or conjugate, got ${opts.phase}`);
      if (!['absolute', 'deviation'].includes(opts.temporal)) throw new Error(`--temporal must be absolute or deviation, got ${opts.temporal}`);
      const runtime = await cli.runtime();
      const backend = await setupBackend();
      cli.print(`backend: ${backend.backend}${backend.simd ? ' (SIMD)' : ''}${backend.native ? ` via ${backend.native}` : ''}`);
      const workDir = path.resolve(opts.workDir ?? path.join(runtime.dataDir, 'pose-train'));
      const bar = new cliProgress.SingleBar({ format: '{phase} [{bar}] {percentage}% {value}/{total} | {info}', hideCursor: true }, cliProgress.Presets.shades_classic);
      let started = false;
      const result = await trainShippedModel({
        outDir: path.resolve(opts.out), workDir, epochs: opts.epochs, batchSize: opts.batch, learningRate: opts.lr, seed: opts.seed,
        rooms: opts.rooms, secondsPerSession: opts.seconds, sessionsPerRoom: opts.sessions, timeBudgetS: opts.timeBudget, resume: opts.resume,
        temporal: opts.temporal as 'absolute',
        architecture: { positionHead: opts.positionHead === 'direct' ? 'direct' : 'anchors' },
        recipe: { seed: opts.dataSeed, hopFrames: opts.hop, signalChain: { grid: 'ht20-grouped', sanitize: opts.phase === 'sanitised', hampelWindow: 9, hampelSigmas: 3, normalize: 'mean' } },
        onProgress(phase, value, total, info) {
          if (!process.stdout.isTTY) {
            if (value === total) cli.print(`${phase} ${value}/${total} ${info}`);
            return;
          }
          if (!started) { bar.start(total, value, { phase, info }); started = true; }
          bar.setTotal(total);
          bar.update(value, { phase, info });
        },
      });
      if (started) bar.stop();
      cli.print(`wrote ${result.outDir} (sha256 ${result.hash}); best epoch ${result.bestEpoch}; ${result.stoppedEarly ? 'stopped by the time budget' : 'all epochs done'}`);
    });

  program
    .command('eval')
    .description('evaluate a pose model on simulated test rooms never seen in training, per person-count bucket, next to two mean-pose baselines')
    .option('--json', 'print the figures as JSON (keys documented in docs/model.md)', false)
    .option('--split <name>', 'dataset split: test, val or train', 'test')
    .option('--small', 'a small deterministic subset of the split (what CI runs)', false)
    .option('--model <dir>', 'model directory (default: the shipped wiflow-pose-v1)')
    .option('--tracking', 'also run the tracking evaluation of @wiflow/plugin-tracker, when installed', false)
    .option('--plot <file.svg>', 'write an SVG chart of the error per keypoint (model and both baselines)')
    .option('--realism <level>', 'simulator realism of the rooms: none (what the card reports) or v2 (distractors, drift, radios as they are)', 'none')
    .action(async (opts: EvalCommandOptions & { realism: string }) => {
      const runtime = await cli.runtime();
      if (!['test', 'val', 'train'].includes(opts.split)) throw new Error(`--split must be test, val or train, got ${opts.split}`);
      if (opts.realism !== 'none' && opts.realism !== 'v2') throw new Error(`--realism must be none or v2, got ${opts.realism}`);
      const modelDir = path.resolve(opts.model ?? SHIPPED_MODEL_DIR);
      if (!existsSync(modelDir)) throw new Error(`no model directory at ${modelDir}`);
      const { report, description } = await evaluateShippedModel({ modelDir, split: opts.split as 'test', small: Boolean(opts.small), cacheDir: path.join(runtime.dataDir, 'pose-eval'), realism: opts.realism });
      if (opts.json) cli.print(JSON.stringify({ ...description, ...report }, null, 2));
      else {
        cli.print(`${description.modelId} (${description.modelHash.slice(0, 12)}) on ${description.samples} ${opts.split} samples from ${description.rooms} unseen rooms${opts.small ? ' (small subset)' : ''}`);
        for (const line of formatEvaluation(report)) cli.print(line);
      }
      if (opts.plot) {
        const all = (r: Record<string, { perJointMpjpeMm: number[] | null }>) => r.all?.perJointMpjpeMm ?? COCO_KEYPOINTS.map(() => null);
        writeFileSync(opts.plot, barChartSvg({
          title: `${description.modelId}: 3D error per keypoint, ${opts.split} split${opts.small ? ' (small)' : ''}, ${description.samples} samples`,
          categories: [...COCO_KEYPOINTS],
          series: [
            { name: 'model', values: all(report.model) },
            { name: 'mean pose at true position', values: all(report.baselines.meanPoseAtTruePosition) },
            { name: 'mean pose at room centre', values: all(report.baselines.meanPoseAtRoomCentre) },
          ],
          unit: 'mm',
        }));
        if (!opts.json) cli.print(`plot written to ${opts.plot}`);
      }
      if (opts.tracking) await runTrackingEvaluation(cli, Boolean(opts.json));
    });

  program
    .command('calibrate')
    .description('train the room-pose model (wiflow-room-pose-v1) for one room: pre-train on its simulated twin, fine-tune on labelled minutes (COCO keypoints with timestamps, keypoints_3d), report on a later recording with other people, write the model into the environment\'s own directory')
    .requiredOption('--recording <dir>', 'labelled recording: environment.json, reference.json, csi.*, labels.json (see docs/model.md)')
    .option('--held-out <dir>', 'a later labelled recording of the same room with other people, for the report')
    .option('--models <dir>', 'directory of room models, one sub-directory per environment (default: <data dir>/room-pose)')
    .option('--twin-seconds <n>', 'simulated seconds of the twin to pre-train on', (v) => Number(v), 600)
    .option('--export-rows <dir>', 'also write the training rows for the GPU path (scripts/train-room-pose-gpu.py)')
    .option('--json', 'print the result as JSON', false)
    .action(async (opts: { recording: string; heldOut?: string; models?: string; twinSeconds: number; exportRows?: string; json: boolean }) => {
      const runtime = await cli.runtime();
      const result = await calibrateRoom({
        recordingDir: path.resolve(opts.recording), heldOutDir: opts.heldOut ? path.resolve(opts.heldOut) : undefined,
        modelsDir: path.resolve(opts.models ?? path.join(runtime.dataDir, 'room-pose')), twinSeconds: opts.twinSeconds,
        exportRowsDir: opts.exportRows ? path.resolve(opts.exportRows) : undefined,
        onStep: opts.json ? undefined : (step, total, text) => cli.print(`[${step}/${total}] ${text}`),
      });
      if (opts.json) cli.print(JSON.stringify(result, null, 2));
      else for (const line of formatRoomCalibration(result)) cli.print(line);
    });

  program
    .command('calibrate-pose-v1')
    .description('fine-tune wiflow-pose-v1 on a labelled recording of one room and report before/after on its held-out end (the old calibration: its held-out part is the same people, see docs/model.md)')
    .requiredOption('--recording <dir>', 'labelled recording: a directory with scenario/environment geometry, CSI windows and COCO labels (see docs/model.md)')
    .option('--model <dir>', 'model to start from (default: the shipped wiflow-pose-v1)')
    .option('--out <dir>', 'where to write the calibrated model', 'models/wiflow-pose-calibrated')
    .option('--epochs <n>', 'fine-tuning epochs', (v) => Number(v), 8)
    .option('--lr <rate>', 'learning rate', (v) => Number(v), 0.0005)
    .option('--holdout <fraction>', 'fraction of the recording (its end) held out for the report', (v) => Number(v), 0.3)
    .option('--seed <n>', 'seed', (v) => Number(v), 1)
    .option('--json', 'print the before/after figures as JSON', false)
    .action(async (opts: { recording: string; model?: string; out: string; epochs: number; lr: number; holdout: number; seed: number; json: boolean }) => {
      await cli.runtime();
      const result = await calibrateModel({
        recordingDir: path.resolve(opts.recording), modelDir: path.resolve(opts.model ?? SHIPPED_MODEL_DIR), outDir: path.resolve(opts.out),
        epochs: opts.epochs, learningRate: opts.lr, holdoutFraction: opts.holdout, seed: opts.seed,
      });
      if (opts.json) cli.print(JSON.stringify(result, null, 2));
      else for (const line of formatCalibration(result)) cli.print(line);
    });

  program
    .command('eval-calibrated')
    .description('learning curve of the room-pose model in simulation: twin pre-training, 0/1/3/10 labelled minutes of the "real" room, scored on later sessions with new people (docs/model.md)')
    .option('--small', 'the same steps with a 12 s "minute" and short sessions (CI)', false)
    .option('--json', 'print the JSON report', false)
    .option('--seed <seed>', 'room pair seed', 'calibrated-1')
    .option('--realism <level>', "the real room's sessions: v2 (the protocol) or none (diagnostic)", 'v2')
    .option('--labels <kind>', '3d (the learning curve) or 2d: fine-tune on COCO 2D keypoints only and report the held-out reprojection error beside the twin-only model', '3d')
    .action(async (opts: { small: boolean; json: boolean; seed: string; realism: string; labels: string }) => {
      if (opts.realism !== 'v2' && opts.realism !== 'none') throw new Error(`--realism must be v2 or none, got ${opts.realism}`);
      if (opts.labels !== '3d' && opts.labels !== '2d') throw new Error(`--labels must be 3d or 2d, got ${opts.labels}`);
      if (opts.labels === '2d') {
        const report = await evaluateReprojection({ sizes: opts.small ? SMALL_PROTOCOL : FULL_PROTOCOL, seed: opts.seed, realism: opts.realism, onProgress: opts.json ? undefined : (line) => cli.print(line) });
        if (opts.json) cli.print(JSON.stringify(report, null, 2));
        else for (const line of formatReprojectionReport(report)) cli.print(line);
        return;
      }
      const report = await evaluateCalibrated({ small: opts.small, seed: opts.seed, realism: opts.realism, onProgress: opts.json ? undefined : (line) => cli.print(line) });
      if (opts.json) cli.print(JSON.stringify(report, null, 2));
      else for (const line of formatCalibratedReport(report)) cli.print(line);
    });
}
