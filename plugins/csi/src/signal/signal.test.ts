import { resolve } from 'node:path';
import type { CsiFrame } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import {
  CANONICAL_GRIDS, conjugateMultiply, CsiWindower, dopplerSpectrum, hampelFilter, HampelState, normalizeAmplitude, readCapture, removeLinearPhase,
  resampleFrame, sanitizedPhase, sanitizePhase, SignalChain, unwrapPhase,
} from '../index.js';

// Public sample captures (CSIKit, ESP32-CSI-Tool) kept in the package: test-fixtures/README.md.
const DATA = resolve(import.meta.dirname, '../../test-fixtures');

/** A synthetic frame: H(k) = A(k)·e^{j(φ0 + slope·k + path(k))}, for nrx chains. */
function frame(subcarriers: number[], options: { nrx?: number; amplitude?: (k: number, r: number) => number; phase?: (k: number, r: number) => number; timestamp?: number; link?: string } = {}): CsiFrame {
  const nrx = options.nrx ?? 1;
  const nsc = subcarriers.length;
  const re = new Float32Array(nrx * nsc);
  const im = new Float32Array(nrx * nsc);
  for (let r = 0; r < nrx; r++) {
    subcarriers.forEach((k, i) => {
      const a = options.amplitude ? options.amplitude(k, r) : 1;
      const p = options.phase ? options.phase(k, r) : 0;
      re[r * nsc + i] = a * Math.cos(p);
      im[r * nsc + i] = a * Math.sin(p);
    });
  }
  return {
    timestamp: options.timestamp ?? 0, time: (options.timestamp ?? 0) / 1000, sourceId: 'synthetic', link: { tx: options.link ?? 'a', rx: 'b' },
    centerFrequencyHz: 5.18e9, bandwidthHz: 20e6, subcarriers: Int16Array.from(subcarriers), ntx: 1, nrx, nsc, csi: { re, im }, format: 'sim', provenance: 'simulated',
  };
}

describe('resample', () => {
  it('interpolates linearly by physical index and holds the edges', () => {
    const source = frame([-28, -26, -2, 2, 26, 28], { amplitude: (k) => 10 + k });
    const out = resampleFrame(source, 'ht20');
    expect(out.nsc).toBe(56);
    expect(Array.from(out.subcarriers)).toEqual(Array.from(CANONICAL_GRIDS.ht20));
    const at = (k: number) => out.csi.re[Array.from(out.subcarriers).indexOf(k)];
    expect(at(-27)).toBeCloseTo(-17, 5);
    expect(at(-14)).toBeCloseTo(-4, 5);
    expect(at(1)).toBeCloseTo(11, 5);
    expect(at(28)).toBeCloseTo(38, 5);
  });

  it('accepts FFT-ordered sources (unsorted indices)', () => {
    const out = resampleFrame(frame([0, 1, 2, -2, -1], { amplitude: (k) => k + 5 }), Int16Array.from([-2, -1, 0, 1, 2]));
    expect(Array.from(out.csi.re)).toEqual([3, 4, 5, 6, 7]);
  });
});

describe('phase sanitising', () => {
  it('unwraps and removes a timing slope and offset, leaving the true phase shape', () => {
    const grid = Array.from(CANONICAL_GRIDS.ht20);
    const truth = (k: number) => 0.3 * Math.sin(k / 6);
    const f = frame(grid, { phase: (k) => truth(k) + 2.1 + 0.37 * k });
    const phase = sanitizedPhase(f);
    // What remains is the true phase minus its own linear fit (the part sanitising cannot tell from an offset).
    const expected = Float64Array.from(grid, truth);
    removeLinearPhase(expected, f.subcarriers);
    for (let i = 0; i < grid.length; i++) expect(phase[i]).toBeCloseTo(expected[i], 4);
    const sanitized = sanitizePhase(f);
    expect(Math.hypot(sanitized.csi.re[3], sanitized.csi.im[3])).toBeCloseTo(1, 5);
  });

  it('unwrapPhase removes 2π jumps', () => {
    const values = Float32Array.from([3, -3, -2.5, 3.1]);
    unwrapPhase(values);
    expect(values[1]).toBeCloseTo(-3 + 2 * Math.PI, 5);
    expect(values[3]).toBeCloseTo(3.1, 5);
  });
});

