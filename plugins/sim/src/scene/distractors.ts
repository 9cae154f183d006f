import type { GroundTruthDistractor } from '@wiflow/core';
import type { PointScatterer } from '../physics/link-channel.js';
import type { RoomGeometry } from '../physics/room.js';
import { Prng } from '../random/prng.js';
import type { DistractorSpec } from '../scenario/schema.js';

/** Which capture a simulator makes: the installation's empty-room reference or the recording later. */
export type CapturePhase = 'reference' | 'recording';

const deg = (d: number) => (d * Math.PI) / 180;
const smooth = (u: number) => (u <= 0 ? 0 : u >= 1 ? 1 : u * u * (3 - 2 * u));

/** Door leaf RCS by material (m², the whole leaf as point scatterers: a flat plate is far stronger head-on, weaker elsewhere). */
const DOOR_RCS = { wood: 0.6, metal: 3, glass: 0.3 } as const;
/** Pets: torso height, torso RCS, leg RCS, breathing excursion (m). */
const PET = { cat: { height: 0.22, rcs: 0.03, leg: 0.003, breath: 0.001, stride: 0.25 }, dog: { height: 0.45, rcs: 0.15, leg: 0.01, breath: 0.002, stride: 0.6 } } as const;

interface Runtime {
  id: string;
  kind: DistractorSpec['kind'];
  /** Adds this distractor's scatterers at time t; returns whether it moves at t and its floor position. */
  at(t: number, out: PointScatterer[]): { active: boolean; x: number; y: number } | null;
}

/**
 * The non-human movers of a room at any instant, as point scatterers for the channel. Each
 * kind follows its physics: fan blades turn at `rpm` (identical blades, so the channel repeats
 * `blades` times a revolution); a pet walks its loop and breathes while it rests; a door's leaf
 * turns about its hinge; curtains and plants sway as a sum of slow incommensurate sines; a
 * person next door walks behind a wall, seen through it twice. In the reference phase the
 * installation state holds: pets and neighbours away, fans as `onInReference`, doors at
 * `referenceOpenDeg`.
 */
export class DistractorScene {
  readonly #items: Runtime[];
  readonly #scratch: PointScatterer[] = [];

  constructor(specs: readonly DistractorSpec[], room: RoomGeometry, seed: number, phase: CapturePhase) {
    const prng = new Prng(`${seed}:distractors`);
    this.#items = specs.map((spec, i) => build(spec, `${spec.kind}-${i}`, room, prng.fork(`${spec.kind}:${i}`), phase)).filter((r): r is Runtime => r !== null);
  }

  /** Number of distractors present in this phase. */
  get size(): number {
    return this.#items.length;
  }

  /** Every scatterer at time t (the array is reused by the next call). */
  scatterersAt(t: number): PointScatterer[] {
    const out = this.#scratch;
    out.length = 0;
    for (const item of this.#items) item.at(t, out);
    return out;
  }

  /** What the ground truth says about the distractors at time t. */
  truthAt(t: number): GroundTruthDistractor[] {
    const sink: PointScatterer[] = [];
    return this.#items.map((item) => {
      sink.length = 0;
      const state = item.at(t, sink);
      return { id: item.id, kind: item.kind, active: state?.active ?? false, position: state ? { x: round3(state.x), y: round3(state.y) } : null };
    });
  }
}

function round3(v: number): number {
  return Math.round(v * 1000) / 1000;
}

