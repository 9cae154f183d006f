import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { defaultRealRoot, evaluateReal, formatEvaluation } from '../eval/real-eval.js';
import { SensingConfigSchema, type SensingConfig } from '../config.js';
import { staleShippedModels } from '../eval/shipped-models-check.js';
import { DEFAULT_SENSING_MODELS } from '../model/defaults.js';

/** Register `wiflow eval-real`: the sensing scored on ../shared/data/real. */
export function registerEvalRealCommand(program: Command, print: (line: string) => void): void {
  program
    .command('eval-real')
    .description('score presence, still/moving, falls and breathing on the real labelled captures in ../shared/data/real (leave-one-person/chip/subject-out)')
    .option('--data <dir>', 'folder of the real captures', defaultRealRoot())
    .option('--subset <n>', 'only the first n files of each label and person (the CI run)', (v) => Number(v))
    .option('--json', 'print the results as JSON')
    .option('--out <file>', 'also write the markdown table to this file')
    .option('--fit', 'print the models fitted on all the data (the shipped defaults) as JSON')
    .option('--falls-only', 'only the falls rows (the activities set; nothing fitted for --fit)')
    .option('--sensing <json>', 'sense with these sensing settings instead of the shipped ones (--config is the runtime config file), e.g. \'{"fallMotionGuard":true}\'', (v) => SensingConfigSchema.strict().parse(JSON.parse(v)))
    .action(async (options: { data: string; subset?: number; json?: boolean; out?: string; fit?: boolean; fallsOnly?: boolean; sensing?: SensingConfig }) => {
      const evaluation = await evaluateReal(options.data, { perGroup: options.subset, log: options.json ? undefined : print, config: options.sensing, fallsOnly: options.fallsOnly });
      if (!evaluation) {
        print(`real captures not found at ${options.data}: nothing to evaluate`);
        return;
      }
      const table = formatEvaluation(evaluation);
      if (options.json) print(JSON.stringify(evaluation.results, null, 2));
      else for (const line of table) print(line);
      if (!options.json) for (const r of evaluation.results) if (r.misses.length) print(`misses, ${r.name}: ${r.misses.slice(0, 12).join('; ')}`);
      if (options.out) writeFileSync(options.out, `${table.join('\n')}\n`);
      if (options.fit && evaluation.fitted) print(JSON.stringify(evaluation.fitted, null, 2));
      // On all the data (not a subset), say when the shipped defaults are not what this data fits.
      if (!evaluation.subset && !options.json && evaluation.fitted) {
        const stale = staleShippedModels(DEFAULT_SENSING_MODELS, evaluation.fitted);
        print(stale.length ? `shipped models not what this data fits: ${stale.join(', ')} (refit with --fit and update src/model/defaults.ts)` : 'shipped models: the fit on this data (src/model/defaults.ts)');
      }
    });
}
