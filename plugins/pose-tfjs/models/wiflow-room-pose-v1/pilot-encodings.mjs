// Encodings of the person probe's features for the posture pilots (pilot-posture.mjs,
// pilot-posture-oracle.mjs), and the twin's standing-person prediction they can be taken
// relative to (twinpose-protocol.md). Pilot code: nothing here is in the network.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { DEFAULT_PROBE, PersonProbe, simulateReference, sessionScenario } from '../../dist/index.js';

const H = DEFAULT_PROBE.heightsM.length, O = DEFAULT_PROBE.offsetsM.length;
/** Probe features per link: heights × offsets × 2 quantities, then 2 distances. */
const PER_LINK = H * O * 2 + 2;

/** Each link's power features (no distances), with `map(value, index in f)` applied. */
function powers(f, map) {
  const out = [];
  for (let base = 0; base + PER_LINK <= f.length; base += PER_LINK) for (let i = 0; i < PER_LINK - 2; i++) out.push(map(f[base + i], base + i));
  return Float32Array.from(out);
}

/** Height-profile encoding: per link, offset and quantity, each height's log power minus the mean over heights; no distances (ordered link, offset, quantity, height). */
export function heightProfile(f) {
  const out = [];
  for (let base = 0; base + PER_LINK <= f.length; base += PER_LINK) {
    for (let o = 0; o < O; o++) {
      for (let q = 0; q < 2; q++) {
        const at = (h) => f[base + (o * H + h) * 2 + q];
        let mean = 0;
        for (let h = 0; h < H; h++) mean += at(h) / H;
        for (let h = 0; h < H; h++) out.push(at(h) - mean);
      }
    }
  }
  return Float32Array.from(out);
}

/** E1: the log power minus the twin's standing prediction at the same spot (a ratio of powers); no distances. */
export function twinRelative(f, standing) {
  return powers(f, (v, i) => v - standing[i]);
}

/** E2: the height profile minus the twin's standing height profile at the same spot; no distances. */
export function twinRelativeProfile(f, standing) {
  const p = heightProfile(f), s = heightProfile(standing);
  return p.map((v, i) => v - s[i]);
}

/**
 * The twin's prediction for a still standing person (1.70 m, facing +x) on a 0.25-m floor grid
 * of the pair's twin room (realism none, one scenario seed for every point, the twin's own
 * empty-room reference, the declared environment): the probe read at the person's true floor
 * position at ticks 12, 16 and 20, averaged. Returns S(x, y), bilinear between grid points,
 * the nearest edge outside. Cached in `cacheFile` (a pilot output, not a model file).
 */
export function twinStanding(sim, pair, { stepM = 0.25, cacheFile } = {}) {
  const { width, depth } = pair.environment.room;
  const xs = [], ys = [];
  for (let x = stepM; x <= width - stepM + 1e-9; x += stepM) xs.push(+x.toFixed(3));
  for (let y = stepM; y <= depth - stepM + 1e-9; y += stepM) ys.push(+y.toFixed(3));
  let grid;
  if (cacheFile && existsSync(cacheFile)) {
    const cached = JSON.parse(readFileSync(cacheFile, 'utf8'));
    if (cached.environmentId === pair.environmentId && cached.stepM === stepM && JSON.stringify(cached.radios) === JSON.stringify(pair.twin.radios)) grid = cached.grid.map((v) => Float32Array.from(v));
  }
  if (!grid) {
    const base = sessionScenario(sim, pair, { role: 'twin', seed: 'standing-prediction', seconds: 2, people: [1, 1], personHeight: [1.7, 1.7] });
    const reference = simulateReference(sim, base);
    grid = [];
    for (const y of ys) {
      for (const x of xs) {
        const scenario = sim.validateScenario({ ...base, people: [{ id: 1, height: 1.7, start: { x, y, yawDeg: 0 }, script: [{ action: 'stand', duration: 3 }] }] });
        const probe = new PersonProbe(pair.environment, reference, DEFAULT_PROBE);
        let sum = null, n = 0;
        for (const tick of new sim.Simulator(scenario).run(1.1)) {
          for (const frame of tick.frames) probe.push(frame);
          if (tick.index < 12 || tick.index % 4 !== 0) continue;
          const p = tick.truth.persons[0];
          const f = probe.features(p.position.x, p.position.y);
          sum = sum ? sum.map((v, i) => v + f[i]) : Float32Array.from(f);
          n++;
        }
        grid.push(sum.map((v) => v / n));
      }
    }
    if (cacheFile) writeFileSync(cacheFile, JSON.stringify({ environmentId: pair.environmentId, stepM, radios: pair.twin.radios, xs, ys, grid: grid.map((v) => Array.from(v)) }));
  }
  const cell = (v, axis) => {
    const i = Math.min(Math.max((v - axis[0]) / stepM, 0), axis.length - 1);
    const lo = Math.min(Math.floor(i), axis.length - 2 < 0 ? 0 : axis.length - 2);
    return [lo, Math.min(lo + 1, axis.length - 1), i - lo];
  };
  return (x, y) => {
    const [x0, x1, tx] = cell(x, xs), [y0, y1, ty] = cell(y, ys);
    const at = (xi, yi) => grid[yi * xs.length + xi];
    const a = at(x0, y0), b = at(x1, y0), c = at(x0, y1), d = at(x1, y1);
    return a.map((_, i) => (1 - ty) * ((1 - tx) * a[i] + tx * b[i]) + ty * ((1 - tx) * c[i] + tx * d[i]));
  };
}

/** The encodings the pilots compare, by name: (features, standing prediction or null) → encoded features. */
export const ENCODINGS = {
  probe: (f) => f,
  heightProfile: (f) => heightProfile(f),
  twinRelative: (f, s) => twinRelative(f, s),
  twinRelativeProfile: (f, s) => twinRelativeProfile(f, s),
};