describe('Hampel', () => {
  it('replaces spikes and leaves clean data alone (offline)', () => {
    const series = Array.from({ length: 50 }, (_, i) => Math.sin(i / 5));
    series[20] = 40;
    const { values, replaced } = hampelFilter(series, 3, 3);
    expect(replaced).toBe(1);
    expect(Math.abs(values[20] - Math.sin(4))).toBeLessThan(0.3);
    expect(values[10]).toBeCloseTo(series[10], 6);
  });

  it('the sorted-window streaming filter equals a brute-force median/MAD on random data (odd and even windows)', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (const window of [3, 4, 5, 8, 9]) {
      const state = new HampelState(window, 2);
      const history: number[][] = [];
      for (let t = 0; t < 200; t++) {
        const values = Float32Array.from({ length: 6 }, () => (rnd() < 0.1 ? 20 * rnd() : Math.round(rnd() * 8) / 2));
        const raw = Array.from(values);
        history.push(raw);
        state.filter(values);
        for (let k = 0; k < 6; k++) {
          let expected = raw[k];
          if (history.length >= window) {
            const win = history.slice(-window).map((h) => h[k]);
            const med = (a: number[]) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
            const m = med(win);
            const mad = med(win.map((v) => Math.abs(v - m)));
            if (mad > 0 && Math.abs(raw[k] - m) > 2 * 1.4826 * mad) expected = m;
          }
          expect(values[k]).toBeCloseTo(expected, 5);
        }
      }
    }
  });

  it('causal streaming filter replaces a spike in one subcarrier', () => {
    const state = new HampelState(5, 3);
    for (let t = 0; t < 10; t++) {
      const values = Float32Array.from([1 + 0.01 * t, 2 + 0.01 * (t % 3), 3 + (t % 2) * 0.02]);
      if (t === 8) values[1] = 50;
      state.filter(values);
      if (t === 8) {
        expect(values[1]).toBeCloseTo(2.01, 5);
        expect(values[0]).toBeCloseTo(1.08, 5);
      }
    }
    expect(state.replaced).toBe(1);
  });
});

describe('conjugate multiplication and normalisation', () => {
  it('cancels a phase offset shared by the chains', () => {
    const f = frame([-2, -1, 1, 2], { nrx: 3, phase: (k, r) => 1.7 + 0.2 * k + 0.5 * r, amplitude: (_, r) => r + 1 });
    const out = conjugateMultiply(f, 0);
    expect(out.nrx).toBe(2);
    for (let i = 0; i < 4; i++) {
      expect(Math.atan2(out.csi.im[i], out.csi.re[i])).toBeCloseTo(0.5, 5);
      expect(Math.hypot(out.csi.re[i], out.csi.im[i])).toBeCloseTo(2, 5);
      expect(Math.atan2(out.csi.im[4 + i], out.csi.re[4 + i])).toBeCloseTo(1.0, 5);
    }
    expect(() => conjugateMultiply(frame([1, 2]))).toThrow(/at least 2 receive chains/);
  });

  it('normalises each stream to mean amplitude 1', () => {
    const out = normalizeAmplitude(frame([1, 2, 3], { nrx: 2, amplitude: (k, r) => (r + 1) * 10 * k }), 'mean');
    const amp = Array.from(out.csi.re, (v, i) => Math.hypot(v, out.csi.im[i]));
    expect(amp[0] + amp[1] + amp[2]).toBeCloseTo(3, 5);
    expect(amp[3] + amp[4] + amp[5]).toBeCloseTo(3, 5);
  });
});

