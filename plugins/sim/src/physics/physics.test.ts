import FFT from 'fft.js';
import { describe, expect, it } from 'vitest';
import {
  complexPermittivity, ellipsoidRcs, fresnelReflection, imagePaths, knifeEdgeLossDb, LinkChannel, MATERIALS, Simulator,
  SPEED_OF_LIGHT, SUBCARRIER_SPACING_HZ, subcarrierGrid, type RoomGeometry,
} from '../index.js';
import { testScenario } from '../test-support/scenarios.js';

const room: RoomGeometry = { width: 5, depth: 4, height: 2.7, materials: { west: 'concrete', east: 'plasterboard', south: 'glass', north: 'wood', floor: 'concrete', ceiling: 'plasterboard' } };
const fc = 5.32e9;
const lambda = SPEED_OF_LIGHT / fc;
const grid = subcarrierGrid('ideal', 20);

function singleLink(options: { tx: { x: number; y: number; z: number }; rx: { x: number; y: number; z: number }; order?: number; clutter?: { x: number; y: number; z: number } | null }) {
  return new LinkChannel({
    room,
    maxReflectionOrder: options.order ?? 0,
    centerFrequencyHz: fc,
    indices: grid.indices,
    txAntennas: [options.tx],
    rxAntennas: [options.rx],
    clutter: options.clutter ? [{ label: 'probe', position: options.clutter, rcs: 1, phase: 0 }] : [],
    shadowing: true,
    bodyScattering: true,
    bodyReflectivity: 0.6,
  });
}

function channelOf(link: LinkChannel): { re: Float64Array; im: Float64Array } {
  const re = new Float64Array(link.ntx * link.nrx * link.nsc);
  const im = new Float64Array(re.length);
  link.compute([], re, im);
  return { re, im };
}

const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));

