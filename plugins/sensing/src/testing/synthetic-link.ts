import type { CsiFrame } from '@wiflow/core';
import { Prng } from '@wiflow/plugin-sim';

/** One stretch of a synthetic link's story. */
export interface SyntheticSegment {
  seconds: number;
  /** 'empty': no body path; 'still': a body path breathing at `bpm`; 'moving': a body path lengthening at `WALK_PATH_SPEED` (walking). */
  kind: 'empty' | 'still' | 'moving';
  bpm?: number;
}

/** Options of `syntheticLinkFrames`. */
export interface SyntheticOptions {
  /** Mean packet rate (Hz); intervals vary uniformly by ±50 %. */
  rateHz: number;
  /** Fraction of packets lost. */
  loss?: number;
  nrx?: number;
  nsc?: number;
  /** Noise relative to the static path's amplitude. */
  noise?: number;
  seed?: number;
  format?: string;
}

/**
 * How fast the walking body's path length changes (m/s): slower than walking speed, since the bistatic path
 * tx → body → rx lengthens only by the motion's component along the ellipse normal, and a torso dominates;
 * 0.08 m/s puts the amplitude fluctuation near 3 Hz at 5.3 GHz, where the real walking recordings put theirs
 * (slot-to-slot steps 1.4–1.6 times the packet noise there, 1.6–2.3 here; a still person 1.0).
 */
const WALK_PATH_SPEED = 0.08;

/**
 * CSI of one link with a static multipath channel and, when someone is there, one body path whose length
 * follows the story: chest motion of 3 mm at the breathing rate, or walking. Every packet gets a random AGC
 * gain (0.5–2), a random common phase and a timing offset slope, as real radios do; intervals are irregular
 * and packets are lost at random.
 */
export function syntheticLinkFrames(segments: SyntheticSegment[], options: SyntheticOptions): CsiFrame[] {
  const prng = new Prng(options.seed ?? 1);
  const rnd = () => prng.next();
  const gauss = () => prng.normal();
  const nrx = options.nrx ?? 3;
  const nsc = options.nsc ?? 30;
  const noise = options.noise ?? 0.02;
  const lambda = 0.057;
  const subcarriers = Int16Array.from({ length: nsc }, (_, k) => -28 + Math.round((56 * k) / (nsc - 1)));
  const paths = Array.from({ length: 4 }, () => ({ amp: 0.3 + rnd(), delay: rnd() * 60e-9, ant: Array.from({ length: nrx }, () => rnd() * 2 * Math.PI) }));
  const body = { amp: 0.06, delay: 20e-9, ant: Array.from({ length: nrx }, () => rnd() * 2 * Math.PI) };
  const frames: CsiFrame[] = [];
  let t = 0;
  let sequence = 0;
  let start = 0;
  let walked = 0;
  for (const segment of segments) {
    const end = start + segment.seconds;
    while (t < end) {
      const interval = (0.5 + rnd()) / options.rateHz;
      t += interval;
      if (segment.kind === 'moving') walked += interval * WALK_PATH_SPEED;
      if (rnd() < (options.loss ?? 0)) continue;
      const re = new Float32Array(nrx * nsc);
      const im = new Float32Array(nrx * nsc);
      const gain = 0.5 + 1.5 * rnd();
      const common = rnd() * 2 * Math.PI;
      const slope = (rnd() - 0.5) * 0.2;
      const extra = segment.kind === 'still' ? 0.003 * Math.sin((2 * Math.PI * (segment.bpm ?? 15) * t) / 60) : walked;
      for (let r = 0; r < nrx; r++) {
        for (let k = 0; k < nsc; k++) {
          const f = subcarriers[k] * 312.5e3;
          let hr = 0;
          let hi = 0;
          for (const p of paths) {
            const phase = -2 * Math.PI * f * p.delay + p.ant[r];
            hr += p.amp * Math.cos(phase);
            hi += p.amp * Math.sin(phase);
          }
          if (segment.kind !== 'empty') {
            const phase = -2 * Math.PI * f * body.delay + body.ant[r] - (4 * Math.PI * extra) / lambda;
            // A walking body sweeps the whole link; a still one reflects mostly from the chest. The still
            // path's strength makes the amplitude spread of a still person about what the real Intel 5300
            // lying/sitting recordings show (≈ 0.02), the walking one about their walking (≈ 0.1).
            const amp = segment.kind === 'moving' ? 7 * body.amp : body.amp;
            hr += amp * Math.cos(phase);
            hi += amp * Math.sin(phase);
          }
          const hardware = common + slope * subcarriers[k];
          const c = Math.cos(hardware);
          const s = Math.sin(hardware);
          const i = r * nsc + k;
          re[i] = gain * (hr * c - hi * s + noise * gauss());
          im[i] = gain * (hr * s + hi * c + noise * gauss());
        }
      }
      frames.push({
        timestamp: t * 1e6,
        time: 1_700_000_000_000 + t * 1000,
        sourceId: 'synthetic',
        link: { tx: 'tx', rx: 'rx' },
        centerFrequencyHz: 5.32e9,
        bandwidthHz: 20e6,
        subcarriers,
        ntx: 1,
        nrx,
        nsc,
        csi: { re, im },
        sequence: sequence++,
        format: options.format ?? 'intel5300',
        provenance: 'simulated',
      });
    }
    start = end;
  }
  return frames;
}

/** The frame with its receive chains reported rotated by one, as an antenna-switching glitch does. */
export function rotatedChains(frame: CsiFrame): CsiFrame {
  const { nrx, nsc } = frame;
  const re = new Float32Array(frame.csi.re.length);
  const im = new Float32Array(frame.csi.im.length);
  for (let r = 0; r < nrx; r++) {
    re.set(frame.csi.re.subarray(r * nsc, (r + 1) * nsc), ((r + 1) % nrx) * nsc);
    im.set(frame.csi.im.subarray(r * nsc, (r + 1) * nsc), ((r + 1) % nrx) * nsc);
  }
  return { ...frame, csi: { re, im } };
}