describe('windowing and Doppler', () => {
  it('cuts per-link windows with the hop and carries the last frame truth', () => {
    const windower = new CsiWindower({ length: 4, hop: 2, environmentId: 'lab' });
    const windows = [];
    for (let t = 0; t < 10; t++) {
      for (const link of ['x', 'y']) {
        const f = frame([1, 2], { amplitude: () => t + 1, timestamp: t * 1000, link });
        if (t === 7) f.truth = { time: t, environmentId: 'lab', persons: [], events: [] };
        windows.push(...windower.push(f));
      }
    }
    // Windows end at frames 3, 5, 7, 9 for each of the two links.
    expect(windows.length).toBe(8);
    const x = windows.filter((w) => w.link.tx === 'x');
    expect(x.map((w) => w.endTimestamp)).toEqual([3000, 5000, 7000, 9000]);
    expect(x[0].startTimestamp).toBe(0);
    expect(Array.from(x[1].amplitude)).toEqual([3, 3, 4, 4, 5, 5, 6, 6]);
    expect(x[2].truth?.time).toBe(7);
    expect(x[1].truth).toBeUndefined();
    expect(x[0].environmentId).toBe('lab');
  });

  // Three links of one room at 20 Hz (50 ms slots), each with its own transmit offset and jitter,
  // from an instant on the 250 ms grid; `lost` says which ticks of a link never arrive.
  const RATE = 20;
  const START_MS = Date.UTC(2026, 0, 1);
  function linkFrames(link: string, offsetMs: number, ticks: number, lost: (tick: number) => boolean = () => false): CsiFrame[] {
    const out: CsiFrame[] = [];
    for (let tick = 0; tick < ticks; tick++) {
      if (lost(tick)) continue;
      const jitterMs = 0.3 * Math.sin(tick * 1.7 + offsetMs);
      const at = START_MS + tick * 50 + offsetMs + Math.max(0, jitterMs);
      const f = frame([1, 2, 3], { amplitude: (k) => tick * 10 + k, phase: (k) => 0.1 * k + tick, link });
      f.time = at;
      f.timestamp = 5e6 + (at - START_MS) * 1000;
      f.truth = { time: at, environmentId: 'lab', persons: [], events: [] };
      out.push(f);
    }
    return out;
  }
  const interleave = (...links: CsiFrame[][]) => links.flat().sort((a, b) => a.time - b.time);

  it('on a time grid without loss gives the windows of frame counting, ending at one instant on every link', () => {
    const frames = interleave(linkFrames('x', 0, 60), linkFrames('y', 16.7, 60), linkFrames('z', 33.3, 60));
    const counted = new CsiWindower({ length: 16, hop: 5, environmentId: 'lab' });
    const timed = new CsiWindower({ length: 16, hop: 5, environmentId: 'lab', rateHz: RATE });
    const a = frames.flatMap((f) => counted.push(f));
    const b = frames.flatMap((f) => timed.push(f));
    expect(b.length).toBe(3 * (1 + Math.floor((60 - 16) / 5)));
    expect(b.length).toBe(a.length);
    a.forEach((w, i) => {
      expect(b[i].link).toEqual(w.link);
      expect(b[i].amplitude).toEqual(w.amplitude);
      expect(b[i].phase).toEqual(w.phase);
      expect(b[i].filledSlots).toBe(0);
      expect(b[i].truth).toBe(w.truth);
    });
    expect(a[0].filledSlots).toBeUndefined();
    // Every link's window of one instant ends at the same time and timestamp, on the 250 ms grid.
    const byInstant = new Map<number, typeof b>();
    for (const w of b) byInstant.set(w.time, [...(byInstant.get(w.time) ?? []), w]);
    expect([...byInstant.values()].every((set) => set.length === 3 && new Set(set.map((w) => w.endTimestamp)).size === 1)).toBe(true);
    expect([...byInstant.keys()].slice(0, 2)).toEqual([START_MS + 750, START_MS + 1000]);
    expect(b[0].endTimestamp).toBe(5e6 + 750_000);
    expect(b[0].endTimestamp - b[0].startTimestamp).toBe(15 * 50_000);
    expect(dopplerSpectrum(b[0]).sampleRateHz).toBeCloseTo(RATE, 9);
    expect(timed.stats()).toEqual({ windows: b.length, filledSlots: 0, gapDroppedWindows: 0, lateFrames: 0 });
    // Windows start on the hop grid, so any length and hop give the windows of counting (here 8 / 3, ending at ticks 7, 10, ...).
    const counted83 = new CsiWindower({ length: 8, hop: 3, environmentId: 'lab' });
    const timed83 = new CsiWindower({ length: 8, hop: 3, environmentId: 'lab', rateHz: RATE });
    const c = frames.flatMap((f) => counted83.push(f));
    const d = frames.flatMap((f) => timed83.push(f));
    expect(d.map((w) => w.amplitude)).toEqual(c.map((w) => w.amplitude));
    expect((d[0].time - START_MS) / 50).toBe(7);
  });

  it('fills a lost slot with the frame before it, counts it, and keeps the links on one instant', () => {
    // Link y loses ticks 20 (a window's last slot) and 30–31; frame counting would drift it by three frames.
    const lostY = (t: number) => t === 20 || t === 30 || t === 31;
    const frames = interleave(linkFrames('x', 0, 60), linkFrames('y', 16.7, 60, lostY));
    const timed = new CsiWindower({ length: 16, hop: 5, environmentId: 'lab', rateHz: RATE });
    const windows = frames.flatMap((f) => timed.push(f));
    const x = windows.filter((w) => w.link.tx === 'x');
    const y = windows.filter((w) => w.link.tx === 'y');
    expect(y.map((w) => w.time)).toEqual(x.map((w) => w.time));
    expect(y.map((w) => w.endTimestamp)).toEqual(x.map((w) => w.endTimestamp));
    expect(y.map((w) => w.filledSlots)).toEqual([0, 1, 1, 2, 3, 2, 2, 0, 0]);
    // The window ending at tick 20: its last slot holds tick 19 (amplitude of subcarrier 1 = 10·tick + 1).
    const at20 = y[1];
    expect(at20.time).toBe(START_MS + 1000);
    expect(Array.from(at20.amplitude.subarray(13 * 3, 16 * 3)).map((v) => Math.round(v))).toEqual([181, 182, 183, 191, 192, 193, 191, 192, 193]);
    expect(timed.stats()).toMatchObject({ windows: 18, filledSlots: 11, gapDroppedWindows: 0 });
    const counted = new CsiWindower({ length: 16, hop: 5, environmentId: 'lab' });
    const drifted = frames.flatMap((f) => counted.push(f));
    expect(drifted.filter((w) => w.link.tx === 'y').map((w) => w.time)).not.toEqual(drifted.filter((w) => w.link.tx === 'x').map((w) => w.time));
  });

  it('drops a window whose gap is longer than maxGapSlots and says so in the counters', () => {
    // Ticks 22–30 lost: a run of 9 slots > 8 (half of 16) in the windows ending at 30 and 35; the one ending
    // at 40 (slots 25–40) misses 6 and holds tick 31 for them.
    const lost = (t: number) => t >= 22 && t <= 30;
    const timed = new CsiWindower({ length: 16, hop: 5, environmentId: 'lab', rateHz: RATE });
    const windows = linkFrames('x', 0, 60, lost).flatMap((f) => timed.push(f));
    const ends = windows.map((w) => (w.time - START_MS) / 50);
    expect(ends).toEqual([15, 20, 25, 40, 45, 50, 55]);
    expect(windows.map((w) => w.filledSlots)).toEqual([0, 0, 4, 6, 1, 0, 0]);
    expect(Math.round(windows[3].amplitude[0])).toBe(311);
    expect(timed.stats()).toMatchObject({ windows: 7, gapDroppedWindows: 2, filledSlots: 11 });
    // A looser limit keeps them, filled.
    const loose = new CsiWindower({ length: 16, hop: 5, environmentId: 'lab', rateHz: RATE, maxGapSlots: 9 });
    expect(linkFrames('x', 0, 60, lost).flatMap((f) => loose.push(f)).map((w) => (w.time - START_MS) / 50)).toEqual([15, 20, 25, 30, 35, 40, 45, 50, 55]);
    // A duplicate frame (same slot) is passed over and counted.
    const again = new CsiWindower({ length: 4, hop: 2, environmentId: 'lab', rateHz: RATE });
    const one = linkFrames('x', 0, 7);
    for (const f of [...one.slice(0, 3), one[2], ...one.slice(3)]) again.push(f);
    expect(again.stats()).toMatchObject({ windows: 2, lateFrames: 1 });
  });

  it('finds the Doppler frequency of a moving reflector', () => {
    const rate = 200;
    const doppler = 30;
    const windower = new CsiWindower({ length: 128, hop: 128, environmentId: 'lab' });
    let window = null;
    for (let t = 0; t < 128; t++) {
      const time = t / rate;
      // Static path plus a moving path rotating at +30 Hz.
      const f = frame([-2, -1, 1, 2], { timestamp: time * 1e6 });
      for (let i = 0; i < 4; i++) {
        f.csi.re[i] = 2 + 0.5 * Math.cos(2 * Math.PI * doppler * time + i);
        f.csi.im[i] = 0.5 * Math.sin(2 * Math.PI * doppler * time + i);
      }
      window = windower.push(f)[0] ?? window;
    }
    const spectrum = dopplerSpectrum(window!);
    expect(spectrum.sampleRateHz).toBeCloseTo(rate, 3);
    let best = 0;
    for (let b = 1; b < spectrum.power.length; b++) if (spectrum.power[b] > spectrum.power[best]) best = b;
    expect(Math.abs(spectrum.frequenciesHz[best] - doppler)).toBeLessThan(rate / 128 + 1e-6);
  });
});

