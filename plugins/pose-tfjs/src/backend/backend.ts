import * as tf from '@tensorflow/tfjs';
import { registerWasmConv2DBackpropFilter } from './conv2d-backprop-filter.js';

/** The backends wiflow can run the pose model on, fastest first when installed. */
export type PoseBackendName = 'tensorflow' | 'wasm' | 'cpu';

/** What backend setup chose and why. */
export interface BackendReport {
  backend: PoseBackendName;
  /** The native binding that was loaded, when one was ('@tensorflow/tfjs-node-gpu' or '@tensorflow/tfjs-node'). */
  native: string | null;
  /** WASM SIMD available (only meaningful for 'wasm'). */
  simd: boolean | null;
  /** Why a faster backend was not used, one line each. */
  notes: string[];
}

let pending: Promise<BackendReport> | null = null;
let current: BackendReport | null = null;

/** Options for `setupBackend`. */
export interface BackendOptions {
  /** Force a backend: 'auto' (default) tries tfjs-node-gpu, tfjs-node, then WASM, then pure JS. */
  prefer?: 'auto' | PoseBackendName;
}

async function tryNative(notes: string[]): Promise<string | null> {
  for (const name of ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node']) {
    try {
      // Optional native bindings: absent on most machines, loaded only when installed.
      await import(name);
      if (tf.findBackend('tensorflow')) return name;
    } catch (error) {
      notes.push(`${name} not usable: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  return null;
}

async function activate(name: PoseBackendName): Promise<boolean> {
  try {
    if (name === 'wasm') {
      await import('@tensorflow/tfjs-backend-wasm');
      registerWasmConv2DBackpropFilter();
    }
    const ok = await tf.setBackend(name);
    await tf.ready();
    return ok && tf.getBackend() === name;
  } catch {
    return false;
  }
}

async function choose(prefer: BackendOptions['prefer']): Promise<BackendReport> {
  const notes: string[] = [];
  let native: string | null = null;
  const order: PoseBackendName[] = prefer === 'cpu' ? ['cpu'] : prefer === 'wasm' ? ['wasm', 'cpu'] : ['tensorflow', 'wasm', 'cpu'];
  for (const name of order) {
    if (name === 'tensorflow') {
      native = await tryNative(notes);
      if (!native) continue;
    }
    if (await activate(name)) {
      return { backend: name, native: name === 'tensorflow' ? native : null, simd: name === 'wasm' ? tf.env().getBool('WASM_HAS_SIMD_SUPPORT') : null, notes };
    }
    notes.push(`backend ${name} failed to initialise`);
  }
  throw new Error(`no TensorFlow.js backend could be initialised: ${notes.join('; ')}`);
}

/**
 * Pick and initialise the TensorFlow.js backend once per process: tfjs-node-gpu or
 * tfjs-node when installed (native TensorFlow), else WASM with SIMD, else the pure-JS CPU
 * backend. Also registers the WASM conv filter-gradient kernel so training works on WASM.
 */
export function setupBackend(options: BackendOptions = {}): Promise<BackendReport> {
  const prefer = options.prefer ?? ((process.env.WIFLOW_TF_BACKEND as BackendOptions['prefer']) || 'auto');
  if (current && (prefer === 'auto' || prefer === current.backend)) return Promise.resolve(current);
  if (pending && prefer === 'auto') return pending;
  pending = choose(prefer).then((report) => {
    current = report;
    return report;
  });
  pending.catch(() => { pending = null; });
  return pending;
}

/** The backend chosen so far, or null before `setupBackend` resolved. */
export function backendReport(): BackendReport | null {
  return current;
}
