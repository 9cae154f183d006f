// Test support (not part of the public entry): tiny contracts, environments and windows
// whose CSI encodes where people stand, so a model can learn them in seconds.
import { mulberry32, type CsiWindow, type GroundTruthPerson } from '@wiflow/core';
import { POSE_CONTRACT, type ModelSpec } from '../model/contract.js';
import { defaultCamera, type EnvironmentGeometry } from '../model/environment.js';
import type { PoseSample } from '../training/dataset.js';

/** A small contract: 2 links, 2×2 antennas, 8 subcarriers, 4 time bins, up to 2 people. */
export function tinySpec(overrides: Partial<ModelSpec> = {}): ModelSpec {
  return {
    contract: POSE_CONTRACT,
    modelId: 'tiny-test',
    version: '0.0.1',
    description: 'test model',
    input: { frames: 4, links: 2, antennaPairs: 4, subcarriers: 8, sampleRateHz: 20, geometryScale: 5, phase: 'sanitised', temporal: 'absolute' },
    normalisation: { amplitudeMean: 1, amplitudeStd: 0.5, phaseMean: 0, phaseStd: 1 },
    output: { maxPersons: 2, presenceThreshold: 0.5 },
    training: {},
    ...overrides,
  };
}

/** A 4 m × 3 m room with two links and the default camera. */
export function tinyEnvironment(id = 'room-a', width = 4, depth = 3): EnvironmentGeometry {
  const room = { width, depth, height: 2.6 };
  return {
    id,
    room,
    links: [
      { tx: 'tx0', rx: 'rx0', txPosition: [0.2, 0.2, 1.2], rxPosition: [width - 0.2, depth - 0.2, 1.2] },
      { tx: 'tx0', rx: 'rx1', txPosition: [0.2, 0.2, 1.2], rxPosition: [width - 0.2, 0.2, 1.2] },
    ],
    camera: defaultCamera(room),
  };
}

/** A standing skeleton (COCO-17, metres) at a floor position. */
export function standingPerson(id: number, x: number, y: number, height = 1.75): GroundTruthPerson {
  const h = height;
  const k = [
    [0.08, 0, 0.94 * h], [0.07, 0.03, 0.96 * h], [0.07, -0.03, 0.96 * h], [0.02, 0.07, 0.95 * h], [0.02, -0.07, 0.95 * h],
    [0, 0.2, 0.82 * h], [0, -0.2, 0.82 * h], [0, 0.24, 0.63 * h], [0, -0.24, 0.63 * h], [0.03, 0.25, 0.48 * h], [0.03, -0.25, 0.48 * h],
    [0, 0.1, 0.53 * h], [0, -0.1, 0.53 * h], [0.02, 0.1, 0.29 * h], [0.02, -0.1, 0.29 * h], [0, 0.1, 0.04 * h], [0, -0.1, 0.04 * h],
  ];
  return { id, activity: 'standing', position: { x, y }, keypoints3d: k.map(([dx, dy, z]) => [x + dx, y + dy, z]) };
}

/** A window of one link whose amplitude pattern over subcarriers encodes the people's positions. */
export function syntheticWindow(spec: ModelSpec, environment: EnvironmentGeometry, link: number, persons: readonly GroundTruthPerson[], time: number, noise: () => number): CsiWindow {
  const T = 6, pairs = spec.input.antennaPairs, nsc = spec.input.subcarriers;
  const amplitude = new Float32Array(T * pairs * nsc);
  const phase = new Float32Array(T * pairs * nsc);
  const l = environment.links[link];
  for (let t = 0; t < T; t++) {
    for (let p = 0; p < pairs; p++) {
      for (let k = 0; k < nsc; k++) {
        let a = 1, ph = 0;
        for (const person of persons) {
          const d = Math.hypot(person.position.x - l.rxPosition[0], person.position.y - l.rxPosition[1]);
          a += 0.4 * Math.cos(d * (1 + k / 3) + p);
          ph += 0.3 * Math.sin(d * (1 + k / 4) - p);
        }
        const i = (t * pairs + p) * nsc + k;
        amplitude[i] = a + 0.02 * noise();
        phase[i] = ph + 0.02 * noise();
      }
    }
  }
  return {
    sourceId: `synthetic:${l.rx}`, link: { tx: l.tx, rx: l.rx }, environmentId: environment.id,
    startTimestamp: time * 1000 - 300_000, endTimestamp: time * 1000, time, length: T, ntx: 2, nrx: pairs / 2, nsc,
    subcarriers: Int16Array.from({ length: nsc }, (_, i) => -28 + 8 * i), centerFrequencyHz: 5.32e9,
    amplitude, phase, features: ['synthetic test window'], provenance: 'simulated',
  };
}

/** Deterministic synthetic samples: 0–2 people at random positions. */
export function syntheticSamples(spec: ModelSpec, environment: EnvironmentGeometry, count: number, seed: number): PoseSample[] {
  const random = mulberry32(seed);
  const noise = () => random() * 2 - 1;
  const samples: PoseSample[] = [];
  for (let i = 0; i < count; i++) {
    const n = Math.floor(random() * (spec.output.maxPersons + 1));
    const persons = Array.from({ length: n }, (_, id) => standingPerson(id, 0.5 + random() * (environment.room.width - 1), 0.5 + random() * (environment.room.depth - 1)));
    const windows = environment.links.map((_, link) => syntheticWindow(spec, environment, link, persons, 1_700_000_000_000 + i * 500, noise));
    samples.push({ environment, windows, truth: persons });
  }
  return samples;
}