describe('signal chain on real captures', () => {
  it('turns ESP32 and Intel frames into windows on the same canonical grid', async () => {
    const chain = new SignalChain({ window: { length: 8, hop: 4 }, environmentId: 'lab' });
    const windows = [];
    for (const name of ['esp32/example_data.csv', 'intel/log.all_csi.6.7.6.dat']) {
      for (const f of await readCapture(resolve(DATA, name))) {
        windows.push(...chain.push(f));
      }
    }
    const esp = windows.filter((w) => w.link.tx !== 'tx');
    const intel = windows.filter((w) => w.link.tx === 'tx');
    expect(esp.length).toBe(1 + Math.floor((60 - 8) / 4));
    // The Intel sample has 10 one-stream, 9 two-stream and 10 three-stream records: one window per shape.
    expect(intel.map((w) => w.ntx)).toEqual([1, 2, 3]);
    for (const w of windows) {
      expect(w.nsc).toBe(56);
      expect(w.amplitude.length).toBe(8 * w.ntx * w.nrx * 56);
      expect(w.features[0]).toBe('resample:ht20(56)');
      for (let t = 0; t < w.length; t++) {
        let sum = 0;
        for (let k = 0; k < 56; k++) sum += w.amplitude[t * w.ntx * w.nrx * 56 + k];
        expect(sum / 56).toBeCloseTo(1, 4);
      }
      expect(w.amplitude.every(Number.isFinite) && w.phase.every(Number.isFinite)).toBe(true);
    }
    expect(intel[0].nrx).toBe(3);
    expect(chain.stats().links).toBe(4);
  });
});
