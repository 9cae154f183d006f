import { DIFFUSE_SUM_WASM_BASE64 } from './diffuse-sum-wasm.js';

/** The part of the WebAssembly API used here (the package compiles without the DOM's types). */
interface WebAssemblyApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports?: object) => { exports: Record<string, unknown> };
}

interface DiffuseSumExports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  sumDiffuse(paths: number, ntx: number, nrx: number, nsc: number, nruns: number, maxGap: number, amp: number, tx: number, rx: number, runs: number, pow: number, acc: number): void;
}

/** diffuse-sum.wat compiled once, or null where WebAssembly or its SIMD is missing (the JS sweep is used there). */
const DIFFUSE_SUM_MODULE: object | null = compileDiffuseSum();

function compileDiffuseSum(): object | null {
  const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
  if (!api) return null;
  const bytes = Uint8Array.from(atob(DIFFUSE_SUM_WASM_BASE64), (c) => c.charCodeAt(0));
  return api.validate(bytes) ? new api.Module(bytes) : null;
}

/** Whether the reverberant body's sum runs in WebAssembly SIMD here (Node 20 and current browsers: yes). */
export function diffuseSumAvailable(): boolean {
  return DIFFUSE_SUM_MODULE !== null;
}

const PAGE = 65536;

/**
 * One link's diffuse-path sum in WebAssembly SIMD (diffuse-sum.wat): the caller writes each path's complex
 * amplitude and per-antenna phasors into `amp`, `tx` and `rx`, loads the channel, sums, and stores it back. The
 * channel is held in the kernel's memory as two antenna pairs per 128-bit lane pair, so `load` and `store` reorder it.
 */
export class DiffuseSumKernel {
  /** Per path {re, im}. */
  readonly amp: Float64Array;
  /** Per path and transmit antenna {c0, s0, cs, ss}: the phasor at the first subcarrier and its one-step phasor. */
  readonly tx: Float64Array;
  /** Per path and receive antenna {c0, s0, cs, ss}. */
  readonly rx: Float64Array;
  readonly #exports: DiffuseSumExports;
  readonly #acc: Float64Array;
  readonly #ntx: number;
  readonly #nrx: number;
  readonly #nsc: number;
  readonly #nruns: number;
  readonly #maxGap: number;
  readonly #offsets: { runs: number; pow: number; acc: number; amp: number; tx: number; rx: number };

  /** For a link of ntx × nrx antennas over a grid whose index steps come in runs (gap, length), up to `maxPaths` paths a call. */
  constructor(ntx: number, nrx: number, nsc: number, runGap: Int32Array, runLength: Int32Array, maxPaths: number) {
    if (!DIFFUSE_SUM_MODULE) throw new Error('WebAssembly SIMD is not available');
    const api = (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly!;
    this.#exports = new api.Instance(DIFFUSE_SUM_MODULE).exports as unknown as DiffuseSumExports;
    this.#ntx = ntx;
    this.#nrx = nrx;
    this.#nsc = nsc;
    this.#nruns = runGap.length;
    let maxGap = 1;
    for (const g of runGap) maxGap = Math.max(maxGap, g);
    this.#maxGap = maxGap;
    const groups = (ntx * nrx + 1) >> 1;
    const align = (n: number) => (n + 15) & ~15;
    const runs = 0;
    const pow = align(runs + 8 * this.#nruns);
    const acc = pow + 64 * (maxGap + 1);
    const amp = acc + 32 * groups * nsc;
    const tx = amp + 16 * maxPaths;
    const rx = tx + 32 * maxPaths * ntx;
    const end = rx + 32 * maxPaths * nrx;
    this.#offsets = { runs, pow, acc, amp, tx, rx };
    const memory = this.#exports.memory;
    if (end > memory.buffer.byteLength) memory.grow(Math.ceil((end - memory.buffer.byteLength) / PAGE));
    const buffer = memory.buffer;
    const runView = new Int32Array(buffer, runs, 2 * this.#nruns);
    for (let r = 0; r < this.#nruns; r++) {
      runView[2 * r] = runGap[r];
      runView[2 * r + 1] = runLength[r];
    }
    this.#acc = new Float64Array(buffer, acc, 4 * groups * nsc);
    this.amp = new Float64Array(buffer, amp, 2 * maxPaths);
    this.tx = new Float64Array(buffer, tx, 4 * maxPaths * ntx);
    this.rx = new Float64Array(buffer, rx, 4 * maxPaths * nrx);
  }

  /** Copy the channel (row-major [pair][subcarrier]) into the kernel, pair p in group p >> 1, lane p & 1. */
  load(re: Float64Array, im: Float64Array): void {
    const acc = this.#acc;
    const nsc = this.#nsc;
    const pairs = this.#ntx * this.#nrx;
    for (let p = 0; p < pairs; p++) {
      let at = 4 * (p >> 1) * nsc + (p & 1);
      for (let k = 0, i = p * nsc; k < nsc; k++, i++, at += 4) {
        acc[at] = re[i];
        acc[at + 2] = im[i];
      }
    }
    // An odd last group's second lane repeats the last pair and is never read: keep it from growing.
    if (pairs & 1) for (let k = 0, at = 4 * (pairs >> 1) * nsc + 1; k < nsc; k++, at += 4) acc[at] = acc[at + 2] = 0;
  }

  /** Add the first `paths` paths' sweeps to the loaded channel (an even count: the kernel takes two paths at a time). */
  sum(paths: number): void {
    if (paths & 1) throw new RangeError('the diffuse sum takes an even number of paths');
    const o = this.#offsets;
    this.#exports.sumDiffuse(paths, this.#ntx, this.#nrx, this.#nsc, this.#nruns, this.#maxGap, o.amp, o.tx, o.rx, o.runs, o.pow, o.acc);
  }

  /** Copy the channel back (the inverse of `load`). */
  store(re: Float64Array, im: Float64Array): void {
    const acc = this.#acc;
    const nsc = this.#nsc;
    const pairs = this.#ntx * this.#nrx;
    for (let p = 0; p < pairs; p++) {
      let at = 4 * (p >> 1) * nsc + (p & 1);
      for (let k = 0, i = p * nsc; k < nsc; k++, i++, at += 4) {
        re[i] = acc[at];
        im[i] = acc[at + 2];
      }
    }
  }
}
