import type { CsiFrame } from '@wiflow/core';
import { calibratedChange, calibratedLink, type CalibratedLink } from '../locate/calibrated-link.js';
import { SPEED_OF_LIGHT } from '../locate/calibration.js';
import type { EmptyRoomReference } from '../locate/reference.js';
import type { EnvironmentGeometry } from '../model/environment.js';

/** Where the probe listens around a located person: heights (m) and floor offsets (m). */
export interface ProbeSettings {
  heightsM: number[];
  offsetsM: [number, number][];
  /** Packets per link held (the newest), as the locator's imager. */
  packets: number;
  /** Keep a link's packet only this long after the last kept one (s), as the locator. */
  minPacketIntervalS: number;
}

/** The probe of `wiflow-room-pose-v1`: 10 heights from the floor to 1.9 m, the person's cell and 4 neighbours 0.25 m away. */
export const DEFAULT_PROBE: ProbeSettings = {
  heightsM: [0.1, 0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 1.7, 1.9],
  offsetsM: [[0, 0], [0.25, 0], [-0.25, 0], [0, 0.25], [0, -0.25]],
  packets: 8,
  minPacketIntervalS: 0.045,
};

/** Features per person: per link, per height and offset, the change's power and its packet-to-packet power; then 2 distances per link. */
export function probeFeatureSize(settings: ProbeSettings, links: number): number {
  return links * (settings.heightsM.length * settings.offsetsM.length * 2 + 2);
}

interface ProbeLink extends CalibratedLink {
  history: { re: Float32Array; im: Float32Array }[];
  lastKeptMs: number;
}

/**
 * The person-centred view of the change against the empty-room reference: for a located floor
 * position, how much of each link's change comes from a scatterer at each height around it
 * (matched filter, power over the packets held) and how fast that part changes (power of the
 * packet-to-packet difference). A standing, sitting or lying body puts its power at other
 * heights; the network learns posture from that, not where the radios are.
 *
 * It keeps its own copy of the aligned, calibrated change (the same steps as the locator's
 * `RoomImager.push`): the imager does not expose its packets, and the locator is not this
 * module's to change.
 */
export class PersonProbe {
  readonly #links: ProbeLink[];
  readonly #byKey = new Map<string, ProbeLink>();

  constructor(readonly environment: EnvironmentGeometry, reference: EmptyRoomReference, readonly settings: ProbeSettings = DEFAULT_PROBE) {
    this.#links = environment.links.map((link) => {
      const state: ProbeLink = { ...calibratedLink(environment, reference, link, 'the room-pose model'), history: [], lastKeptMs: -Infinity };
      this.#byKey.set(state.key, state);
      return state;
    });
  }

  /** Feature width of this room's probe. */
  get featureSize(): number {
    return probeFeatureSize(this.settings, this.#links.length);
  }

  /** Add a frame of one of the room's links (frames of other links are ignored). */
  push(frame: CsiFrame): void {
    const link = this.#byKey.get(`${frame.link.tx}->${frame.link.rx}`);
    if (!link || frame.csi.re.length !== link.n) return;
    if (frame.time - link.lastKeptMs < this.settings.minPacketIntervalS * 1000 && frame.time >= link.lastKeptMs) return;
    link.lastKeptMs = frame.time;
    link.history.push(calibratedChange(link, frame.csi));
    if (link.history.length > this.settings.packets) link.history.shift();
  }

  /** Every link holds at least two packets. */
  ready(): boolean {
    return this.#links.every((l) => l.history.length >= 2);
  }

  /**
   * Features of a person located at (x, y): log shares of each link's change power explained
   * by a scatterer at each probe point (log, so the scale of a link's gain drops out), then the
   * distances of the person to the link's transmitter and receiver (a link sees a body by its
   * bistatic geometry).
   */
  features(x: number, y: number, out = new Float32Array(this.featureSize), offset = 0): Float32Array {
    const { heightsM, offsetsM } = this.settings;
    let o = offset;
    for (const link of this.#links) {
      const packets = link.history;
      let total = 0, totalDiff = 0;
      for (let p = 0; p < packets.length; p++) {
        for (let j = 0; j < link.n; j++) {
          total += packets[p].re[j] ** 2 + packets[p].im[j] ** 2;
          if (p > 0) totalDiff += (packets[p].re[j] - packets[p - 1].re[j]) ** 2 + (packets[p].im[j] - packets[p - 1].im[j]) ** 2;
        }
      }
      const ar = new Float64Array(link.n), ai = new Float64Array(link.n);
      for (const [dx, dy] of offsetsM) {
        for (const h of heightsM) {
          this.#steer(link, x + dx, y + dy, h, ar, ai);
          let power = 0, diffPower = 0, prevR = 0, prevI = 0;
          for (let p = 0; p < packets.length; p++) {
            let yr = 0, yi = 0;
            const { re, im } = packets[p];
            // The path's response is e^{−j2πfL/c}: multiplying by e^{+j2πfL/c} lines it up (as the imager).
            for (let j = 0; j < link.n; j++) { yr += re[j] * ar[j] - im[j] * ai[j]; yi += re[j] * ai[j] + im[j] * ar[j]; }
            power += yr * yr + yi * yi;
            if (p > 0) diffPower += (yr - prevR) ** 2 + (yi - prevI) ** 2;
            prevR = yr; prevI = yi;
          }
          // The steering vector has unit entries: a point explaining all of a packet gives n·energy.
          out[o++] = Math.log(power / (link.n * (total || 1e-30)) + 1e-6);
          out[o++] = Math.log(diffPower / (link.n * (totalDiff || 1e-30)) + 1e-6);
        }
      }
      const dist = (e: number[][]) => Math.hypot(x - e[0][0], y - e[0][1]);
      out[o++] = dist(link.txE);
      out[o++] = dist(link.rxE);
    }
    return out;
  }

  #steer(link: ProbeLink, x: number, y: number, h: number, re: Float64Array, im: Float64Array): void {
    const nrx = link.rxE.length;
    for (let t = 0; t < link.txE.length; t++) {
      const dt = Math.hypot(x - link.txE[t][0], y - link.txE[t][1], h - link.txE[t][2]);
      for (let r = 0; r < nrx; r++) {
        const L = dt + Math.hypot(x - link.rxE[r][0], y - link.rxE[r][1], h - link.rxE[r][2]);
        for (let k = 0; k < link.nsc; k++) {
          const a = (2 * Math.PI * link.fk[k] * L) / SPEED_OF_LIGHT;
          const j = (t * nrx + r) * link.nsc + k;
          re[j] = Math.cos(a);
          im[j] = Math.sin(a);
        }
      }
    }
  }
}
