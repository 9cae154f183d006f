import type { CliContext } from '@wiflow/core';
import type { Command } from 'commander';
import { NO_OBSERVATION_NOISE } from '@wiflow/analytics-common';
import { BASELINE_FALL_OPTIONS, evaluateFalls, type FallEvaluation } from './evaluation.js';

const pct = (v: number) => `${(v * 100).toFixed(1)} %`;

/** A fall evaluation as plain-text lines. */
export function formatFallEvaluation(r: FallEvaluation): string[] {
  const lines = [
    `fall evaluation: ${r.rateHz} Hz, ground truth from the ${r.truth === 'simulator' ? 'simulator (@wiflow/plugin-sim people)' : 'kinematic scene generator'}, detections = ground truth + noise (joint σ ${r.noise.keypointSigma} m, position σ ${r.noise.positionSigma} m, miss ${pct(r.noise.missRate)}, spurious ${pct(r.noise.falseRate)}), tracked by tracker.track`,
    'fall type   trials  detected  sensitivity  mean response (s)',
  ];
  for (const p of r.perType) lines.push(`${p.type.padEnd(11)} ${String(p.trials).padEnd(7)} ${String(p.detected).padEnd(9)} ${pct(p.sensitivity).padEnd(12)} ${p.meanLatencySeconds ?? '-'}`);
  lines.push(`all         ${String(r.trials).padEnd(7)} ${String(r.detected).padEnd(9)} ${pct(r.sensitivity)}`);
  lines.push(`false alarms: ${r.dayFalseAlarms} in ${r.dayHours} simulated hours of daily activity = ${r.falseAlarmsPer24h.toFixed(2)} per 24 h; ${r.falseAlarms - r.dayFalseAlarms - r.lieDowns.falseAlarms} unmatched detections in the fall trials`);
  lines.push(`deliberate lie-downs on the floor: ${r.lieDowns.falseAlarms} fall alarms in ${r.lieDowns.trials} trials`);
  return lines;
}

/** `wiflow eval-falls`: fall sensitivity per fall type and false alarms per 24 simulated hours. */
export function registerHealthcareCli(program: Command, cli: CliContext): void {
  program
    .command('eval-falls')
    .description('measure fall detection on simulated falls (sensitivity per type) and simulated days (false alarms per 24 h)')
    .option('--trials <n>', 'fall trials per fall type', (v) => Number(v), 10)
    .option('--hours <h>', 'simulated hours of daily activity', (v) => Number(v), 24)
    .option('--rate <hz>', 'pose frame rate', (v) => Number(v), 10)
    .option('--seed <n>', 'seed of scenes and noise', (v) => Number(v), 1)
    .option('--noise <level>', 'detection noise: default, none or heavy', 'default')
    .option('--truth <source>', 'ground truth: simulator (plugin-sim people) or kinematic (small generator)', 'simulator')
    .option('--baseline', 'also measure the baseline rule (drop > 0.5 m in 1.5 s, peak > 1.2 m/s) on the same scenes')
    .option('--json', 'print the result as JSON')
    .action((options: { trials: number; hours: number; rate: number; seed: number; noise: string; truth: string; baseline?: boolean; json?: boolean }) => {
      if (options.truth !== 'simulator' && options.truth !== 'kinematic') throw new Error(`--truth must be simulator or kinematic, got ${JSON.stringify(options.truth)}`);
      const noise = options.noise === 'none' ? NO_OBSERVATION_NOISE : options.noise === 'heavy' ? { keypointSigma: 0.12, positionSigma: 0.2, missRate: 0.1, falseRate: 0.05 } : options.noise === 'default' ? {} : null;
      if (!noise) throw new Error(`--noise must be default, none or heavy, got ${JSON.stringify(options.noise)}`);
      const run = (monitor?: typeof BASELINE_FALL_OPTIONS) => evaluateFalls({ trialsPerType: options.trials, dayHours: options.hours, rateHz: options.rate, seed: options.seed, noise, truth: options.truth as 'simulator' | 'kinematic', monitor });
      const rule = run();
      const baseline = options.baseline ? run(BASELINE_FALL_OPTIONS) : null;
      if (options.json) cli.print(JSON.stringify(baseline ? { rule, baseline } : rule, null, 2));
      else {
        cli.print('rule hip-drop-v1 (defaults):');
        for (const line of formatFallEvaluation(rule)) cli.print(line);
        if (baseline) {
          cli.print('baseline (drop > 0.5 m within 1.5 s, peak speed > 1.2 m/s, no landing check):');
          for (const line of formatFallEvaluation(baseline)) cli.print(line);
        }
      }
    });
}
