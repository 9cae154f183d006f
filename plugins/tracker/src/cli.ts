import type { CliContext } from '@wiflow/core';
import type { Command } from 'commander';
import { evaluateTracking, TRACKING_SCENES, type TrackingEvaluation } from './evaluation.js';
import { NO_OBSERVATION_NOISE } from '@wiflow/analytics-common';

const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

/** A tracking evaluation as a plain-text table. */
export function formatTrackingEvaluation(result: TrackingEvaluation): string[] {
  const lines = [
    `tracking evaluation (${result.method === 'nearest' ? 'baseline: greedy nearest neighbour' : 'tracker.track: Kalman + Hungarian'}): ${result.rateHz} Hz, ground truth from the ${result.truth === 'simulator' ? 'simulator (@wiflow/plugin-sim people)' : 'kinematic scene generator'}, detections = ground truth + noise (joint σ ${result.noise.keypointSigma} m, position σ ${result.noise.positionSigma} m, miss ${pct(result.noise.missRate)}, spurious ${pct(result.noise.falseRate)})`,
    'scene        seeds  GT      MOTA     IDF1     IDSW  FP    FN    MOTP(m)  tracks/ids',
  ];
  for (const s of [...result.scenes, { name: 'overall', seeds: result.scenes.reduce((n, x) => n + x.seeds, 0), score: result.overall, description: '' }]) {
    const c = s.score;
    lines.push(`${s.name.padEnd(12)} ${String(s.seeds).padEnd(6)} ${String(c.gt).padEnd(7)} ${pct(c.mota).padEnd(8)} ${pct(c.idf1).padEnd(8)} ${String(c.idSwitches).padEnd(5)} ${String(c.falsePositives).padEnd(5)} ${String(c.misses).padEnd(5)} ${c.motp.toFixed(3).padEnd(8)} ${c.trackIds}/${c.gtIds}`);
  }
  return lines;
}

/** `wiflow eval-tracking`: MOTA and IDF1 of the tracker on simulated multi-person scenes. */
export function registerTrackerCli(program: Command, cli: CliContext): void {
  program
    .command('eval-tracking')
    .description('score the tracker (MOTA, IDF1) on simulated multi-person scenes against ground truth')
    .option('--scenes <names>', `comma-separated scenes (${TRACKING_SCENES.map((s) => s.name).join(', ')})`, TRACKING_SCENES.map((s) => s.name).join(','))
    .option('--seeds <n>', 'runs per scene with different speeds, timings and noise', (v) => Number(v), 5)
    .option('--rate <hz>', 'pose frame rate', (v) => Number(v), 10)
    .option('--noise <level>', 'detection noise: default, none or heavy', 'default')
    .option('--max-age <frames>', 'tracking_max_age', (v) => Number(v))
    .option('--min-hits <n>', 'tracking_min_hits', (v) => Number(v))
    .option('--truth <source>', 'ground truth: simulator (plugin-sim people) or kinematic (small generator)', 'simulator')
    .option('--baseline', 'also score the greedy nearest-neighbour baseline on the same detections')
    .option('--json', 'print the result as JSON')
    .action((options: { scenes: string; seeds: number; rate: number; noise: string; truth: string; maxAge?: number; minHits?: number; baseline?: boolean; json?: boolean }) => {
      if (options.truth !== 'simulator' && options.truth !== 'kinematic') throw new Error(`--truth must be simulator or kinematic, got ${JSON.stringify(options.truth)}`);
      const noise = options.noise === 'none' ? NO_OBSERVATION_NOISE : options.noise === 'heavy' ? { keypointSigma: 0.12, positionSigma: 0.2, missRate: 0.1, falseRate: 0.05 } : options.noise === 'default' ? {} : null;
      if (!noise) throw new Error(`--noise must be default, none or heavy, got ${JSON.stringify(options.noise)}`);
      const tracker: Record<string, number> = {};
      if (options.maxAge !== undefined) tracker.tracking_max_age = options.maxAge;
      if (options.minHits !== undefined) tracker.tracking_min_hits = options.minHits;
      const run = (method: 'kalman' | 'nearest') => evaluateTracking({ scenes: options.scenes.split(',').map((s) => s.trim()).filter(Boolean), seeds: options.seeds, rateHz: options.rate, noise, tracker, truth: options.truth as 'simulator' | 'kinematic', method });
      const results = options.baseline ? [run('kalman'), run('nearest')] : [run('kalman')];
      if (options.json) cli.print(JSON.stringify(options.baseline ? results : results[0], null, 2));
      else for (const r of results) for (const line of formatTrackingEvaluation(r)) cli.print(line);
    });
}