function build(spec: DistractorSpec, fallbackId: string, room: RoomGeometry, prng: Prng, phase: CapturePhase): Runtime | null {
  const id = spec.id ?? fallbackId;
  switch (spec.kind) {
    case 'fan': {
      const running = phase === 'recording' || spec.onInReference;
      const omega = (2 * Math.PI * spec.rpm) / 60;
      const angle0 = prng.uniform(0, 2 * Math.PI);
      const [hx, hy, hz] = spec.position;
      const ux = -Math.sin(deg(spec.yawDeg));
      const uy = Math.cos(deg(spec.yawDeg));
      return {
        id, kind: spec.kind,
        at(t, out) {
          const base = angle0 + (running ? omega * t : 0);
          for (let b = 0; b < spec.blades; b++) {
            const a = base + (2 * Math.PI * b) / spec.blades;
            const c = Math.cos(a);
            const s = Math.sin(a);
            for (const f of [0.5, 0.95]) {
              const r = f * spec.bladeLengthM;
              // Identical blades scatter with the same phase, so the sum repeats every 1/blades turn.
              if (spec.mount === 'ceiling') out.push({ x: hx + r * c, y: hy + r * s, z: hz, rcs: spec.bladeRcs / 2, phase: 0, transmission: 1 });
              else out.push({ x: hx + r * c * ux, y: hy + r * c * uy, z: hz + r * s, rcs: spec.bladeRcs / 2, phase: 0, transmission: 1 });
            }
          }
          return { active: running, x: hx, y: hy };
        },
      };
    }
    case 'pet': {
      if (phase === 'reference') return null;
      const kind = PET[spec.species];
      const pts = spec.path;
      // A loop: rest at point i, walk to point i + 1.
      const legs = pts.map((p, i) => {
        const q = pts[(i + 1) % pts.length];
        const len = Math.hypot(q[0] - p[0], q[1] - p[1]);
        return { p, q, len, walkS: len / spec.speed };
      });
      const cycle = legs.reduce((sum, l) => sum + spec.restS + l.walkS, 0);
      const breathPhase = prng.uniform(0, 2 * Math.PI);
      const scatterPhase = prng.uniform(-Math.PI, Math.PI);
      return {
        id, kind: spec.kind,
        at(t, out) {
          let u = cycle > 0 ? t % cycle : 0;
          for (const leg of legs) {
            if (u < spec.restS || leg.len === 0) {
              const b = kind.breath * Math.sin((2 * Math.PI * spec.breathingRateBpm * t) / 60 + breathPhase);
              out.push({ x: leg.p[0] + b, y: leg.p[1], z: kind.height * 0.6, rcs: kind.rcs, phase: scatterPhase, transmission: 1 });
              return { active: false, x: leg.p[0], y: leg.p[1] };
            }
            u -= spec.restS;
            if (u < leg.walkS) {
              const f = u / leg.walkS;
              const dx = (leg.q[0] - leg.p[0]) / leg.len;
              const dy = (leg.q[1] - leg.p[1]) / leg.len;
              const x = leg.p[0] + (leg.q[0] - leg.p[0]) * f;
              const y = leg.p[1] + (leg.q[1] - leg.p[1]) * f;
              out.push({ x, y, z: kind.height, rcs: kind.rcs, phase: scatterPhase, transmission: 1 });
              // Four legs swinging fore and aft in diagonal pairs at the stride frequency.
              const gait = (2 * Math.PI * u * spec.speed) / kind.stride;
              for (let l = 0; l < 4; l++) {
                const swing = 0.3 * kind.height * Math.sin(gait + (l === 0 || l === 3 ? 0 : Math.PI));
                const along = (l < 2 ? 0.35 : -0.35) * kind.height * 2 + swing;
                out.push({ x: x + dx * along, y: y + dy * along, z: kind.height * 0.35, rcs: kind.leg, phase: scatterPhase, transmission: 1 });
              }
              return { active: true, x, y };
            }
            u -= leg.walkS;
          }
          return { active: false, x: pts[0][0], y: pts[0][1] };
        },
      };
    }
    case 'door': {
      const open0 = phase === 'reference' ? (spec.referenceOpenDeg ?? spec.openDeg) : spec.openDeg;
      const swings = phase === 'reference' ? [] : [...spec.swings].sort((a, b) => a.at - b.at);
      const perPoint = DOOR_RCS[spec.material] / 8;
      const [hx, hy] = spec.hinge;
      const angleAt = (t: number): { deg: number; moving: boolean } => {
        let a = open0;
        for (const s of swings) {
          if (t < s.at) break;
          if (t < s.at + s.durationS) return { deg: a + (s.toDeg - a) * smooth((t - s.at) / s.durationS), moving: true };
          a = s.toDeg;
        }
        return { deg: a, moving: false };
      };
      return {
        id, kind: spec.kind,
        at(t, out) {
          const { deg: a, moving } = angleAt(t);
          const yaw = deg(spec.closedYawDeg + a);
          const c = Math.cos(yaw);
          const s = Math.sin(yaw);
          for (const f of [0.125, 0.375, 0.625, 0.875]) {
            for (const h of [0.3, 0.75]) out.push({ x: hx + c * f * spec.widthM, y: hy + s * f * spec.widthM, z: h * spec.heightM, rcs: perPoint, phase: 0, transmission: 1 });
          }
          return { active: moving, x: hx + c * 0.5 * spec.widthM, y: hy + s * 0.5 * spec.widthM };
        },
      };
    }
    case 'curtain':
    case 'plant': {
      // Each of three scatterers sways along its own horizontal direction as a sum of three sines
      // with periods around periodS (incommensurate, so the motion never repeats exactly).
      const parts = [0, 1, 2].map((k) => {
        const dir = prng.uniform(0, 2 * Math.PI);
        const waves = [0, 1, 2].map(() => ({ period: spec.periodS * prng.uniform(0.6, 1.6), phase: prng.uniform(0, 2 * Math.PI), weight: prng.uniform(0.5, 1) }));
        const norm = Math.sqrt(waves.reduce((sum, w) => sum + (w.weight * w.weight) / 2, 0));
        const dz = spec.kind === 'curtain' ? (k - 1) * 0.6 : (k - 1) * 0.2;
        return { dx: Math.cos(dir), dy: Math.sin(dir), dz, waves, norm, phase: prng.uniform(-Math.PI, Math.PI) };
      });
      const [px, py, pz] = spec.position;
      return {
        id, kind: spec.kind,
        at(t, out) {
          for (const part of parts) {
            let d = 0;
            for (const w of part.waves) d += w.weight * Math.sin((2 * Math.PI * t) / w.period + w.phase);
            d *= spec.swayM / part.norm;
            out.push({ x: px + part.dx * d, y: py + part.dy * d, z: Math.max(0.05, pz + part.dz), rcs: spec.rcs / 3, phase: part.phase, transmission: 1 });
          }
          return { active: true, x: px, y: py };
        },
      };
    }
    case 'neighbour': {
      if (phase === 'reference') return null;
      const span = Math.abs(spec.to - spec.from);
      const period = span > 0 ? (2 * span) / spec.speed : Infinity;
      const place = (along: number): [number, number] => {
        switch (spec.wall) {
          case 'west': return [-spec.distanceM, along];
          case 'east': return [room.width + spec.distanceM, along];
          case 'south': return [along, -spec.distanceM];
          default: return [along, room.depth + spec.distanceM];
        }
      };
      // Crossing the wall on the way in and on the way out.
      const transmission = Math.pow(10, (-2 * spec.wallLossDb) / 20);
      const phase0 = prng.uniform(-Math.PI, Math.PI);
      return {
        id, kind: spec.kind,
        at(t, out) {
          const u = Number.isFinite(period) ? (t % period) / period : 0;
          const frac = u < 0.5 ? 2 * u : 2 - 2 * u;
          const along = spec.from + (spec.to - spec.from) * frac;
          const [x, y] = place(along);
          out.push({ x, y, z: 1.1, rcs: spec.rcs, phase: phase0, transmission });
          // Legs swinging at the gait frequency (two steps per 1.4 m at 1 m/s).
          const gait = (2 * Math.PI * spec.speed * t) / 1.4;
          const alongWall = spec.wall === 'west' || spec.wall === 'east' ? [0, 1] : [1, 0];
          for (const sign of [1, -1]) {
            const swing = 0.3 * sign * Math.sin(gait);
            out.push({ x: x + alongWall[0] * swing, y: y + alongWall[1] * swing, z: 0.45, rcs: spec.rcs * 0.1, phase: phase0, transmission });
          }
          return { active: span > 0, x, y };
        },
      };
    }
  }
}
