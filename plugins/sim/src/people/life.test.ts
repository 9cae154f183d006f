import FFT from 'fft.js';
import { describe, expect, it } from 'vitest';
import { dayScenario, fallScenario, Simulator, stillPersonScenario, validateScenario } from '../index.js';

const off = { snrDb: null, timingOffsetNs: 0, randomPhase: false, chainPhase: false, agcJitterDb: 0, quantisation: 'none' as const, packetLoss: 0, timingJitterUs: 0 };
const K = { leftWrist: 9, rightWrist: 10 };

/** Pelvis height and vertical speed over a run, from the truth's hip keypoints. */
function pelvisTrack(sim: Simulator, seconds: number): { t: number; z: number; vz: number }[] {
  const out: { t: number; z: number; vz: number }[] = [];
  for (const tick of sim.run(seconds)) {
    const p = tick.truth.persons[0];
    if (!p) continue;
    const z = (p.keypoints3d[11][2] + p.keypoints3d[12][2]) / 2;
    const prev = out[out.length - 1];
    out.push({ t: tick.t, z, vz: prev ? (z - prev.z) * sim.rateHz : 0 });
  }
  return out;
}

function eventsOf(sim: Simulator, seconds: number): { type: string; t: number; detail?: Record<string, unknown> }[] {
  const out: { type: string; t: number; detail?: Record<string, unknown> }[] = [];
  for (const tick of sim.run(seconds)) for (const e of tick.truth.events) out.push({ type: e.type, t: (e.time - sim.startTimeMs) / 1000, detail: e.detail });
  return out;
}

