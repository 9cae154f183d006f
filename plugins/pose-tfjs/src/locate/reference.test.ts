import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CsiFrame } from '@wiflow/core';
import { planDataset, Simulator } from '@wiflow/plugin-sim';
import { afterAll, describe, expect, it } from 'vitest';
import { alignPacket, readReference, ReferenceRecorder, writeReference } from './reference.js';
import { RoomImager } from './imager.js';
import { countFeatures, countFeatureSize } from './locator-model.js';
import { environmentFromScenario } from '../sim/environment-from-scenario.js';

const dirs: string[] = [];
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }); });

const INTEL_GRID = [-28, -26, -24, -22, -20, -18, -16, -14, -12, -10, -8, -6, -4, -2, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 28];

describe('alignPacket', () => {
  it('removes a timing slope and a complex gain shared by every antenna pair', () => {
    const n = 4 * INTEL_GRID.length;
    const re = Float64Array.from({ length: n }, (_, j) => Math.cos(j * 1.7) * (1 + (j % 5) / 3));
    const im = Float64Array.from({ length: n }, (_, j) => Math.sin(j * 0.9) * (1 + (j % 3) / 2));
    // H = c · e^{−jρm} · H0 with ρ = 0.05 rad per subcarrier (about 25 ns) and c = 0.7 e^{j2}.
    const rho = 0.05, cr = 0.7 * Math.cos(2), ci = 0.7 * Math.sin(2);
    const hr = new Float64Array(n), hi = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      const a = -rho * INTEL_GRID[j % INTEL_GRID.length];
      const pr = re[j] * Math.cos(a) - im[j] * Math.sin(a), pi = re[j] * Math.sin(a) + im[j] * Math.cos(a);
      hr[j] = pr * cr - pi * ci; hi[j] = pr * ci + pi * cr;
    }
    const aligned = alignPacket({ re: hr, im: hi }, { re, im }, INTEL_GRID);
    for (let j = 0; j < n; j++) {
      expect(aligned.re[j]).toBeCloseTo(re[j], 6);
      expect(aligned.im[j]).toBeCloseTo(im[j], 6);
    }
  });
});