describe('propagation', () => {
  it('line of sight: |H| = λ/(4πL) and the phase slope across subcarriers gives delay L/c', () => {
    const tx = { x: 1, y: 1, z: 1 };
    const rx = { x: 4, y: 3, z: 1.5 };
    const L = Math.hypot(3, 2, 0.5);
    const link = singleLink({ tx, rx });
    const { re, im } = channelOf(link);
    for (let k = 0; k < link.nsc; k++) expect(Math.hypot(re[k], im[k])).toBeCloseTo(lambda / (4 * Math.PI * L), 12);
    // Least-squares slope of the unwrapped phase against the physical subcarrier index.
    const phases: number[] = [];
    let prev = Math.atan2(im[0], re[0]);
    phases.push(prev);
    for (let k = 1; k < link.nsc; k++) {
      const p = prev + wrap(Math.atan2(im[k], re[k]) - prev);
      phases.push(p);
      prev = p;
    }
    const m = Array.from(grid.indices);
    const mm = m.reduce((s, v) => s + v, 0) / m.length;
    const pm = phases.reduce((s, v) => s + v, 0) / phases.length;
    const slope = m.reduce((s, v, i) => s + (v - mm) * (phases[i] - pm), 0) / m.reduce((s, v) => s + (v - mm) ** 2, 0);
    const delay = -slope / (2 * Math.PI * SUBCARRIER_SPACING_HZ);
    expect(delay).toBeCloseTo(L / SPEED_OF_LIGHT, 14);
    // The absolute phase at the centre frequency is −2π fc L / c.
    const centre = grid.indices.indexOf(1);
    expect(wrap(Math.atan2(im[centre], re[centre]) + (2 * Math.PI * (fc + SUBCARRIER_SPACING_HZ) * L) / SPEED_OF_LIGHT)).toBeCloseTo(0, 6);
  });

  it('image method: reflection lengths match the unfolded geometry, bounce points obey the mirror law, delay = L/c', () => {
    const tx = { x: 1.2, y: 0.8, z: 1.1 };
    const rx = { x: 3.9, y: 2.7, z: 1.6 };
    const paths = imagePaths(room, tx, rx, fc, 2);
    expect(paths.filter((p) => p.order === 1)).toHaveLength(6);
    // Second order in a box: both orders for the 3 pairs of parallel surfaces, and for each of the
    // 12 pairs of perpendicular ones exactly one order (the trace leaves the face in the other).
    expect(paths.filter((p) => p.order === 2)).toHaveLength(18);
    const floor = paths.find((p) => p.surfaces.join() === 'floor')!;
    expect(floor.length).toBeCloseTo(Math.hypot(rx.x - tx.x, rx.y - tx.y, rx.z + tx.z), 12);
    const west = paths.find((p) => p.surfaces.join() === 'west')!;
    expect(west.length).toBeCloseTo(Math.hypot(rx.x + tx.x, rx.y - tx.y, rx.z - tx.z), 12);
    const ceilingEast = paths.find((p) => p.surfaces.join() === 'ceiling,east' || p.surfaces.join() === 'east,ceiling')!;
    expect(ceilingEast.length).toBeCloseTo(Math.hypot(2 * room.width - rx.x - tx.x, rx.y - tx.y, 2 * room.height - rx.z - tx.z), 12);
    for (const p of paths) {
      // Leg lengths add up to the unfolded length, and each bounce point lies on its surface.
      let sum = 0;
      for (let i = 0; i + 1 < p.points.length; i++) sum += Math.hypot(p.points[i + 1].x - p.points[i].x, p.points[i + 1].y - p.points[i].y, p.points[i + 1].z - p.points[i].z);
      expect(sum).toBeCloseTo(p.length, 9);
    }
    const b = floor.points[1];
    expect(b.z).toBeCloseTo(0, 12);
    const tanIn = Math.hypot(b.x - tx.x, b.y - tx.y) / tx.z;
    const tanOut = Math.hypot(rx.x - b.x, rx.y - b.y) / rx.z;
    expect(tanIn).toBeCloseTo(tanOut, 9);
    const link = singleLink({ tx, rx, order: 2 });
    for (const p of link.describePaths()) expect(p.delayS).toBeCloseTo(p.length / SPEED_OF_LIGHT, 20);
  });

  it('Fresnel coefficients: normal incidence, metal, Brewster angle', () => {
    const eta = complexPermittivity(MATERIALS.glass, fc);
    expect(eta.re).toBeCloseTo(6.31, 6);
    const g0 = fresnelReflection(MATERIALS.glass, fc, 1, 'TE');
    // (1 − √η)/(1 + √η) for a nearly lossless glass: about −0.43.
    expect(g0.re).toBeCloseTo((1 - Math.sqrt(6.31)) / (1 + Math.sqrt(6.31)), 2);
    expect(fresnelReflection(MATERIALS.metal, fc, 0.3, 'TE')).toEqual({ re: -1, im: 0 });
    const brewster = Math.atan(Math.sqrt(MATERIALS.wood.a));
    const gB = fresnelReflection(MATERIALS.wood, fc, Math.cos(brewster), 'TM');
    const gTE = fresnelReflection(MATERIALS.wood, fc, Math.cos(brewster), 'TE');
    expect(Math.hypot(gB.re, gB.im)).toBeLessThan(0.05);
    expect(Math.hypot(gTE.re, gTE.im)).toBeGreaterThan(0.3);
    // Grazing incidence reflects almost everything.
    const graze = fresnelReflection(MATERIALS.concrete, fc, 0.01, 'TE');
    expect(Math.hypot(graze.re, graze.im)).toBeGreaterThan(0.9);
  });

  it('sphere cross-section is πr² from every side; knife edge gives 6 dB at grazing', () => {
    for (const dir of [{ x: 1, y: 0, z: 0 }, { x: 0, y: 0, z: 1 }, { x: 0.6, y: 0.8, z: 0 }]) expect(ellipsoidRcs(0.2, 0.2, 0.2, dir)).toBeCloseTo(Math.PI * 0.04, 12);
    expect(ellipsoidRcs(0.1, 0.1, 0.4, { x: 1, y: 0, z: 0 })).toBeGreaterThan(ellipsoidRcs(0.1, 0.1, 0.4, { x: 0, y: 0, z: 1 }) * 100);
    expect(knifeEdgeLossDb(0, 2, 2, lambda)).toBeCloseTo(6.03, 1);
    expect(knifeEdgeLossDb(-1, 2, 2, lambda)).toBe(0);
    expect(knifeEdgeLossDb(0.2, 2, 2, lambda)).toBeGreaterThan(15);
  });

  it('moving a scatterer λ/2 along the bisector rotates its path phase by 2π (λ/4: by π)', () => {
    const tx = { x: 2.4, y: 0.5, z: 1.2 };
    const rx = { x: 2.6, y: 0.5, z: 1.2 };
    const base = { x: 2.5, y: 3.5, z: 1.2 };
    // Bisector of the directions to the antennas, pointing away from them.
    const bis = { x: 0, y: 1, z: 0 };
    const pathPhase = (p: { x: number; y: number; z: number }) => {
      const withScatterer = channelOf(singleLink({ tx, rx, clutter: p }));
      const without = channelOf(singleLink({ tx, rx }));
      const k = grid.indices.indexOf(1);
      return Math.atan2(withScatterer.im[k] - without.im[k], withScatterer.re[k] - without.re[k]);
    };
    const p0 = pathPhase(base);
    const halfWave = pathPhase({ x: base.x + (bis.x * lambda) / 2, y: base.y + (bis.y * lambda) / 2, z: base.z });
    const quarterWave = pathPhase({ x: base.x + (bis.x * lambda) / 4, y: base.y + (bis.y * lambda) / 4, z: base.z });
    expect(Math.abs(wrap(halfWave - p0))).toBeLessThan(0.02);
    expect(Math.abs(Math.abs(wrap(quarterWave - p0)) - Math.PI)).toBeLessThan(0.02);
    // A small step shows the direction: moving away lengthens the path, so the phase decreases.
    const small = pathPhase({ x: base.x, y: base.y + lambda / 20, z: base.z });
    expect(wrap(small - p0)).toBeCloseTo((-2 * Math.PI * 2 * (lambda / 20) * (fc + SUBCARRIER_SPACING_HZ)) / SPEED_OF_LIGHT, 2);
  });
});

