import type { CsiWindow } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { sampleSizes, writeLinkFeatures, type ModelSpec } from '../index.js';
import { tinySpec } from '../testing/synthetic.js';

/** A window with values that differ per frame, antenna pair and subcarrier, and a few non-finite ones. */
function windowOf(spec: ModelSpec, length: number): CsiWindow {
  const per = spec.input.antennaPairs * spec.input.subcarriers;
  const amplitude = Float32Array.from({ length: length * per }, (_, i) => 1 + 0.01 * ((i * 7) % 23));
  const phase = Float32Array.from({ length: length * per }, (_, i) => 0.1 * ((i * 5) % 17) - 0.8);
  amplitude[3] = Number.NaN;
  phase[per + 2] = Number.POSITIVE_INFINITY;
  return {
    sourceId: 'test', link: { tx: 'tx0', rx: 'rx0' }, environmentId: 'test', startTimestamp: 0, endTimestamp: 1, time: 1,
    length, ntx: 1, nrx: spec.input.antennaPairs, nsc: spec.input.subcarriers,
    subcarriers: Int16Array.from({ length: spec.input.subcarriers }, (_, i) => i), centerFrequencyHz: 5.32e9,
    amplitude, phase, features: ['phase:sanitised(unwrap,linear-fit-removed)'], provenance: 'simulated',
  } as CsiWindow;
}

/** The features by their definition: per time bin the mean of the finite values of its frames, z-scored. */
function expectedFeatures(window: CsiWindow, spec: ModelSpec): number[] {
  const T = spec.input.frames, per = spec.input.antennaPairs * spec.input.subcarriers;
  const { amplitudeMean, amplitudeStd, phaseMean, phaseStd } = spec.normalisation;
  const out: number[] = [];
  for (let t = 0; t < T; t++) {
    const frames = Array.from({ length: window.length }, (_, f) => f).filter((f) => Math.min(T - 1, Math.floor((f * T) / window.length)) === t);
    for (let k = 0; k < per; k++) {
      const finite = (values: Float32Array) => frames.map((f) => values[f * per + k]).filter(Number.isFinite).reduce((a, b) => a + b, 0) / frames.length;
      out.push((finite(window.amplitude) - amplitudeMean) / amplitudeStd, (finite(window.phase) - phaseMean) / phaseStd);
    }
  }
  return out;
}

describe('writeLinkFeatures', () => {
  it('averages each time bin of a sanitised window and z-scores it (the fast path), for any window length', () => {
    const spec: ModelSpec = { ...tinySpec(), normalisation: { amplitudeMean: 1.05, amplitudeStd: 0.2, phaseMean: 0.1, phaseStd: 0.5 } };
    for (const length of [spec.input.frames, 13, 16, 41]) {
      const window = windowOf(spec, length);
      const out = new Float32Array(sampleSizes(spec).csi);
      writeLinkFeatures(window, 0, spec, out);
      const width = out.length / spec.input.frames;
      const got = Array.from({ length: spec.input.frames }, (_, t) => Array.from(out.subarray(t * width, t * width + expectedFeatures(window, spec).length / spec.input.frames))).flat();
      const expected = expectedFeatures(window, spec);
      expect(got.length).toBe(expected.length);
      got.forEach((v, i) => expect(v).toBeCloseTo(expected[i], 4));
    }
  });
});
