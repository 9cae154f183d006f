// `npm run eval:real`: the real-capture evaluation without the wiflow CLI (prints one line and exits 0 when the data is absent).
//   npm run eval:real -- [DATA_DIR] [--falls-only] [--sensing '{"fallMotionGuard":true}']
import { SensingConfigSchema } from '../config.js';
import { defaultRealRoot, evaluateReal, formatEvaluation } from './real-eval.js';

const args = process.argv.slice(2);
const configAt = args.indexOf('--sensing');
const config = configAt >= 0 ? SensingConfigSchema.strict().parse(JSON.parse(args[configAt + 1])) : undefined;
const root = args.find((a, i) => !a.startsWith('--') && (configAt < 0 || i !== configAt + 1)) ?? defaultRealRoot();
const evaluation = await evaluateReal(root, { log: (line) => console.log(line), config, fallsOnly: args.includes('--falls-only') });
if (!evaluation) console.log(`real captures not found at ${root}: nothing to evaluate`);
else {
  for (const line of formatEvaluation(evaluation)) console.log(line);
  for (const r of evaluation.results) if (r.misses.length) console.log(`misses, ${r.name}: ${r.misses.slice(0, 12).join('; ')}`);
}
