import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { evaluateSim, formatSimEvaluation } from '../eval/sim-eval.js';

/** Register `wiflow eval-sense-sim`: the sensing scored end to end on unseen simulated rooms. */
export function registerEvalSimCommand(program: Command, print: (line: string) => void): void {
  program
    .command('eval-sense-sim')
    .description('score presence of a still person and of a person walking in after the warm-up, false presence with a fan, a cat and a door, falls and breathing end to end on unseen simulated rooms (the test split)')
    .option('--small', 'the CI subset: 3 test rooms, shorter sessions (about a minute)')
    .option('--validation', 'score the validation rooms instead (half as many; the ones --fit chooses on): for choosing, before the test rooms are scored once')
    .option('--json', 'print the results as JSON')
    .option('--fit', 'first fit the simulated radios\' models on the training rooms (choices on the validation rooms), score those, and print them')
    .option('--reference', 'sense every session with the installer\'s empty-room reference of its links (30 s of the room with nobody in it, recorded before the session): the "with reference" rows')
    .option('--out <file>', 'also write the markdown table to this file')
    .action((options: { small?: boolean; validation?: boolean; json?: boolean; fit?: boolean; reference?: boolean; out?: string }) => {
      const evaluation = evaluateSim({ small: options.small, split: options.validation ? 'validation' : 'test', fit: options.fit, reference: options.reference, log: options.json ? undefined : print });
      const table = formatSimEvaluation(evaluation);
      if (options.json) print(JSON.stringify({ split: evaluation.split, small: evaluation.small, ...(evaluation.reference ? { reference: true } : {}), rooms: evaluation.rooms, sessions: evaluation.sessions, simulatedSeconds: evaluation.simulatedSeconds, results: evaluation.results }, null, 2));
      else {
        print(`${evaluation.split}${evaluation.reference ? ', with the installer\'s empty-room reference' : ''}: ${evaluation.rooms} unseen rooms, ${evaluation.sessions} sessions, ${evaluation.simulatedSeconds} simulated seconds`);
        for (const line of table) print(line);
      }
      if (options.out) writeFileSync(options.out, `${table.join('\n')}\n`);
      if (options.fit) print(JSON.stringify({ motion: { sim: evaluation.models.motion.sim }, fallByFamily: evaluation.models.fallByFamily, fallSignalByFamily: evaluation.models.fallSignalByFamily }, null, 2));
    });
}
