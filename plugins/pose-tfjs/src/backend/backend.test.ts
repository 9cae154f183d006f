import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { setupBackend } from '../index.js';

function filterGradients(): number[][] {
  return tf.tidy(() => {
    const x = tf.randomNormal([3, 17, 5], 0, 1, 'float32', 7) as tf.Tensor3D;
    const w = tf.randomNormal([3, 5, 4], 0, 1, 'float32', 8);
    const cases: [number, 'same' | 'valid'][] = [[1, 'same'], [2, 'same'], [1, 'valid'], [2, 'valid']];
    return cases.map(([stride, pad]) => Array.from(tf.grad((k: tf.Tensor) => tf.conv1d(x, k as tf.Tensor3D, stride, pad).square().sum())(w).dataSync()));
  });
}

describe('backend', () => {
  it('chooses WASM (SIMD) when no native binding is installed and says why', async () => {
    const report = await setupBackend();
    expect(report.backend).toBe('wasm');
    expect(report.simd).toBe(true);
    expect(report.notes.some((n) => n.includes('tfjs-node'))).toBe(true);
  });

  it('computes conv filter gradients on WASM equal to the pure-JS reference kernel', async () => {
    await setupBackend();
    const wasm = filterGradients();
    await tf.setBackend('cpu');
    const cpu = filterGradients();
    await tf.setBackend('wasm');
    for (let c = 0; c < cpu.length; c++) {
      const scale = Math.max(...cpu[c].map(Math.abs));
      const worst = Math.max(...cpu[c].map((v, i) => Math.abs(v - wasm[c][i])));
      expect(worst / scale).toBeLessThan(1e-5);
    }
  });

  it('survives WASM memory growth while gathering patches (large inputs)', async () => {
    await setupBackend();
    for (const frames of [128, 1024]) {
      const norm = tf.tidy(() => {
        const x = tf.randomNormal([16, frames, 48], 0, 1, 'float32', frames) as tf.Tensor3D;
        const w = tf.randomNormal([5, 48, 48], 0, 1, 'float32', 2);
        return tf.grad((k: tf.Tensor) => tf.conv1d(x, k as tf.Tensor3D, 1, 'same').sum())(w).abs().sum().dataSync()[0];
      });
      expect(Number.isFinite(norm)).toBe(true);
    }
  });

  it('does not leak tensors in the filter-gradient kernel', async () => {
    await setupBackend();
    filterGradients();
    const before = tf.memory().numTensors;
    const bytes = tf.memory().numBytes;
    filterGradients();
    expect(tf.memory().numTensors).toBe(before);
    expect(tf.memory().numBytes).toBe(bytes);
  });
});
