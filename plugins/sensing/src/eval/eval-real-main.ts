// `npm run eval:real`: the real-capture evaluation without the wiflow CLI (prints one line and exits 0 when the data is absent).
import { defaultRealRoot, evaluateReal, formatEvaluation } from './real-eval.js';

const root = process.argv[2] ?? defaultRealRoot();
const evaluation = await evaluateReal(root, { log: (line) => console.log(line) });
if (!evaluation) console.log(`real captures not found at ${root}: nothing to evaluate`);
else {
  for (const line of formatEvaluation(evaluation)) console.log(line);
  for (const r of evaluation.results) if (r.misses.length) console.log(`misses, ${r.name}: ${r.misses.slice(0, 12).join('; ')}`);
}
