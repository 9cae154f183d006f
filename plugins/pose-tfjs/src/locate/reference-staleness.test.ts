import { fileURLToPath } from 'node:url';
import * as sim from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { loadLocatorModel, ReferenceStaleness, SHIPPED_LOCATOR_DIR, simulateReference, type LinkStaleness, type StalenessChainGain } from '../index.js';

/** The shipped locator's gain per receive chain (wiflow-locate-v2 2.3.0: 30 s, dead band 0.2), as `pose.locate` hands it to the detector. */
const shippedChainGain = loadLocatorModel(SHIPPED_LOCATOR_DIR).spec.imaging.staticChainGain!;

// The hall's one 3×3 link at 20 Hz, furnished as a living room, with the noise, timing and AGC of an Intel 5300 (25 dB SNR).
const room = {
  ...sim.hallScenario(),
  name: 'living-room',
  environmentId: 'living-room',
  seed: 4,
  impairments: { snrDb: 25, timingOffsetNs: 40, agcJitterDb: 0.5, packetLoss: 0.01, timingJitterUs: 200 },
  clutter: [{ label: 'sofa', position: [1.5, 3.2, 0.4], rcs: 1.5 }, { label: 'fridge', position: [4.6, 0.4, 0.9], rcs: 4 }],
};

/** Slow static drift a day after the reference, at the upper end of realism v2's draws (0.1–0.5 dB, 0.05–0.3 rad a bounce). */
const DRIFT = { gainDb: 0.4, phaseRad: 0.25, periodS: 3600, elapsedS: 5400 };

/** Someone walking around the room with pauses, then leaving: the room is empty for the rest. */
const walkerWhoLeaves = {
  id: 1, height: 1.7, girth: 1, start: { x: 1.5, y: 1.5, yawDeg: 0 },
  script: [
    { action: 'walk', path: [[3.5, 1.2], [3.2, 3.0]], speed: 0.9 },
    { action: 'stand', duration: 3 },
    { action: 'walk', path: [[1.2, 2.6], [2.5, 1.0]], speed: 0.9 },
    { action: 'stand', duration: 4 },
    { action: 'walk', path: [[3.8, 2.0], [2.0, 2.4], [3.0, 1.5]], speed: 0.7 },
    { action: 'leave', path: [[5.0, 2.0]] },
    { action: 'absent', duration: 120 },
  ],
};

/** Run a scenario for `seconds` against the reference recorded before it (its drift's reference phase); every second's link states. */
function watch(scenario: Record<string, unknown>, seconds: number, chainGain: StalenessChainGain | null = null): LinkStaleness[][] {
  const validated = sim.validateScenario(scenario);
  const reference = simulateReference(sim as never, validated as never, 10);
  const staleness = new ReferenceStaleness(reference, {}, chainGain);
  const states: LinkStaleness[][] = [];
  let start: number | null = null;
  for (const tick of new sim.Simulator(validated).run(seconds)) {
    for (const frame of tick.frames) staleness.push(frame);
    start ??= tick.time;
    // One sample a second of simulated time (tick times are epoch milliseconds).
    if ((tick.time - start) % 1000 === 0) states.push(staleness.status());
  }
  states.push(staleness.status());
  return states;
}

