// Pilot: per-room background removal on cached packed splits (no re-simulation).
import { readFileSync } from 'node:fs';
const PILOT_DIR = process.env.PILOT_DIR ?? '/tmp/wiflow-pilots';
const D = new URL('../../dist', import.meta.url).pathname;
const { loadDataset } = await import(`${D}/training/dataset.js`);
const { trainPoseModel } = await import(`${D}/training/trainer.js`);
const { ModelSpecSchema } = await import(`${D}/model/contract.js`);
const variant = process.argv[2] ?? 'room-mean';
const epochs = Number(process.argv[3] ?? 6);
const arch = JSON.parse(process.argv[4] ?? '{"positionHead":"anchors"}');
const spec = ModelSpecSchema.parse(JSON.parse(readFileSync(new URL('../../models/wiflow-pose-v1/wiflow-model.json', import.meta.url), 'utf8')));
spec.output.presenceThreshold = 0.5;
const dir = process.env.DATA ?? `${PILOT_DIR}/data`;
const train = loadDataset(`${dir}/train`).data;
const valDir = process.env.VAL ?? dir;
const val = loadDataset(`${valDir}/val`).data;
const T = spec.input.frames; const F = train.csi.length / train.count / T;
function removeBackground(data) {
  const envs = data.environments.length;
  const sums = new Float64Array(envs * F), counts = new Float64Array(envs);
  for (let i = 0; i < data.count; i++) { const e = data.environmentIndex[i]; counts[e] += T; for (let t = 0; t < T; t++) { const b = (i * T + t) * F; for (let f = 0; f < F; f++) sums[e * F + f] += data.csi[b + f]; } }
  for (let i = 0; i < data.count; i++) { const e = data.environmentIndex[i]; for (let t = 0; t < T; t++) { const b = (i * T + t) * F; for (let f = 0; f < F; f++) data.csi[b + f] -= sums[e * F + f] / counts[e]; } }
}
function subtractReference(data, split) { subtractReferenceFrom(data, dir, split); }
function subtractReferenceFrom(data, dir, split) {
  const b = readFileSync(`${dir}/${split}/references.bin`); const refs = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  for (let i = 0; i < data.count; i++) for (let t = 0; t < T; t++) { const o = (i * T + t) * F; for (let f = 0; f < F; f++) data.csi[o + f] -= refs[i * F + f]; }
}
if (variant === 'room-mean') { removeBackground(train); removeBackground(val); }
if (variant.startsWith('empty-ref')) { subtractReference(train, 'train'); subtractReferenceFrom(val, valDir, 'val'); }
// Re-scale residuals: amplitude and phase separately, from the training data.
let sa = 0, sp = 0, n = 0; for (let i = 0; i < train.csi.length; i += 2) { sa += train.csi[i] ** 2; sp += train.csi[i + 1] ** 2; n++; }
const ra = Math.sqrt(sa / n), rp = Math.sqrt(sp / n); console.log('residual rms', ra, rp);
for (const d of [train, val]) for (let i = 0; i < d.csi.length; i += 2) { d.csi[i] /= ra; d.csi[i + 1] /= rp; }
const t0 = Date.now();
const res = await trainPoseModel(spec, train, val, { epochs, batchSize: 64, learningRate: 0.002, seed: 1, checkpointDir: `${PILOT_DIR}/ck-${variant}-${Date.now()}`, resume: false, architecture: arch,
  onProgress: (p) => { if (p.kind === 'epoch') console.log(`epoch ${p.epoch + 1} loss ${p.loss.toFixed(3)} val MPJPE ${p.validation?.mpjpeMm?.toFixed(0)} floor ${p.validation?.floorErrorM?.toFixed(2)} count ${p.validation?.countAccuracy?.toFixed(3)} PCK ${p.validation?.pck02?.toFixed(3)} rootrel ${p.validation?.rootRelativeMpjpeMm?.toFixed(0)} ${((Date.now()-t0)/1000).toFixed(0)}s`); } });
console.log('best', res.bestEpoch, JSON.stringify(res.bestValidation));

// Also on the v1 validation rooms (the shipped model's validation split), same transform.
const { PoseModel } = await import(`${D}/model/pose-model.js`);
const { evaluateModel } = await import(`${D}/eval/evaluate.js`);
const v1 = loadDataset(`${PILOT_DIR}/data/val`).data;
if (variant === 'room-mean') removeBackground(v1);
if (variant.startsWith('empty-ref')) subtractReferenceFrom(v1, `${PILOT_DIR}/data`, 'val');
for (let i = 0; i < v1.csi.length; i += 2) { v1.csi[i] /= ra; v1.csi[i + 1] /= rp; }
const r = evaluateModel(PoseModel.fromNetwork(spec, res.network), v1, null);
const f = (m) => `MPJPE ${m.mpjpeMm?.toFixed(0)} floor ${m.floorErrorM?.toFixed(2)} PCK ${m.pck02?.toFixed(3)} rootrel ${m.rootRelativeMpjpeMm?.toFixed(0)}` + (m.countAccuracy !== undefined ? ` count ${m.countAccuracy.toFixed(3)}` : '');
console.log('v1 val: model', f(r.model.all), '| room centre', f(r.baselines.meanPoseAtRoomCentre.all));