describe('bodies in the channel', () => {
  it('a person crossing the TX–RX line attenuates the direct path', () => {
    const sim = new Simulator(testScenario({
      propagation: { maxReflectionOrder: 0, bodyScattering: false, shadowing: true, bodyReflectivity: 0.6 },
      people: [{ id: 1, height: 1.75, start: { x: 2.5, y: 0.4, yawDeg: 90 }, script: [{ action: 'walk', path: [[2.5, 3.6]], speed: 1 }] }],
    }));
    // The walk starts with no turn (already facing +y) and crosses y = 2 after 1.6 s.
    const los = (t: number) => sim.pathsAt(0, t).find((p) => p.kind === 'los')!;
    const power = (t: number) => {
      const { re, im } = sim.cleanChannel(0, t);
      let p = 0;
      for (let i = 0; i < re.length; i++) p += re[i] * re[i] + im[i] * im[i];
      return p;
    };
    expect(los(0).shadowLossDb).toBe(0);
    expect(los(1.6).shadowLossDb).toBeGreaterThan(10);
    expect(los(3.2).shadowLossDb).toBe(0);
    const dropDb = 10 * Math.log10(power(0) / power(1.6));
    expect(dropDb).toBeGreaterThan(10);
    expect(Math.abs(10 * Math.log10(power(0) / power(3.2)))).toBeLessThan(0.5);
  });

  it('a walking person shows in the Doppler spectrum at 2v/λ, with the sign of the motion', () => {
    const v = 1.0;
    const rate = 200;
    // Radios side by side at one end; the person walks straight at them along the bisector.
    const sim = new Simulator(testScenario({
      room: { width: 8, depth: 4, height: 2.7, materials: { walls: 'plasterboard', floor: 'concrete', ceiling: 'plasterboard' } },
      channel: { centerFrequencyHz: 5.32e9, bandwidthMHz: 20, rateHz: rate, txPowerDbm: 20 },
      radios: [
        { id: 'tx', role: 'tx', device: 'ideal', position: [0.3, 1.9, 1.1], yawDeg: 0, antennas: 1 },
        { id: 'rx', role: 'rx', device: 'ideal', position: [0.3, 2.1, 1.1], yawDeg: 0, antennas: 1 },
      ],
      propagation: { maxReflectionOrder: 0, bodyScattering: true, shadowing: false, bodyReflectivity: 0.6 },
      people: [{ id: 1, height: 1.75, breathingDepthM: 0, start: { x: 7.5, y: 2, yawDeg: 180 }, script: [{ action: 'walk', path: [[1.5, 2]], speed: v }] }],
    }));
    const n = 256;
    const k = subcarrierGrid('ideal', 20).indices.indexOf(1);
    const series: number[] = [];
    const t0 = 1.5;
    for (let i = 0; i < n; i++) {
      const { re, im } = sim.cleanChannel(0, t0 + i / rate);
      series.push(re[k], im[k]);
    }
    // Remove the static part (the line of sight), window, FFT.
    let mr = 0;
    let mi = 0;
    for (let i = 0; i < n; i++) {
      mr += series[2 * i] / n;
      mi += series[2 * i + 1] / n;
    }
    const input = new Array<number>(2 * n);
    for (let i = 0; i < n; i++) {
      const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1));
      input[2 * i] = (series[2 * i] - mr) * w;
      input[2 * i + 1] = (series[2 * i + 1] - mi) * w;
    }
    const fft = new FFT(n);
    const out = fft.createComplexArray() as number[];
    fft.transform(out, input);
    const power = (bin: number) => out[2 * bin] ** 2 + out[2 * bin + 1] ** 2;
    const freqOf = (bin: number) => ((bin < n / 2 ? bin : bin - n) * rate) / n;
    let best = 1;
    for (let b = 1; b < n; b++) if (power(b) > power(best)) best = b;
    const expected = (2 * v) / lambda;
    expect(freqOf(best)).toBeGreaterThan(expected * 0.85);
    expect(freqOf(best)).toBeLessThan(expected * 1.15);
    // Approaching shortens the path: positive Doppler. The mirror frequency holds far less energy.
    const band = (f: number) => {
      let s = 0;
      for (let b = 0; b < n; b++) if (Math.abs(freqOf(b) - f) < 5) s += power(b);
      return s;
    };
    expect(band(expected)).toBeGreaterThan(10 * band(-expected));
  });
});

