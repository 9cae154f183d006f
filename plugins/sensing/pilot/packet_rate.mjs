// Pilot (2026-11-30, not shipped): how does telling movement from stillness degrade with the packet rate an
// installer sets? It gives the link-readiness rules (src/signal/readiness.ts: movement `limited` under 10
// packets/s, `no` under 2) a measured basis. Real captures only; nothing of the product is fitted here.
//   ESP32 presence set (about 100 packets/s): quiet room vs movement per second, leave one chip out.
//   Intel 5300 activities (20 packets/s): still (lying, sitting) vs moving (walking, running, jump) per file,
//   leave one person out, a file moving when its median motion probability is >= 0.5.
// Each fold's model is fitted, as the product's was, on the training groups' captures at their own rate with the
// shipped model's features; the test group's captures are then thinned to 1 packet in k (every k-th packet
// kept, so the rate drops k-fold and the spacing stays even) before sensing, as a link sending at that rate.
// Run from the repository root after a build: node plugins/sensing/pilot/packet_rate.mjs [../shared/data/real]
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { openCapture } from '@wiflow/plugin-csi';
import { DEFAULT_SENSING_MODELS, LinkSensor, MOTION_FEATURES, SensingConfigSchema, fitLogistic, motionInputs, pickFeatures, predictLogistic, sensingConfigHash, personOf, withoutCopies } from '@wiflow/plugin-sensing';

const root = process.argv[2] ?? '../shared/data/real';
if (!existsSync(root)) {
  console.log(`packet-rate pilot: ${root} is absent; nothing to measure`);
  process.exit(0);
}
const config = SensingConfigSchema.parse({});
const configHash = sensingConfigHash(config, DEFAULT_SENSING_MODELS);

/** Motion inputs per second of a capture, keeping 1 packet in `k`. */
async function motionRows(file, k) {
  const rows = [];
  const sensor = new LinkSensor({ tx: 'tx', rx: 'rx' }, { environmentId: 'pilot', config, models: DEFAULT_SENSING_MODELS, configHash, onMotionFeatures: (_s, f) => rows.push(motionInputs(f)) });
  const reader = await openCapture(file, { onError: 'stop' });
  let n = 0;
  for await (const frame of reader) if (n++ % k === 0) sensor.push(frame);
  sensor.finish();
  return rows;
}

/** Fit on the files' rows at the thinning factors `train` (pooled), with the given features. */
function fitOn(files, positive, features, train = [1]) {
  const idx = features.map((f) => MOTION_FEATURES.indexOf(f));
  const rows = [];
  const labels = [];
  for (const f of files) for (const k of train) for (const r of f.rows[k]) {
    rows.push(idx.map((i) => r[i]));
    labels.push(positive(f) ? 1 : 0);
  }
  return fitLogistic(features, rows, labels);
}
/** The real-eval's feature sets (src/eval/real-eval.ts MOTION_FEATURE_SETS). */
const [SP, SS, SN, TN] = MOTION_FEATURES;
const SETS = [[SP, SS, SN, TN], [SP], [SN], [TN], [SP, SN], [SS, SN], [SN, TN], [SP, TN]];
/** As real-eval's fitMotion: the feature set chosen by inner leave-one-group-out (balanced per-second accuracy over the pooled rates). */
function fitNested(files, positive, train) {
  const groups = [...new Set(files.map((f) => f.group))];
  let best = SETS[0];
  let bestScore = -1;
  for (const names of SETS) {
    const right = [0, 0];
    const count = [0, 0];
    for (const g of groups) {
      const model = fitOn(files.filter((f) => f.group !== g), positive, names, train);
      for (const f of files.filter((h) => h.group === g)) {
        const y = positive(f) ? 1 : 0;
        for (const k of train) for (const r of f.rows[k]) {
          count[y]++;
          if ((prob(model, r) >= 0.5 ? 1 : 0) === y) right[y]++;
        }
      }
    }
    const score = right[0] / Math.max(1, count[0]) + right[1] / Math.max(1, count[1]);
    if (score > bestScore) [best, bestScore] = [names, score];
  }
  return fitOn(files, positive, best, train);
}
const MODE = process.env.MODE ?? 'shipped';
const TRAIN = { esp32: (process.env.TRAIN_ESP32 ?? '1,2,5,10,20').split(',').map(Number), intel: (process.env.TRAIN_INTEL ?? '1,2,4').split(',').map(Number) };
function fit(files, positive, features, kind) {
  return MODE === 'shipped' ? fitOn(files, positive, features) : fitNested(files, positive, TRAIN[kind]);
}
const prob = (model, row) => predictLogistic(model, pickFeatures(model, MOTION_FEATURES, row));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function esp32(factors) {
  const dir = join(root, 'presence-esp32');
  const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'));
  const files = [];
  for (const e of labels) {
    const rows = {};
    for (const k of factors) rows[k] = await motionRows(join(dir, e.file), k);
    files.push({ ...e, group: e.chip, rows, rate: e.packets / e.seconds });
  }
  const features = DEFAULT_SENSING_MODELS.motion.int8.features;
  const chips = [...new Set(files.map((f) => f.group))];
  console.log(`ESP32 presence set: ${files.length} files, ${chips.length} chips, median ${median(files.map((f) => f.rate)).toFixed(0)} packets/s; features ${features.join(', ')}`);
  console.log('| kept | packets/s (median) | F1 per second | TP | FP | FN | files right |');
  console.log('|---|---|---|---|---|---|---|');
  const chosen = [];
  for (const k of factors) {
    let tp = 0, fp = 0, fn = 0, right = 0;
    for (const chip of chips) {
      const model = fit(files.filter((f) => f.group !== chip), (f) => f.label === 'movement', features, 'esp32');
      if (k === factors[0]) chosen.push(model.features.join('+'));
      for (const f of files.filter((g) => g.group === chip)) {
        const truth = f.label === 'movement';
        const probs = f.rows[k].map((r) => prob(model, r));
        for (const p of probs) {
          const said = p >= model.threshold;
          if (said && truth) tp++;
          else if (said && !truth) fp++;
          else if (!said && truth) fn++;
        }
        if (probs.length && (median(probs) >= model.threshold) === truth) right++;
      }
    }
    const f1 = (2 * tp) / Math.max(1, 2 * tp + fp + fn);
    console.log(`| 1 in ${k} | ${(median(files.map((f) => f.rate)) / k).toFixed(1)} | ${f1.toFixed(3)} | ${tp} | ${fp} | ${fn} | ${right}/${files.length} |`);
  }
  console.log(`folds' features: ${chosen.join('; ')}`);
}

