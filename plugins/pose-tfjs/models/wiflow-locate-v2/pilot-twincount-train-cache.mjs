// The training rooms' count features for candidate R of twincount-protocol.md (the head refitted on
// training + twin): the same 40 training sessions `wiflow locate fit` images, through the shipped
// imaging (the features do not depend on the head). Run from the repository root after a build:
//   node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-twincount-train-cache.mjs <out.json> [sessions]
import { writeFileSync } from 'node:fs';
import { locateSplit, loadLocatorModel, SHIPPED_LOCATOR_DIR, DatasetRecipeSchema } from '@wiflow/plugin-pose-tfjs';

const [out, sessionsArg] = process.argv.slice(2);
const model = loadLocatorModel(SHIPPED_LOCATOR_DIR);
const untracked = { ...model, spec: { ...model.spec, tracker: undefined } };
const recipe = DatasetRecipeSchema.parse(model.spec.training.dataset ?? {});
const features = [], counts = [];
for await (const instant of locateSplit(untracked, recipe, { split: 'train', maxSessions: Number(sessionsArg ?? model.spec.training.rooms ?? 40) })) {
  if (!instant.truth) continue;
  features.push(instant.features);
  counts.push(instant.truth.persons.length);
}
writeFileSync(out, JSON.stringify({ hash: model.hash, features, counts }));
console.error(`${features.length} training estimates`);