describe('body bounce paths', () => {
  it('adds body paths via a surface, built on the image of the array, with that surface\'s Fresnel coefficient', () => {
    const scen = (bodyBounces: boolean) => testScenario({
      room: { width: 5, depth: 4, height: 2.7, materials: { walls: 'plasterboard', floor: 'metal', ceiling: 'plasterboard' } },
      propagation: { maxReflectionOrder: 0, bodyScattering: true, shadowing: false, bodyReflectivity: 0.6, bodyBounces },
      people: [{ id: 1, height: 1.75, start: { x: 2.5, y: 2.8 }, script: [{ action: 'stand', duration: 5 }] }],
    });
    const withBounces = new Simulator(scen(true));
    const without = new Simulator(scen(false));
    const paths = withBounces.pathsAt(0, 1);
    expect(without.pathsAt(0, 1).filter((p) => p.kind === 'body')).toHaveLength(10);
    const viaFloor = paths.find((p) => p.label === 'person 1 torso via floor' && p.points.length === 4 && p.points[1].z === 0)!;
    expect(viaFloor).toBeDefined();
    const [tx, hit, point, rx] = viaFloor.points;
    // Length = |P − image(tx)| + |rx − P|, the image mirrored in the floor; the bounce obeys the mirror law.
    expect(viaFloor.length).toBeCloseTo(Math.hypot(point.x - tx.x, point.y - tx.y, point.z + tx.z) + Math.hypot(rx.x - point.x, rx.y - point.y, rx.z - point.z), 9);
    expect(Math.hypot(hit.x - tx.x, hit.y - tx.y) / tx.z).toBeCloseTo(Math.hypot(point.x - hit.x, point.y - hit.y) / point.z, 6);
    expect(paths.filter((p) => p.kind === 'body').length).toBeGreaterThan(10 * 6);
    const a = withBounces.cleanChannel(0, 1);
    const b = without.cleanChannel(0, 1);
    let diff = 0;
    for (let i = 0; i < a.re.length; i++) diff += Math.hypot(a.re[i] - b.re[i], a.im[i] - b.im[i]);
    expect(diff).toBeGreaterThan(0);
  });
});