describe('stale empty-room reference', () => {
  it('an unchanged room is never flagged over a stretch with someone walking and pausing, and is judged fresh once empty and still', () => {
    const states = watch({ ...room, drift: { referenceSeed: 9 }, people: [walkerWhoLeaves] }, 70);
    expect(states.flat().filter((s) => s.status === 'stale')).toEqual([]);
    const last = states.at(-1)![0];
    expect(last.status).toBe('fresh');
    expect(last.changeNoiseFloors).toBeLessThan(0.5);
  }, 120_000);

  it('the demo home (two people walking, sitting, lying, falling; three links) raises no stale link over two minutes', () => {
    const home = sim.loadScenario(fileURLToPath(new URL('../../../../examples/scenarios/home-monitored.yaml', import.meta.url)));
    const reference = simulateReference(sim as never, home as never, 10);
    const staleness = new ReferenceStaleness(reference);
    const stale = new Set<string>();
    for (const tick of new sim.Simulator(home).run(120)) {
      for (const frame of tick.frames) staleness.push(frame);
      for (const l of staleness.status()) if (l.status === 'stale') stale.add(l.link);
    }
    expect([...stale]).toEqual([]);
  }, 120_000);

  it('a reference recorded before the sofa moved is flagged stale once the room is still, with the change in noise floors', () => {
    const states = watch({ ...room, drift: { referenceSeed: 9, moved: [{ clutter: 'sofa', to: [3.8, 0.6, 0.4] }] } }, 25);
    const last = states.at(-1)![0];
    expect(last).toMatchObject({ link: 'router->laptop', status: 'stale' });
    expect(last.changeNoiseFloors).toBeGreaterThan(5);
    // Not before the room was still for the whole stretch (20 s).
    expect(states.length).toBeGreaterThan(24);
    expect(states.slice(0, 19).flat().every((s) => s.status === 'unchecked')).toBe(true);
  }, 60_000);

  it('a re-plugged receiver (new chain phases) is flagged stale for a locator without a gain per receive chain', () => {
    const last = watch({ ...room, drift: { referenceSeed: 9, replugged: ['laptop'] } }, 25).at(-1)![0];
    expect(last).toMatchObject({ status: 'stale', verdict: 'stale', chainAlignedChangeNoiseFloors: null });
  }, 60_000);

  it('with the shipped locator\'s gain per receive chain, a re-plugged receiver in a still empty room is "re-plugged", not stale', () => {
    const last = watch({ ...room, drift: { referenceSeed: 9, replugged: ['laptop'] } }, 25, shippedChainGain).at(-1)![0];
    expect(last).toMatchObject({ link: 'router->laptop', status: 'fresh', verdict: 'replugged' });
    // Far off the reference as recorded, within the noise once each chain has its own gain.
    expect(last.changeNoiseFloors).toBeGreaterThan(20);
    expect(last.chainAlignedChangeNoiseFloors).toBeLessThan(2);
  }, 60_000);

  it('with the shipped gain per chain, moved furniture and slow static drift stay stale, and an unchanged room is fine', () => {
    const moved = watch({ ...room, drift: { referenceSeed: 9, moved: [{ clutter: 'sofa', to: [3.8, 0.6, 0.4] }] } }, 25, shippedChainGain).at(-1)![0];
    expect(moved).toMatchObject({ status: 'stale', verdict: 'stale' });
    expect(moved.chainAlignedChangeNoiseFloors).toBeGreaterThan(5);
    const movedAndReplugged = watch({ ...room, drift: { referenceSeed: 9, replugged: ['laptop'], moved: [{ clutter: 'sofa', to: [3.8, 0.6, 0.4] }] } }, 25, shippedChainGain).at(-1)![0];
    expect(movedAndReplugged).toMatchObject({ status: 'stale', verdict: 'stale' });
    const drifted = watch({ ...room, drift: { referenceSeed: 9, staticDrift: DRIFT } }, 25, shippedChainGain).at(-1)![0];
    expect(drifted).toMatchObject({ status: 'stale', verdict: 'stale' });
    const clean = watch({ ...room, drift: { referenceSeed: 9 } }, 25, shippedChainGain).at(-1)![0];
    expect(clean).toMatchObject({ status: 'fresh', verdict: 'fine' });
    expect(clean.chainAlignedChangeNoiseFloors).toBeLessThan(0.5);
  }, 120_000);

  it('a door left open that was shut when the reference was recorded is flagged stale; shut as then, fresh', () => {
    const door = { kind: 'door', id: 'front-door', hinge: [5, 3.2], closedYawDeg: 90, widthM: 0.8, material: 'wood', swings: [] };
    const open = watch({ ...room, drift: { referenceSeed: 9 }, distractors: [{ ...door, openDeg: 80, referenceOpenDeg: 0 }] }, 25).at(-1)![0];
    expect(open.status).toBe('stale');
    const shut = watch({ ...room, drift: { referenceSeed: 9 }, distractors: [{ ...door, openDeg: 0, referenceOpenDeg: 0 }] }, 25).at(-1)![0];
    expect(shut.status).toBe('fresh');
  }, 60_000);
});