async function intel(factors) {
  const dir = join(root, 'activities-intel5300');
  const all = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'));
  const still = new Set(['lying', 'sitting']);
  const moving = new Set(['walking', 'running', 'jump']);
  const { kept } = withoutCopies(dir, all.filter((e) => still.has(e.label) || moving.has(e.label)));
  const files = [];
  for (const e of kept) {
    const rows = {};
    for (const k of factors) rows[k] = await motionRows(join(dir, e.file), k);
    files.push({ ...e, group: personOf(e), rows });
  }
  const features = DEFAULT_SENSING_MODELS.motion.intel5300.features;
  const people = [...new Set(files.map((f) => f.group))];
  console.log(`\nIntel 5300 activities: ${files.length} files (still ${files.filter((f) => still.has(f.label)).length}), ${people.length} people, 20 packets/s; features ${features.join(', ')}`);
  console.log('| kept | packets/s | accuracy per file | still right | moving right |');
  console.log('|---|---|---|---|---|');
  const chosen = [];
  for (const k of factors) {
    let stillRight = 0, movingRight = 0, stillN = 0, movingN = 0;
    for (const person of people) {
      const model = fit(files.filter((f) => f.group !== person), (f) => moving.has(f.label), features, 'intel');
      if (k === factors[0]) chosen.push(model.features.join('+'));
      for (const f of files.filter((g) => g.group === person)) {
        const probs = f.rows[k].map((r) => prob(model, r));
        const said = probs.length > 0 && median(probs) >= model.threshold;
        if (moving.has(f.label)) {
          movingN++;
          if (said) movingRight++;
        } else {
          stillN++;
          if (!said) stillRight++;
        }
      }
    }
    console.log(`| 1 in ${k} | ${(20 / k).toFixed(1)} | ${((stillRight + movingRight) / (stillN + movingN)).toFixed(3)} | ${stillRight}/${stillN} | ${movingRight}/${movingN} |`);
  }
  console.log(`folds' features: ${chosen.join('; ')}`);
}

const started = Date.now();
console.log(`mode ${MODE}${MODE === 'shipped' ? ' (each fold fitted at the captures\' own rate, the shipped model\'s features)' : ` (each fold fitted on its training groups' captures thinned 1 in ${TRAIN.esp32.join(', ')} (ESP32) and ${TRAIN.intel.join(', ')} (Intel), pooled; features chosen by inner leave-one-group-out)`}`);
if (process.env.ONLY !== 'intel') await esp32([1, 2, 5, 10, 20, 50]);
if (process.env.ONLY !== 'esp32') await intel([1, 2, 4, 10]);
console.log(`\n${((Date.now() - started) / 1000).toFixed(0)} s wall`);
