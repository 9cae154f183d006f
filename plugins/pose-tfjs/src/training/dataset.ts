import { mkdirSync, readFileSync, renameSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import type { CsiWindow, GroundTruthPerson } from '@wiflow/core';
import { PoseErrors } from '../errors.js';
import { SLOT_SIZE, type ModelSpec } from '../model/contract.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import { linkIndexOf, sampleSizes, validateWindow, writeGeometryFeatures, writeLinkFeatures } from '../model/features.js';
import { encodeTarget } from '../model/targets.js';

/** One labelled instant of one environment: a window per link and what was true at its end. */
export interface PoseSample {
  environment: EnvironmentGeometry;
  /** One window per link of the environment (any order; matched by tx and rx ids). */
  windows: readonly CsiWindow[];
  truth: readonly GroundTruthPerson[];
}

/** Samples packed as model inputs and targets, plus the truth for scoring. */
export interface PackedDataset {
  count: number;
  /** `[count × frames × frameFeatureSize]`. */
  csi: Float32Array;
  /** `[count × geometryFeatureSize]`. */
  geometry: Float32Array;
  /** `[count × maxPersons × SLOT_SIZE]`. */
  target: Float32Array;
  /** `[count × 2]`: room width and depth (m), for the loss. */
  roomSize: Float32Array;
  /** Index into `environments` per sample. */
  environmentIndex: Uint32Array;
  environments: EnvironmentGeometry[];
  truths: GroundTruthPerson[][];
}

/** Amplitude and phase feature statistics of samples under a contract (for its input normalisation). */
export function inputStatistics(samples: readonly PoseSample[], spec: ModelSpec): ModelSpec['normalisation'] {
  const identity: ModelSpec = { ...spec, normalisation: { amplitudeMean: 0, amplitudeStd: 1, phaseMean: 0, phaseStd: 1 } };
  const packer = new DatasetPacker(identity, Math.max(1, samples.length));
  for (const s of samples) packer.add(s);
  const { csi } = packer.finish();
  let n = 0, as = 0, aq = 0, ps = 0, pq = 0;
  for (let i = 0; i + 1 < csi.length; i += 2) {
    const a = csi[i], p = csi[i + 1];
    n++; as += a; aq += a * a; ps += p; pq += p * p;
  }
  if (n === 0) throw PoseErrors.datasetInvalid('no samples to compute input statistics from');
  const am = as / n, pm = ps / n;
  return { amplitudeMean: am, amplitudeStd: Math.sqrt(Math.max(aq / n - am * am, 1e-12)), phaseMean: pm, phaseStd: Math.sqrt(Math.max(pq / n - pm * pm, 1e-12)) };
}

/** Grows a packed dataset one sample at a time. */
export class DatasetPacker {
  private csi: Float32Array;
  private geometry: Float32Array;
  private target: Float32Array;
  private roomSize: Float32Array;
  private environmentIndex: Uint32Array;
  private readonly environments: EnvironmentGeometry[] = [];
  private readonly environmentIds = new Map<string, number>();
  private readonly truths: GroundTruthPerson[][] = [];
  private count = 0;
  private readonly sizes: { csi: number; geometry: number };

  constructor(private readonly spec: ModelSpec, capacity = 1024) {
    this.sizes = sampleSizes(spec);
    this.csi = new Float32Array(capacity * this.sizes.csi);
    this.geometry = new Float32Array(capacity * this.sizes.geometry);
    this.target = new Float32Array(capacity * spec.output.maxPersons * SLOT_SIZE);
    this.roomSize = new Float32Array(capacity * 2);
    this.environmentIndex = new Uint32Array(capacity);
  }

  private grow(): void {
    const cap = this.environmentIndex.length * 2;
    const resize = <T extends Float32Array | Uint32Array>(a: T, per: number): T => {
      const b = new (a.constructor as new (n: number) => T)(cap * per);
      b.set(a);
      return b;
    };
    this.csi = resize(this.csi, this.sizes.csi);
    this.geometry = resize(this.geometry, this.sizes.geometry);
    this.target = resize(this.target, this.spec.output.maxPersons * SLOT_SIZE);
    this.roomSize = resize(this.roomSize, 2);
    this.environmentIndex = resize(this.environmentIndex, 1);
  }

  /** Add one sample (throws a clear error for windows that do not fit the model). */
  add(sample: PoseSample): void {
    if (this.count === this.environmentIndex.length) this.grow();
    const i = this.count;
    const env = sample.environment;
    if (sample.windows.length !== this.spec.input.links) throw PoseErrors.datasetInvalid(`sample has ${sample.windows.length} windows, the model expects one per link (${this.spec.input.links})`);
    for (const w of sample.windows) {
      validateWindow(w, this.spec);
      const link = linkIndexOf(env, w);
      if (link < 0) throw PoseErrors.datasetInvalid(`window of link ${w.link.tx}→${w.link.rx} is not a link of environment ${env.id}`);
      writeLinkFeatures(w, link, this.spec, this.csi, i * this.sizes.csi);
    }
    writeGeometryFeatures(env, this.spec, this.geometry, i * this.sizes.geometry);
    encodeTarget(sample.truth, env, this.spec.output.maxPersons, this.target, i * this.spec.output.maxPersons * SLOT_SIZE);
    this.roomSize[2 * i] = env.room.width;
    this.roomSize[2 * i + 1] = env.room.depth;
    let e = this.environmentIds.get(env.id);
    if (e === undefined) {
      e = this.environments.length;
      this.environments.push(env);
      this.environmentIds.set(env.id, e);
    }
    this.environmentIndex[i] = e;
    this.truths.push(sample.truth.map((p) => ({ id: p.id, position: { ...p.position }, activity: p.activity, keypoints3d: p.keypoints3d.map((k) => [...k]) })));
    this.count++;
  }

  /** The packed dataset (arrays trimmed to the sample count). */
  finish(): PackedDataset {
    const n = this.count;
    return {
      count: n,
      csi: this.csi.slice(0, n * this.sizes.csi),
      geometry: this.geometry.slice(0, n * this.sizes.geometry),
      target: this.target.slice(0, n * this.spec.output.maxPersons * SLOT_SIZE),
      roomSize: this.roomSize.slice(0, n * 2),
      environmentIndex: this.environmentIndex.slice(0, n),
      environments: this.environments,
      truths: this.truths,
    };
  }
}

/** A subset of a packed dataset (by sample indices), e.g. a small test split. */
export function subsetDataset(data: PackedDataset, indices: readonly number[]): PackedDataset {
  const per = (a: Float32Array) => a.length / Math.max(1, data.count);
  const take = (a: Float32Array) => {
    const w = per(a);
    const out = new Float32Array(indices.length * w);
    indices.forEach((idx, j) => out.set(a.subarray(idx * w, (idx + 1) * w), j * w));
    return out;
  };
  return {
    count: indices.length,
    csi: take(data.csi),
    geometry: take(data.geometry),
    target: take(data.target),
    roomSize: take(data.roomSize),
    environmentIndex: Uint32Array.from(indices.map((i) => data.environmentIndex[i])),
    environments: data.environments,
    truths: indices.map((i) => data.truths[i]),
  };
}

const ARRAYS = ['csi', 'geometry', 'target', 'roomSize'] as const;

/** Write a packed dataset to a directory (header.json + arrays.bin). */
export function saveDataset(directory: string, data: PackedDataset, meta: Record<string, unknown> = {}): void {
  mkdirSync(directory, { recursive: true });
  const lengths = Object.fromEntries(ARRAYS.map((k) => [k, data[k].length]));
  const header = { version: 1, count: data.count, lengths, environmentIndex: Array.from(data.environmentIndex), environments: data.environments, truths: data.truths, meta };
  const bin = Buffer.concat(ARRAYS.map((k) => Buffer.from(data[k].buffer, data[k].byteOffset, data[k].byteLength)));
  writeFileSync(path.join(directory, 'arrays.bin.tmp'), bin);
  renameSync(path.join(directory, 'arrays.bin.tmp'), path.join(directory, 'arrays.bin'));
  writeFileSync(path.join(directory, 'header.json.tmp'), JSON.stringify(header));
  renameSync(path.join(directory, 'header.json.tmp'), path.join(directory, 'header.json'));
}

/** Read a dataset written by `saveDataset`, with its meta. */
export function loadDataset(directory: string): { data: PackedDataset; meta: Record<string, unknown> } {
  if (!existsSync(path.join(directory, 'header.json'))) throw PoseErrors.datasetInvalid(`no dataset in ${directory}`);
  const header = JSON.parse(readFileSync(path.join(directory, 'header.json'), 'utf8')) as {
    version: number; count: number; lengths: Record<string, number>; environmentIndex: number[];
    environments: EnvironmentGeometry[]; truths: GroundTruthPerson[][]; meta: Record<string, unknown>;
  };
  if (header.version !== 1) throw PoseErrors.datasetInvalid(`${directory}: unknown dataset version ${header.version}`);
  const bin = readFileSync(path.join(directory, 'arrays.bin'));
  const copy = new Uint8Array(bin.byteLength);
  copy.set(bin);
  let offset = 0;
  const arrays: Record<string, Float32Array> = {};
  for (const k of ARRAYS) {
    const n = header.lengths[k];
    arrays[k] = new Float32Array(copy.buffer, offset, n);
    offset += n * 4;
  }
  if (offset !== copy.byteLength) throw PoseErrors.datasetInvalid(`${directory}: arrays.bin has ${copy.byteLength} bytes, header says ${offset}`);
  return {
    data: {
      count: header.count,
      csi: arrays.csi, geometry: arrays.geometry, target: arrays.target, roomSize: arrays.roomSize,
      environmentIndex: Uint32Array.from(header.environmentIndex),
      environments: header.environments,
      truths: header.truths,
    },
    meta: header.meta,
  };
}