describe('empty-room reference', () => {
  const plan = planDataset({ rooms: 12, secondsPerSession: 4, sessionsPerRoom: 1, seed: 'reference-test', ranges: { receivers: [3, 3], rateHz: 20 } });
  const scenario = plan.sessions[0].scenario;

  it('is recorded from an empty room, round-trips through its file, and matches the room\'s next packets after alignment', () => {
    const recorder = new ReferenceRecorder(scenario.environmentId, 'test');
    const empty = new Simulator({ ...scenario, people: [] });
    const later: CsiFrame[] = [];
    for (const tick of empty.run(3)) for (const f of tick.frames) (tick.t < 2 ? recorder.push(f) : later.push(f));
    const reference = recorder.build();
    expect(reference.links).toHaveLength(3);
    for (const l of reference.links) expect(l.packets).toBeGreaterThanOrEqual(35);
    // The simulated radios keep their receive chains' phases from packet to packet: one common gain.
    for (const l of reference.links) expect(l.gain).toBe('common');
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-ref-'));
    dirs.push(dir);
    const file = path.join(dir, 'ref.json');
    writeReference(file, reference);
    const back = readReference(file);
    expect(back).toEqual(reference);
    // The noise floor is what an empty room's packets scatter around the mean: positive, far below the channel.
    for (const l of back.links) {
      const power = l.re.reduce((s, v, j) => s + v * v + l.im[j] * l.im[j], 0) / l.re.length;
      expect(l.noisePower).toBeGreaterThan(0);
      expect(10 * Math.log10(l.noisePower / power)).toBeLessThan(-10);
    }
    // An empty room's packet, aligned to the reference, differs from it by the noise alone (SNR 15–35 dB).
    for (const frame of later.slice(0, 6)) {
      const link = back.links.find((l) => l.tx === frame.link.tx && l.rx === frame.link.rx)!;
      const h0 = { re: Float64Array.from(link.re), im: Float64Array.from(link.im) };
      const a = alignPacket(frame.csi, h0, link.subcarriers);
      let e = 0, p = 0;
      for (let j = 0; j < a.re.length; j++) { e += (a.re[j] - h0.re[j]) ** 2 + (a.im[j] - h0.im[j]) ** 2; p += h0.re[j] ** 2 + h0.im[j] ** 2; }
      expect(10 * Math.log10(e / p)).toBeLessThan(-12);
    }
  });

  it('refuses a link that changes its layout, too few packets, and a file that is not a reference, saying which', () => {
    const frames = [...new Simulator({ ...scenario, people: [] }).run(0.5)].flatMap((t) => t.frames);
    const recorder = new ReferenceRecorder('room');
    recorder.push(frames[0]);
    const narrower = { ...frames[3], nrx: 2, csi: { re: frames[3].csi.re.slice(0, 3 * 2 * 30), im: frames[3].csi.im.slice(0, 3 * 2 * 30) } } as CsiFrame;
    expect(() => recorder.push({ ...narrower, link: frames[0].link, csi: frames[3].csi })).toThrow(/holds 270 values for 3×2×30/);
    expect(() => recorder.push({ ...narrower, link: frames[0].link })).toThrow(/changed its layout/);
    expect(() => recorder.build()).toThrow(/at least 10 needed/);
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-ref-bad-'));
    dirs.push(dir);
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ format: 'wiflow-empty-room/1', environmentId: 'x', links: [{ tx: 'a', rx: 'b', centerFrequencyHz: 5e9, subcarriers: [1, 2], ntx: 1, nrx: 1, packets: 3, re: [1], im: [1], noisePower: 0.1 }] }));
    expect(() => readReference(bad)).toThrow(/bad\.json is not an empty-room reference: .*ntx × nrx × subcarriers/);
    expect(() => readReference(path.join(dir, 'missing.json'))).toThrow(expect.objectContaining({ code: 'WIFLOW_POSE_REFERENCE_MISSING', message: expect.stringMatching(/reference file .*missing\.json: it does not exist; record/) }));
  });

  it('the imager refuses frames that do not fit the reference, and environments without antenna arrays, saying why', () => {
    const recorder = new ReferenceRecorder(scenario.environmentId);
    for (const tick of new Simulator({ ...scenario, people: [] }).run(1)) for (const f of tick.frames) recorder.push(f);
    const reference = recorder.build();
    const environment = environmentFromScenario(scenario);
    const settings = { gridStepM: 0.5, heightsM: [0.9], packets: 4, separationM: 0.8, cleanRadiusM: 0, maxPersons: 2 };
    const imager = new RoomImager(environment, reference, settings);
    const frame = [...new Simulator(scenario).run(0.1)][0].frames[0];
    expect(() => imager.push({ ...frame, link: { tx: 'tx0', rx: 'nowhere' } })).toThrow(/does not belong to environment/);
    expect(() => imager.push({ ...frame, nsc: 28, subcarriers: frame.subcarriers.slice(0, 28) })).toThrow(/its empty-room reference 3×3×30/);
    expect(() => imager.push({ ...frame, subcarriers: frame.subcarriers.map((v) => v + 1) })).toThrow(/another subcarrier grid/);
    const bare = { ...environment, links: environment.links.map(({ txArray: _t, rxArray: _r, ...l }) => l) };
    expect(() => new RoomImager(bare, reference, settings)).toThrow(/needs the antenna arrays/);
    expect(() => new RoomImager(environment, { ...reference, links: reference.links.slice(1) }, settings)).toThrow(/has no link tx0->rx0/);
  });

  it('an empty room images as noise, and the count features keep their size when fewer people can be sought than maxPersons', () => {
    const recorder = new ReferenceRecorder(scenario.environmentId);
    const frames = [...new Simulator({ ...scenario, people: [] }).run(3)].flatMap((t) => t.frames);
    for (const f of frames.filter((f) => f.time - frames[0].time < 2000)) recorder.push(f);
    const reference = recorder.build();
    // A separation larger than the room: one person at most can be found.
    const settings = { gridStepM: 0.3, heightsM: [0.9], packets: 8, separationM: 50, cleanRadiusM: 0, maxPersons: 3 };
    const imager = new RoomImager(environmentFromScenario(scenario), reference, settings);
    for (const f of frames.filter((f) => f.time - frames[0].time >= 2000)) imager.push(f);
    expect(imager.ready()).toBe(true);
    const image = imager.image();
    expect(image.peaks).toHaveLength(1);
    // Nobody there: the change is the noise floor the reference measured (within a factor of two).
    expect(image.energies[0] / image.noiseEnergy).toBeGreaterThan(0.5);
    expect(image.energies[0] / image.noiseEnergy).toBeLessThan(2);
    // Per link, the energies add up to the room's; and a peak of noise explains little of it on any link.
    image.energies.forEach((e, i) => expect(image.linkEnergies[i].reduce((a, b) => a + b, 0)).toBeCloseTo(e, 6));
    expect(image.linkNoiseEnergies.reduce((a, b) => a + b, 0)).toBeCloseTo(image.noiseEnergy, 6);
    const explained = image.linkNoiseEnergies.map((noise, l) => (image.linkEnergies[0][l] - image.linkEnergies[1][l]) / noise);
    expect(Math.max(...explained)).toBeLessThan(0.5);
    expect(countFeatures(image, 3)).toHaveLength(countFeatureSize(settings));
  });
});
