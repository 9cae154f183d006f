// Score a pilot checkpoint (pilot.mjs) on the v1 validation rooms; the two scales are the "residual rms" pilot.mjs printed.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
const D = new URL('../../dist', import.meta.url).pathname;
const PILOT_DIR = process.env.PILOT_DIR ?? '/tmp/wiflow-pilots';
const tf = createRequire(import.meta.url)('@tensorflow/tfjs');
const { loadDataset } = await import(`${D}/training/dataset.js`);
const { PoseModel } = await import(`${D}/model/pose-model.js`);
const { evaluateModel } = await import(`${D}/eval/evaluate.js`);
const { setupBackend } = await import(`${D}/backend/backend.js`);
const { fileIOHandler } = await import(`${D}/model/file-io-handler.js`);
const { ModelSpecSchema } = await import(`${D}/model/contract.js`);
await import(`${D}/model/anchored-slots.js`);
await setupBackend({ prefer: 'wasm' });
const [ck, ra, rp] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
const spec = ModelSpecSchema.parse(JSON.parse(readFileSync(new URL('../../models/wiflow-pose-v1/wiflow-model.json', import.meta.url), 'utf8'))); spec.output.presenceThreshold = 0.5;
const net = await tf.loadLayersModel(fileIOHandler(`${ck}/best`));
const v1 = loadDataset(`${PILOT_DIR}/data/val`).data;
for (let i = 0; i < v1.csi.length; i += 2) { v1.csi[i] /= ra; v1.csi[i + 1] /= rp; }
const r = evaluateModel(PoseModel.fromNetwork(spec, net), v1, null).model.all;
console.log(`v1 val: MPJPE ${r.mpjpeMm.toFixed(0)} floor ${r.floorErrorM.toFixed(2)} count ${r.countAccuracy.toFixed(3)} PCK ${r.pck02.toFixed(3)}`);
