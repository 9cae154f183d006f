// `npm run eval:sim [-- --small] [-- --validation] [-- --reference]`: the simulated evaluation without the wiflow CLI.
import { evaluateSim, formatSimEvaluation } from './sim-eval.js';

const evaluation = evaluateSim({ small: process.argv.includes('--small'), split: process.argv.includes('--validation') ? 'validation' : 'test', reference: process.argv.includes('--reference'), log: (line) => console.log(line) });
console.log(`${evaluation.split}${evaluation.reference ? ', with the installer\'s empty-room reference' : ''}: ${evaluation.rooms} unseen rooms, ${evaluation.sessions} sessions, ${evaluation.simulatedSeconds} simulated seconds`);
for (const line of formatSimEvaluation(evaluation)) console.log(line);