describe('impairments', () => {
  it('per-packet timing offset and phase cancel under conjugate multiplication between antennas of one receiver', () => {
    const people = [{ id: 1, height: 1.7, start: { x: 1.5, y: 1, yawDeg: 30 }, script: [{ action: 'walk' as const, path: [[3.5, 3] as [number, number]], speed: 1.2 }] }];
    const clean = new Simulator(testScenario({ people }), { impairments: 'off' });
    const impaired = new Simulator(testScenario({ people }), {
      impairments: { snrDb: Number.POSITIVE_INFINITY, timingOffsetNs: 100, randomPhase: true, chainPhase: true, agcJitterDb: 1, quantisation: 'none', packetLoss: 0, timingJitterUs: 0 },
    });
    const nsc = 56;
    const nrx = 3;
    const diffs: number[] = [];
    const rawDiffs: number[] = [];
    for (let i = 0; i < 40; i++) {
      const a = clean.next().frames[0];
      const b = impaired.next().frames[0];
      const ratios: number[] = [];
      for (let k = 0; k < nsc; k++) {
        // tx 0, rx 0 and rx 1.
        const i0 = k;
        const i1 = nrx * 0 * nsc + 1 * nsc + k;
        const prodClean = { re: a.csi.re[i0] * a.csi.re[i1] + a.csi.im[i0] * a.csi.im[i1], im: a.csi.im[i0] * a.csi.re[i1] - a.csi.re[i0] * a.csi.im[i1] };
        const prodImp = { re: b.csi.re[i0] * b.csi.re[i1] + b.csi.im[i0] * b.csi.im[i1], im: b.csi.im[i0] * b.csi.re[i1] - b.csi.re[i0] * b.csi.im[i1] };
        diffs.push(wrap(Math.atan2(prodImp.im, prodImp.re) - Math.atan2(prodClean.im, prodClean.re)));
        rawDiffs.push(wrap(Math.atan2(b.csi.im[i0], b.csi.re[i0]) - Math.atan2(a.csi.im[i0], a.csi.re[i0])));
        ratios.push(Math.hypot(prodImp.re, prodImp.im) / Math.hypot(prodClean.re, prodClean.im));
      }
      // The AGC error scales a packet uniformly: the same ratio on every subcarrier.
      const r0 = ratios[0];
      for (const r of ratios) expect(r / r0).toBeCloseTo(1, 3);
    }
    // What remains is the fixed chain phase difference: one constant over packets and subcarriers.
    const ref = diffs[0];
    for (const d of diffs) expect(Math.abs(wrap(d - ref))).toBeLessThan(1e-3);
    // The raw phases, by contrast, are scrambled.
    const spread = Math.sqrt(rawDiffs.reduce((s, d) => s + wrap(d - rawDiffs[0]) ** 2, 0) / rawDiffs.length);
    expect(spread).toBeGreaterThan(1);
  });

  it('quantises as the chip does: Intel 5300 int8 around the AGC target, Atheros 10 bit', () => {
    for (const [device, limit, rms] of [['intel5300', 127, 20], ['atheros', 511, 200]] as const) {
      const sim = new Simulator(testScenario({
        radios: [
          { id: 'tx', role: 'tx', device, position: [0.5, 2, 1], antennas: 3 },
          { id: 'rx', role: 'rx', device, position: [4.5, 2, 1], yawDeg: 180, antennas: 3 },
        ],
        impairments: { snrDb: 25, timingOffsetNs: 40, randomPhase: true, chainPhase: true, agcJitterDb: 0, quantisation: 'device', packetLoss: 0, timingJitterUs: 0 },
      }));
      const f = sim.next().frames[0];
      let p = 0;
      for (let i = 0; i < f.csi.re.length; i++) {
        for (const v of [f.csi.re[i], f.csi.im[i]]) {
          expect(Number.isInteger(v)).toBe(true);
          expect(Math.abs(v)).toBeLessThanOrEqual(limit + 1);
        }
        p += f.csi.re[i] ** 2 + f.csi.im[i] ** 2;
      }
      expect(Math.sqrt(p / f.csi.re.length)).toBeGreaterThan(rms * 0.85);
      expect(Math.sqrt(p / f.csi.re.length)).toBeLessThan(rms * 1.15);
      expect(f.subcarriers.length).toBe(device === 'intel5300' ? 30 : 56);
    }
  });

  it('noise at the set SNR, packet loss at the set rate', () => {
    const snrDb = 20;
    const scen = testScenario({ impairments: { snrDb, timingOffsetNs: 0, randomPhase: false, chainPhase: false, agcJitterDb: 0, quantisation: 'none', packetLoss: 0.2, timingJitterUs: 0 } });
    const clean = new Simulator(testScenario(), { impairments: 'off' });
    const noisy = new Simulator(scen);
    let signal = 0;
    let noise = 0;
    let frames = 0;
    const ticks = 500;
    for (let i = 0; i < ticks; i++) {
      const a = clean.next().frames[0];
      const tick = noisy.next();
      if (!tick.frames.length) continue;
      frames++;
      const b = tick.frames[0];
      for (let j = 0; j < a.csi.re.length; j++) {
        signal += a.csi.re[j] ** 2 + a.csi.im[j] ** 2;
        noise += (b.csi.re[j] - a.csi.re[j]) ** 2 + (b.csi.im[j] - a.csi.im[j]) ** 2;
      }
    }
    expect(10 * Math.log10(signal / noise)).toBeCloseTo(snrDb, 0);
    expect(1 - frames / ticks).toBeGreaterThan(0.15);
    expect(1 - frames / ticks).toBeLessThan(0.25);
  });
});
