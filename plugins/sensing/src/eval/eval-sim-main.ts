// `npm run eval:sim [-- --small]`: the simulated evaluation without the wiflow CLI.
import { evaluateSim, formatSimEvaluation } from './sim-eval.js';

const evaluation = evaluateSim({ small: process.argv.includes('--small'), log: (line) => console.log(line) });
console.log(`${evaluation.rooms} unseen rooms, ${evaluation.sessions} sessions, ${evaluation.simulatedSeconds} simulated seconds`);
for (const line of formatSimEvaluation(evaluation)) console.log(line);
