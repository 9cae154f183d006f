import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { applyProfile, Simulator, type ScenarioInput } from '../index.js';
import { captureFingerprint } from '../test-support/fingerprint.js';

/** The recommended reverberant body (docs/simulator.md §7, "C2"): off by default, pinned here byte for byte. */
const C2 = { decayNs: 22, staticTail: false, bodyDiffuse: true, bodyDirections: 'segment' as const };

/**
 * Two people walking crossing lines in a 6 × 5 m room with clutter, two transmitters (1 and 3 antennas) to one
 * 3-antenna Intel 5300 receiver: a 1 × 3 and a 3 × 3 link, the Intel profile's impairments on, C2 on.
 */
function walkingC2(bandwidthMHz: 20 | 40): ScenarioInput {
  const input: ScenarioInput = {
    name: `c2-pin-${bandwidthMHz}`,
    environmentId: 'c2-pin',
    seed: 11,
    room: { width: 6, depth: 5, height: 2.7, materials: { walls: 'plasterboard', north: 'concrete', floor: 'concrete', ceiling: 'plasterboard' } },
    clutter: [{ label: 'table', position: [3, 2.5, 0.7], rcs: 1 }],
    channel: { centerFrequencyHz: 5.32e9, bandwidthMHz, rateHz: 20, txPowerDbm: 20 },
    radios: [
      { id: 'tx1', role: 'tx', device: 'intel5300', position: [0.3, 1.5, 1.5], yawDeg: 0, antennas: 1 },
      { id: 'tx3', role: 'tx', device: 'intel5300', position: [0.3, 3.5, 1.2], yawDeg: 0, antennas: 3 },
      { id: 'rx', role: 'rx', device: 'intel5300', position: [5.7, 2.5, 1.0], yawDeg: 180, antennas: 3 },
    ],
    people: [
      { id: 1, height: 1.7, start: { x: 1, y: 1 }, loop: true, script: [{ action: 'walk', path: [[5, 4]], speed: 1.2 }, { action: 'walk', path: [[1, 1]], speed: 1.2 }] },
      { id: 2, height: 1.6, start: { x: 3, y: 4.4 }, loop: true, script: [{ action: 'walk', path: [[3, 0.6]], speed: 0.9 }] },
    ],
    propagation: { reverberation: C2 },
  };
  const profiled = applyProfile(input, bandwidthMHz === 20 ? 'intel5300-ht20' : 'intel5300-ht40', { txAntennas: 3 });
  // The profile gives every transmitter the same count; the first keeps its one antenna.
  return { ...profiled, radios: profiled.radios!.map((r) => (r.id === 'tx1' ? { ...r, antennas: 1 } : r)) };
}

/** SHA-256 of the clean channel's Float64 bytes of every link at `times` (no quantisation to hide a last-bit change). */
function cleanChannelFingerprint(sim: Simulator, times: readonly number[]): string {
  const hash = createHash('sha256');
  for (let l = 0; l < sim.links.length; l++) {
    for (const t of times) {
      const h = sim.cleanChannel(l, t);
      hash.update(new Uint8Array(h.re.buffer));
      hash.update(new Uint8Array(h.im.buffer));
    }
  }
  return hash.digest('hex');
}

/**
 * The capture bytes were recorded from the code at af3322e (before the reverberant body was made cheaper, branch
 * revfast) and an optimisation of the term must keep them. The clean channel's hash pins the Float64 values
 * bit for bit as they are since the transmit phasors were factored (branch revfast; within 1e-12 of af3322e's,
 * checked against af3322e's values by the first test below).
 */
const RECORDED: Record<string, { links: string; capture: string; clean: string }> = {
  '20 MHz': {
    links: '1x3x30,3x3x30',
    capture: '38537531665738d6497f8a8e180cfea12d8d8a2d1be120a2412dc358b01be773',
    clean: '6ec8a1a3b67bacd06a75f1a48b4a5e3c0bfb51a5d43d05596c96eb4d31eda726',
  },
  '40 MHz': {
    links: '1x3x30,3x3x30',
    capture: '83f75ab16222eccaba5505b548c4f1bedb9ac9880afb0bdb9f284206f084fd06',
    clean: '540c761e2e07b21d0dd29c86a7513ec529c28f811f04fcf1d9af22cf8b37436e',
  },
};

/** The clean channel's values at three instants, recorded from the code at af3322e (`C2_RECORD=1 npx vitest run` re-records). */
const VALUES_FILE = new URL('./reverberation-c2-af3322e.json', import.meta.url);
const VALUE_TIMES = [0.25, 1.36, 2.47];

type Values = Record<string, { re: number[]; im: number[] }[]>;

function cleanValues(sim: Simulator): { re: number[]; im: number[] }[] {
  const out: { re: number[]; im: number[] }[] = [];
  for (let l = 0; l < sim.links.length; l++) for (const t of VALUE_TIMES) {
    const h = sim.cleanChannel(l, t);
    out.push({ re: Array.from(h.re), im: Array.from(h.im) });
  }
  return out;
}

describe('the reverberant body C2 gives the recorded output', () => {
  it('the clean channel (Float64) equals the recorded values at 20 and 40 MHz', () => {
    const now: Values = {};
    for (const bandwidthMHz of [20, 40] as const) now[`${bandwidthMHz} MHz`] = cleanValues(new Simulator(walkingC2(bandwidthMHz)));
    if (process.env.C2_RECORD === '1') writeFileSync(VALUES_FILE, JSON.stringify(now));
    const recorded = JSON.parse(readFileSync(VALUES_FILE, 'utf8')) as Values;
    let worst = 0;
    for (const key of Object.keys(recorded)) {
      recorded[key].forEach((h, n) => {
        for (let i = 0; i < h.re.length; i++) {
          const scale = Math.hypot(h.re[i], h.im[i]);
          worst = Math.max(worst, Math.hypot(now[key][n].re[i] - h.re[i], now[key][n].im[i] - h.im[i]) / scale);
        }
      });
    }
    // Bit-identical through 0dcf9eb; since then the diffuse paths' transmit phasors are the body-at-rest phasors
    // times the body's length change (a product of exponentials, not one), which moves the last bits: measured
    // worst 8.2e-13 of an element's magnitude, held to 1e-12.
    expect(worst).toBeLessThanOrEqual(1e-12);
  });

  for (const bandwidthMHz of [20, 40] as const) {
    it(`${bandwidthMHz} MHz: 1 × 3 and 3 × 3 links, two people walking, 3 s at 20 Hz and the clean channel at 12 instants`, () => {
      const scenario = walkingC2(bandwidthMHz);
      const sim = new Simulator(scenario);
      const links = sim.links.map((l) => `${l.ntx}x${l.nrx}x${l.grid.indices.length}`).join(',');
      const clean = cleanChannelFingerprint(sim, Array.from({ length: 12 }, (_, i) => 0.25 + 0.37 * i));
      const capture = captureFingerprint(new Simulator(scenario).run(3));
      expect({ links, capture, clean }).toEqual(RECORDED[`${bandwidthMHz} MHz`]);
      // The pin covers the term: the same scene without it gives another channel.
      const off = new Simulator({ ...scenario, propagation: {} });
      expect(cleanChannelFingerprint(off, [0.25, 1.36])).not.toBe(cleanChannelFingerprint(new Simulator(scenario), [0.25, 1.36]));
    });
  }
});