describe('life-like people', () => {
  it('a still person breathing at 12 per minute puts a line at 0.2 Hz in the channel, and fidgets move an arm, not the body', () => {
    const still = validateScenario({ ...stillPersonScenario({ breathingRateBpm: 12, distanceM: 1.5, posture: 'sit', durationS: 60, rateHz: 20 }), impairments: off });
    const sim = new Simulator(still);
    const n = 1024; // 51.2 s at 20 Hz
    const fft = new FFT(n);
    const input = fft.createComplexArray() as number[];
    const frames = [...sim.run(n / 20)].map((t) => t.frames[0]);
    const mean = [0, 0];
    for (const f of frames) { mean[0] += f.csi.re[40] / n; mean[1] += f.csi.im[40] / n; }
    frames.forEach((f, i) => { input[2 * i] = f.csi.re[40] - mean[0]; input[2 * i + 1] = f.csi.im[40] - mean[1]; });
    const out = fft.createComplexArray() as number[];
    fft.transform(out, input);
    let best = 1;
    const power = (k: number) => Math.hypot(out[2 * k], out[2 * k + 1]) ** 2 + Math.hypot(out[2 * (n - k)], out[2 * (n - k) + 1]) ** 2;
    for (let k = 1; k < n / 2; k++) if (power(k) > power(best)) best = k;
    expect(Math.abs((best * 20) / n - 0.2)).toBeLessThanOrEqual(20 / n);

    const wristTravel = (fidgetEveryS?: number) => {
      const s = new Simulator(stillPersonScenario({ posture: 'sit', durationS: 60, rateHz: 20, fidgetEveryS }));
      let wrist = 0;
      let pelvis = 0;
      let first: number[][] | null = null;
      for (const tick of s.run(60)) {
        if (tick.t < 4) continue; // sitting down takes 1.6 s
        const k = tick.truth.persons[0].keypoints3d;
        first ??= k;
        wrist = Math.max(wrist, Math.hypot(k[K.leftWrist][0] - first[K.leftWrist][0], k[K.leftWrist][2] - first[K.leftWrist][2]), Math.hypot(k[K.rightWrist][0] - first[K.rightWrist][0], k[K.rightWrist][2] - first[K.rightWrist][2]));
        pelvis = Math.max(pelvis, Math.abs(k[11][2] - first[11][2]));
      }
      return { wrist, pelvis };
    };
    const quiet = wristTravel();
    const fidgety = wristTravel(8);
    expect(quiet.wrist).toBeLessThan(0.03);
    expect(fidgety.wrist).toBeGreaterThan(0.08);
    expect(fidgety.pelvis).toBeLessThan(0.02);
  });

  it('falls: a trip and a collapse onto the knees end on the floor after a fast drop, with their times in the truth', () => {
    for (const type of ['trip', 'knees'] as const) {
      const events = eventsOf(new Simulator(fallScenario({ type, rateHz: 50 })), 12);
      const start = events.find((e) => e.type === 'fall_start')!;
      const end = events.find((e) => e.type === 'fall_end')!;
      expect(start.detail).toEqual({ fallType: type });
      expect(end.t - start.t).toBeCloseTo(type === 'trip' ? 0.8 : 1.8, 1);
      const track = pelvisTrack(new Simulator(fallScenario({ type, rateHz: 50 })), 12);
      const during = track.filter((p) => p.t >= start.t && p.t <= end.t + 0.05);
      expect(Math.min(...during.map((p) => p.vz))).toBeLessThan(-1);
      expect(track[track.length - 1].z).toBeLessThan(0.3);
    }
  });

  it('fall-like non-falls: sitting down hard drops as fast as a fall but ends on a chair; lying down and getting into bed are slow', () => {
    const result = (fallLike: 'sit-hard' | 'lie-down' | 'into-bed') => {
      const events = eventsOf(new Simulator(fallScenario({ fallLike, rateHz: 50 })), 14);
      const start = events.find((e) => e.type === 'fall_like_start')!;
      const end = events.find((e) => e.type === 'fall_like_end')!;
      expect(start.detail).toEqual({ kind: fallLike });
      expect(events.some((e) => e.type === 'fall_start')).toBe(false);
      const track = pelvisTrack(new Simulator(fallScenario({ fallLike, rateHz: 50 })), 14);
      const during = track.filter((p) => p.t >= start.t && p.t <= end.t + 0.05);
      return { seconds: end.t - start.t, fastest: Math.min(...during.map((p) => p.vz)), finalZ: track[track.length - 1].z };
    };
    const hard = result('sit-hard');
    expect(hard.seconds).toBeCloseTo(0.5, 2);
    expect(hard.fastest).toBeLessThan(-1);
    expect(hard.finalZ).toBeGreaterThan(0.45);
    const floor = result('lie-down');
    expect(floor.seconds).toBeCloseTo(3, 2);
    expect(floor.fastest).toBeGreaterThan(-0.9);
    expect(floor.finalZ).toBeLessThan(0.2);
    const bed = result('into-bed');
    expect(bed.finalZ).toBeGreaterThan(0.5);
  });

  it('day scripts for a home, a shop and an office validate and follow the clock', () => {
    for (const kind of ['home', 'shop', 'office'] as const) expect(() => validateScenario(dayScenario(kind))).not.toThrow();
    // 03:00 at home: asleep in bed.
    const night = new Simulator(dayScenario('home', { startHour: 3, hours: 0.01 }));
    const tick = night.next();
    expect(tick.truth.persons[0].activity).toBe('lying');
    // An hour of the shop at 10:00: customers come and go through a door that swings.
    const shop = validateScenario(dayScenario('shop', { startHour: 10, hours: 1, seed: 3 }));
    const customer = shop.people.find((p) => p.id === 2)!;
    expect(customer.script.filter((s) => s.action === 'enter').length).toBeGreaterThan(2);
    const door = shop.distractors!.find((d) => d.kind === 'door') as { swings: unknown[] };
    expect(door.swings.length).toBe(2 * customer.script.filter((s) => s.action === 'enter').length);
    // 10:00 in the office: three people at their desks.
    const office = new Simulator(dayScenario('office', { startHour: 9, hours: 0.01 }));
    expect(office.next().truth.persons.map((p) => p.activity)).toEqual(['sitting', 'sitting', 'sitting']);
  });
});
