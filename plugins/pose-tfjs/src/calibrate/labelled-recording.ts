import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { CsiFrame, CsiWindow } from '@wiflow/core';
import { PoseErrors } from '../errors.js';
import type { ModelSpec } from '../model/contract.js';
import { EnvironmentGeometrySchema, type EnvironmentGeometry } from '../model/environment.js';
import { environmentFromScenarioFile } from '../sim/environment-from-scenario.js';
import { openCapture, SignalChain } from '@wiflow/plugin-csi';
import { DatasetRecipeSchema, signalChainOptions } from '../sim/recipe.js';
import type { LabelledSample } from './calibrate.js';
import { readCocoLabels } from './coco-labels.js';

/**
 * Read a labelled recording directory: `environment.json` (room, links, camera) or a
 * simulator `scenario.json`/`.yaml`; `csi.*` (any capture @wiflow/plugin-csi reads, e.g. a
 * wiflow recording); `labels.json` (COCO keypoints with image timestamps). Frames become
 * windows with the training recipe's signal chain; each labelled instant takes, per link, the window whose
 * end is nearest its time (within one hop).
 */
export async function loadLabelledRecording(directory: string, spec: ModelSpec): Promise<{ environment: EnvironmentGeometry; samples: LabelledSample[] }> {
  if (!existsSync(directory)) throw PoseErrors.labelsInvalid(`no recording directory ${directory}`);
  const files = readdirSync(directory);
  let environment: EnvironmentGeometry;
  if (files.includes('environment.json')) {
    const parsed = EnvironmentGeometrySchema.safeParse(JSON.parse(readFileSync(path.join(directory, 'environment.json'), 'utf8')));
    if (!parsed.success) throw PoseErrors.labelsInvalid(`environment.json: ${parsed.error.issues.slice(0, 4).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    environment = parsed.data;
  } else {
    const scenario = files.find((f) => /^scenario\.(json|ya?ml)$/.test(f));
    if (!scenario) throw PoseErrors.labelsInvalid(`${directory} has neither environment.json nor scenario.json/.yaml`);
    environment = await environmentFromScenarioFile(path.join(directory, scenario));
  }
  const capture = files.find((f) => f.startsWith('csi.'));
  if (!capture) throw PoseErrors.labelsInvalid(`${directory} has no csi.* capture`);
  if (!files.includes('labels.json')) throw PoseErrors.labelsInvalid(`${directory} has no labels.json`);
  const labels = readCocoLabels(path.join(directory, 'labels.json'));

  const recipe = DatasetRecipeSchema.parse(spec.training.dataset ?? {});
  const chain = new SignalChain(signalChainOptions(recipe, environment.id));
  const windows = new Map<string, CsiWindow[]>(environment.links.map((l) => [`${l.tx}->${l.rx}`, []]));
  let rateHz = 0, firstTime = NaN, count = 0;
  for await (const frame of await openCapture(path.join(directory, capture))) {
    const key = `${frame.link.tx}->${frame.link.rx}`;
    for (const w of chain.push({ ...frame, truth: undefined } as CsiFrame)) windows.get(key)?.push(w);
    if (Number.isNaN(firstTime)) firstTime = frame.time;
    count++;
    rateHz = count / Math.max(1e-3, (frame.time - firstTime) / 1000) / environment.links.length;
  }
  const toleranceMs = (recipe.hopFrames / Math.max(1, rateHz)) * 1000;
  const samples: LabelledSample[] = [];
  for (const instant of labels) {
    const chosen: CsiWindow[] = [];
    for (const link of environment.links) {
      const list = windows.get(`${link.tx}->${link.rx}`)!;
      let best: CsiWindow | null = null;
      for (const w of list) if (!best || Math.abs(w.time - instant.time) < Math.abs(best.time - instant.time)) best = w;
      if (best && Math.abs(best.time - instant.time) <= toleranceMs) chosen.push(best);
    }
    if (chosen.length === environment.links.length) samples.push({ windows: chosen, labels: instant });
  }
  return { environment, samples };
}
